package io.slime4j.endpoint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A benchmark, not a test: small-write op rate and 64 MiB throughput on the in-process wire. Each
 * figure is the median of three trials after a warm-up trial. Run with
 * {@code java -cp ... io.slime4j.endpoint.EndpointBenchmark [seconds per trial]}.
 */
public final class EndpointBenchmark {
    private EndpointBenchmark() {}

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        for (int qps : new int[] {1, 2}) {
            for (int threads : new int[] {1, 2}) {
                smallWrites(qps, threads, 64, 64, seconds);
            }
        }
        smallSendRecv(1, 64, seconds);
        for (int qps : new int[] {1, 8}) {
            big(qps, OpKind.WRITE);
            big(qps, OpKind.READ);
            big(qps, OpKind.SEND);
        }
    }

    static void smallWrites(int qps, int threads, int size, int window, double seconds) throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().qps(qps).ioSlots(512).build();
        try (EndpointPair p = EndpointPair.open(cfg, 64 << 20)) {
            double[] trials = new double[4];
            for (int trial = 0; trial < trials.length; trial++) {
                trials[trial] = smallWriteTrial(p, threads, size, window, seconds);
            }
            System.out.printf("write %4d B  qps %d threads %d window %3d: %,10.0f ops/s (median of 3)%n", size, qps,
                    threads, window, median(trials));
            p.assertClean();
        }
    }

    private static double median(double[] withWarmup) {
        double[] t = java.util.Arrays.copyOfRange(withWarmup, 1, withWarmup.length);
        java.util.Arrays.sort(t);
        return t[t.length / 2];
    }

    private static double smallWriteTrial(EndpointPair p, int threads, int size, int window, double seconds)
            throws Exception {
        {
            long[] counts = new long[threads];
            long end = System.nanoTime() + (long) (seconds * 1e9);
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    TransferFuture[] ring = new TransferFuture[window];
                    long n = 0;
                    try {
                        while (System.nanoTime() < end) {
                            int k = (int) (n % window);
                            if (ring[k] != null && ring[k].await() != TransferStatus.SUCCESS) {
                                throw new AssertionError(ring[k]);
                            }
                            long off = (id * (long) window + k) * size;
                            ring[k] = p.a.write(Assignment.local("kv", off).remote("kv", off).length(size));
                            n++;
                        }
                        for (TransferFuture f : ring) {
                            if (f != null) {
                                f.await();
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    counts[id] = n;
                }));
            }
            long t0 = System.nanoTime();
            for (Thread t : ts) {
                t.join();
            }
            double s = (System.nanoTime() - t0) / 1e9;
            long total = 0;
            for (long c : counts) {
                total += c;
            }
            return total / s;
        }
    }

    static void smallSendRecv(int qps, int size, double seconds) throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().qps(qps).build(), 64 << 20)) {
            double[] trials = new double[4];
            for (int trial = 0; trial < trials.length; trial++) {
                trials[trial] = sendRecvTrial(p, size, seconds);
            }
            System.out.printf("send/recv %d B window 32: %,10.0f pairs/s (median of 3)%n", size, median(trials));
            p.assertClean();
        }
    }

    private static double sendRecvTrial(EndpointPair p, int size, double seconds) {
        {
            int window = 32;
            long end = System.nanoTime() + (long) (seconds * 1e9);
            TransferFuture[] rs = new TransferFuture[window];
            TransferFuture[] ss = new TransferFuture[window];
            long n = 0;
            long t0 = System.nanoTime();
            while (System.nanoTime() < end) {
                int k = (int) (n % window);
                if (rs[k] != null) {
                    rs[k].join();
                    ss[k].join();
                }
                rs[k] = p.b.recv("kv", (long) k * size, size);
                ss[k] = p.a.send("kv", (long) k * size, size);
                n++;
            }
            for (int k = 0; k < window; k++) {
                if (rs[k] != null) {
                    rs[k].join();
                    ss[k].join();
                }
            }
            return n / ((System.nanoTime() - t0) / 1e9);
        }
    }

    static void big(int qps, OpKind kind) throws Exception {
        long size = 64L << 20;
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().qps(qps).build(), size)) {
            Patterns.fill(p.kvA, 0, size, 9); // reads and writes move the same pattern: checked after writes and sends
            Patterns.fill(p.kvB, 0, size, 9);
            double[] trials = new double[4];
            for (int i = 0; i < trials.length; i++) {
                long t0 = System.nanoTime();
                TransferFuture f;
                switch (kind) {
                    case WRITE -> f = p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(size));
                    case READ -> f = p.a.read(Assignment.local("kv", 0).remote("kv", 0).length(size));
                    default -> {
                        TransferFuture r = p.b.recv("kv", 0, size);
                        f = p.a.send("kv", 0, size);
                        r.await(Duration.ofSeconds(60));
                    }
                }
                if (f.await(Duration.ofSeconds(60)) != TransferStatus.SUCCESS) {
                    throw new AssertionError(f + " " + f.failureMessage());
                }
                trials[i] = size / ((System.nanoTime() - t0) / 1e3);
                if (kind == OpKind.SEND || kind == OpKind.WRITE) {
                    if (Patterns.mismatch(p.kvB, 0, size, 9) >= 0) {
                        throw new AssertionError(kind + " moved the wrong bytes");
                    }
                }
            }
            System.out.printf("%-5s 64 MiB qps %d: %7.1f MB/s (median of 3)%n", kind, qps, median(trials));
            p.assertClean();
        }
    }
}
