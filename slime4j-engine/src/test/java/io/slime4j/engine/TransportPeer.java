package io.slime4j.engine;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.engine.directory.FileDirectory;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The second JVM of {@link EngineTransportCrossProcessTest}: one engine (its transport setting from
 * {@code slime4j.transport}, as a user's) with ordinary (private, {@code Arena}) regions "src"
 * (a pattern) and "in", driven line by line on stdin; answers start with '@'.
 */
public final class TransportPeer {
    static final int SIZE = 4 << 20;

    private TransportPeer() {
    }

    static byte pattern(int seed, long i) {
        return (byte) (i * 131 + seed * 7 + (i >>> 12) + 1);
    }

    static void fill(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, pattern(seed, i));
        }
    }

    /** The first index where {@code s} differs from the pattern of {@code seed}, or -1. */
    static long firstMismatch(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != pattern(seed, i)) {
                return i;
            }
        }
        return -1;
    }

    /** Bytes sent and received by the engine's shm device and by its network rails. */
    static String bytes(TransferEngine e) {
        long shm = 0;
        long net = 0;
        for (Map.Entry<String, Counters> c : e.deviceCounters().entrySet()) {
            long b = c.getValue().get(Counter.BYTES_SENT) + c.getValue().get(Counter.BYTES_RECEIVED);
            if (c.getKey().endsWith("-shm")) {
                shm += b;
            } else {
                net += b;
            }
        }
        return "shm=" + shm + " net=" + net;
    }

    public static void main(String[] args) throws Exception {
        Path folder = Path.of(args[0]);
        String name = args[1];
        int seed = Integer.parseInt(args[2]);
        try (FileDirectory dir = new FileDirectory(folder);
             Arena arena = Arena.ofShared();
             TransferEngine e = TransferEngine.builder(name, dir).connectTimeout(Duration.ofSeconds(20)).start()) {
            MemorySegment src = arena.allocate(SIZE);
            MemorySegment in = arena.allocate(SIZE);
            fill(src, seed);
            e.register("src", src);
            e.register("in", in);
            System.out.println("@READY " + e.transportSetting() + " " + e.record().transports());
            BufferedReader reader = new BufferedReader(new InputStreamReader(System.in));
            String line;
            while ((line = reader.readLine()) != null) {
                String[] c = line.trim().split(" ");
                try {
                    switch (c[0]) {
                        case "CHECK" -> System.out.println("@CHECK " + firstMismatch(in, Integer.parseInt(c[1])));
                        case "WRITE" -> { // our src into the peer's "in"
                            TransferStatus s = e.write(c[1], List.of(new Assignment("src", 0, "in", 0, SIZE)))
                                    .await(Duration.ofSeconds(60));
                            System.out.println("@WRITE " + s);
                        }
                        case "TRANSPORT" -> System.out.println("@TRANSPORT "
                                + e.transport(c[1]).map(PeerTransport::text).orElse("none") + " " + bytes(e));
                        case "EXIT" -> {
                            System.out.println("@BYE");
                            return;
                        }
                        default -> System.out.println("@UNKNOWN " + line);
                    }
                } catch (RuntimeException ex) {
                    System.out.println("@ERROR " + ex.getMessage().replace('\n', ' '));
                }
            }
        }
    }
}
