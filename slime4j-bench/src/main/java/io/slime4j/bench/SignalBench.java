package io.slime4j.bench;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.endpoint.EndpointInfo;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.Counter;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Selective signaling of the endpoint's io queue pairs: the small-write message rate with every
 * request signaled ({@code signalEvery} 1) against every Nth, side by side in one run. Two
 * endpoints on two soft devices of one in-process wire (one JVM: the cost measured is the
 * engine's and the endpoint's per-request work, not a network's); each op is a batch of
 * {@code --batch} writes of {@code --size} bytes, {@code --window} ops outstanding. Rounds
 * interleave the settings (round 1: N = 1, 4, 16, ...; round 2: the same again) so that a noisy
 * machine disturbs all of them alike; each figure is the median over rounds, after a warm-up.
 *
 * <pre>
 * java -cp "slime4j-bench/target/slime4j-bench-0.1.0-SNAPSHOT.jar:slime4j-bench/target/lib/*" \
 *     io.slime4j.bench.SignalBench [--every 1,4,16,64] [--size 64] [--batch 64] [--window 8]
 *     [--qps 1] [--seconds 2] [--rounds 5]
 * </pre>
 */
public final class SignalBench {
    private int[] every = {1, 4, 16, 64};
    private int size = 64;
    private int batch = 64;
    private int window = 8;
    private int qps = 1;
    private double seconds = 2;
    private int rounds = 5;

    private SignalBench() {}

    /** Runs the benchmark; prints one row per signaling interval. Bad options: a one-line error, exit 2. */
    public static void main(String[] args) throws Exception {
        SignalBench b = new SignalBench();
        try {
            b.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("SignalBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        b.run();
    }

    private void parse(String[] args) {
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            String v = args[i + 1];
            try {
                switch (args[i]) {
                    case "--every" -> every = Arrays.stream(v.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
                    case "--size" -> size = (int) Options.size(v);
                    case "--batch" -> batch = Integer.parseInt(v);
                    case "--window" -> window = Integer.parseInt(v);
                    case "--qps" -> qps = Integer.parseInt(v);
                    case "--seconds" -> seconds = Double.parseDouble(v);
                    case "--rounds" -> rounds = Integer.parseInt(v);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(args[i] + " needs a number, was '" + v + "'");
            }
        }
        if (every.length == 0 || Arrays.stream(every).anyMatch(n -> n < 1) || size < 1 || batch < 1 || window < 1
                || qps < 1 || seconds <= 0 || rounds < 1) {
            throw new IllegalArgumentException("every value must be positive");
        }
    }

    private void run() throws Exception {
        System.out.printf("SignalBench: %d B writes, %d per op, %d ops outstanding, %d io QP(s), %.1f s per trial,"
                + " median of %d rounds; in-process wire, one JVM; the first value is the baseline%n", size, batch,
                window, qps, seconds, rounds);
        // One pair at a time (idle devices would still cost), opened afresh for each trial.
        double[][] rates = new double[every.length][rounds];
        double[][] perRequest = new double[every.length][rounds];
        for (int r = -1; r < rounds; r++) { // round -1 warms up
            for (int i = 0; i < every.length; i++) {
                try (Pair p = new Pair(every[i])) {
                    p.trial(Math.min(seconds, 0.5)); // warm this pair's threads and buffers
                    long posted0 = p.counter(Counter.WR_POSTED);
                    long generated0 = p.counter(Counter.COMPLETIONS_GENERATED);
                    double rate = p.trial(seconds);
                    if (r >= 0) {
                        rates[i][r] = rate;
                        perRequest[i][r] = (double) (p.counter(Counter.COMPLETIONS_GENERATED) - generated0)
                                / (p.counter(Counter.WR_POSTED) - posted0);
                    }
                }
            }
        }
        System.out.printf("%-12s %14s %26s %12s %22s%n", "signalEvery", "writes/s", "range over rounds",
                "vs first", "completions/request");
        double base = median(rates[0]);
        for (int i = 0; i < every.length; i++) {
            double m = median(rates[i]);
            double[] sorted = rates[i].clone();
            Arrays.sort(sorted);
            System.out.printf("%-12d %,14.0f %,12.0f..%,-13.0f %12.2f %22.3f%n", every[i], m, sorted[0],
                    sorted[sorted.length - 1], m / base, median(perRequest[i]));
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Two connected endpoints whose io queue pairs signal every {@code n}th request. */
    private final class Pair implements AutoCloseable {
        private final InprocWire wire = new InprocWire();
        private final Arena arena = Arena.ofShared();
        private final SoftDevice da;
        private final SoftDevice db;
        private final RdmaEndpoint a;
        private final RdmaEndpoint b;
        private final List<List<Assignment>> batches = new ArrayList<>();

        Pair(int n) {
            String tag = "sig" + n;
            da = SoftDevice.open(wire, tag + "-a", SoftConfig.builder().name(tag + "-a").build());
            db = SoftDevice.open(wire, tag + "-b", SoftConfig.builder().name(tag + "-b").build());
            EndpointConfig cfg = EndpointConfig.builder().qps(qps).signalEvery(n).ioSlots(Math.max(256, 2 * window
                    * ((batch + 15) / 16))).build();
            a = RdmaEndpoint.open(da, cfg.toBuilder().name(tag + "-a").build());
            b = RdmaEndpoint.open(db, cfg.toBuilder().name(tag + "-b").build());
            long bytes = (long) window * batch * size;
            MemorySegment sa = arena.allocate(bytes, 4096);
            MemorySegment sb = arena.allocate(bytes, 4096);
            a.register("kv", sa);
            b.register("kv", sb);
            a.connect(EndpointInfo.fromJson(b.info().toJson()));
            b.connect(EndpointInfo.fromJson(a.info().toJson()));
            for (int w = 0; w < window; w++) {
                List<Assignment> list = new ArrayList<>(batch);
                for (int k = 0; k < batch; k++) {
                    long off = ((long) w * batch + k) * size;
                    list.add(new Assignment("kv", off, "kv", off, size));
                }
                batches.add(list);
            }
        }

        long counter(Counter c) {
            return da.counters().get(c);
        }

        /** One timed trial; writes (requests) per second. */
        double trial(double seconds) throws Exception {
            TransferFuture[] ring = new TransferFuture[window];
            long ops = 0;
            long t0 = System.nanoTime();
            long end = t0 + (long) (seconds * 1e9);
            while (System.nanoTime() < end) {
                int k = (int) (ops % window);
                if (ring[k] != null) {
                    await(ring[k]);
                }
                ring[k] = a.write(batches.get(k));
                ops++;
            }
            for (TransferFuture f : ring) {
                if (f != null) {
                    await(f);
                }
            }
            return ops * (double) batch / ((System.nanoTime() - t0) / 1e9);
        }

        private void await(TransferFuture f) throws Exception {
            TransferStatus s = f.await(Duration.ofSeconds(60));
            if (s != TransferStatus.SUCCESS) {
                throw new IllegalStateException("write failed: " + f.failureMessage());
            }
        }

        @Override
        public void close() {
            a.close();
            b.close();
            da.close();
            db.close();
            wire.close();
            arena.close();
        }
    }
}
