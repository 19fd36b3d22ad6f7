package io.slime4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/** A one-line description of the machine a run was measured on, read from the JVM and /proc. */
final class Machine {
    private Machine() {}

    static String describe() {
        String cpu = firstValue(Path.of("/proc/cpuinfo"), "model name");
        String mem = firstValue(Path.of("/proc/meminfo"), "MemTotal");
        String memText = mem == null ? "?" : String.format("%.0f GiB", Long.parseLong(mem.replaceAll("[^0-9]", "")) / 1048576.0);
        return String.format("%s; %d cores visible to the JVM%s; %s memory; %s %s %s; %s %s",
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
                Runtime.getRuntime().availableProcessors(), cpu == null ? "" : " (" + cpu + ")", memText,
                System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"),
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"));
    }

    private static String firstValue(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file);
            for (String l : lines) {
                if (l.startsWith(key)) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }
}
