package io.slime4j.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;

/** Reads the flat JSON objects {@code perf --json} prints (strings, numbers, booleans), for tests. */
final class Json {
    private static final java.util.regex.Pattern FIELD =
            java.util.regex.Pattern.compile("\"([^\"]+)\":(\"[^\"]*\"|[^,}]+)");

    private Json() {}

    static Map<String, String> object(String line) {
        if (!line.startsWith("{") || !line.endsWith("}")) {
            throw new AssertionError("not a JSON object: " + line);
        }
        Map<String, String> m = new LinkedHashMap<>();
        Matcher matcher = FIELD.matcher(line);
        while (matcher.find()) {
            String v = matcher.group(2);
            m.put(matcher.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
        }
        return m;
    }
}
