package io.slime4j.bench;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * One side of one system in a {@link Compare} run, in its own JVM: {@code a} receives and echoes,
 * {@code b} sends and times round trips. Both sides run the same workloads in the same order,
 * meeting at a barrier before each.
 */
abstract class Side {
    /** What both sides of a run do, in order. */
    enum Workload { RATE, RTT, BANDWIDTH }

    final CompareOptions options;
    final Link link;
    final boolean isA;
    /** When {@link #open()} returned (a {@link System#nanoTime()}): {@code --warmup} counts from here. */
    long connectedAt = System.nanoTime();

    Side(CompareOptions options, Link link, boolean isA) {
        this.options = options;
        this.link = link;
        this.isA = isA;
    }

    /** Connects to the peer (exchanging addresses over the link); throws {@link Unavailable} to be skipped. */
    abstract void open() throws Exception;

    /** Message rate with {@code size}-byte messages, {@code variant} from {@link #rateVariants()}; side a reports. */
    abstract void rate(String variant, int size) throws Exception;

    /** 64-byte round trips; side b reports p50/p99/p99.9. */
    abstract void rtt(int size) throws Exception;

    /** One-sided (or stream) transfer of {@code size}-byte writes; returns true if this system does it. */
    abstract boolean bandwidth(int size) throws Exception;

    /** The message-rate variants this system offers (slime4j has two). */
    String[] rateVariants() {
        return new String[] {""};
    }

    abstract void close() throws Exception;

    /** A peer that cannot run here (library missing, native part not loadable): reported as skipped. */
    static final class Unavailable extends Exception {
        Unavailable(String reason, Throwable cause) {
            super(reason, cause);
        }
    }

    /** Child entry point: {@code Side <system> <a|b> <compare options...>}. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        System.setOut(new PrintStream(System.err, true, StandardCharsets.UTF_8)); // libraries' chatter off the link
        CompareOptions o = CompareOptions.parse(java.util.Arrays.copyOfRange(args, 2, args.length));
        Link link = new Link(out, o.timeoutSeconds);
        Thread.ofPlatform().daemon().name("side-watchdog").start(() -> {
            try {
                Thread.sleep((o.systemBoundSeconds() + 30) * 1000L);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("side watchdog: exiting after " + (o.systemBoundSeconds() + 30) + " s");
            Runtime.getRuntime().halt(3);
        });
        boolean isA = args[1].equals("a");
        Side side;
        try {
            side = create(args[0], o, link, isA);
            side.open();
            side.connectedAt = System.nanoTime();
        } catch (Unavailable e) {
            link.finished = true;
            link.send("SKIP " + e.getMessage());
            link.send("DONE");
            System.exit(0);
            return;
        }
        try {
            if (o.warmsUp()) {
                side.warmUp();
            }
            side.messageWorkloads("");
            if (o.workloads.contains(Workload.BANDWIDTH)) {
                for (int size : o.bandwidthSizes) {
                    link.barrier("bw" + size);
                    if (!side.bandwidth(size)) {
                        break;
                    }
                }
            }
            link.barrier("end");
        } finally {
            side.close();
        }
        link.finished = true;
        link.send("DONE");
        System.exit(0);
    }

    /**
     * The rate and round-trip workloads, each after a barrier named with {@code pass} (empty for the
     * timed pass).
     */
    private void messageWorkloads(String pass) throws Exception {
        for (int size : options.rateSizes) {
            if (options.workloads.contains(Workload.RATE)) {
                for (String v : rateVariants()) {
                    link.barrier(pass + "rate" + v + size);
                    link.variant = v;
                    rate(v, size);
                    link.variant = "";
                }
            }
        }
        if (options.workloads.contains(Workload.RTT)) {
            link.barrier(pass + "rtt");
            rtt(options.rttSize);
        }
    }

    /**
     * Untimed passes of the message workloads, their results dropped, until {@code --warmup}
     * seconds have passed since the connect (at least one): side b decides after each pass and
     * tells side a.
     */
    private void warmUp() throws Exception {
        long until = warmEndsAt();
        link.muted = true;
        try {
            boolean more = true;
            int pass = 0;
            while (more) {
                pass++;
                messageWorkloads("warm" + pass + ".");
                if (isA) {
                    more = Boolean.parseBoolean(link.fromPeer("WARM"));
                } else {
                    more = stillWarming(until);
                    link.toPeer("WARM " + more);
                }
            }
            if (!isA) {
                link.send("WARMED " + pass); // the harness notes how many passes each system ran
            }
        } finally {
            link.muted = false;
        }
    }

    /** Sleeps until {@code --warmup} seconds after the connect (for a system whose bandwidth has no warm-up rounds). */
    void awaitWarmUp() throws InterruptedException {
        long left = warmEndsAt() - System.nanoTime();
        if (left > 0) {
            Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
        }
    }

    static Side create(String system, CompareOptions o, Link link, boolean isA) throws Unavailable {
        return switch (system) {
            case "slime4j" -> new SlimeSide(o, link, isA, false, false);
            case "slime4j-busy" -> new SlimeSide(o, link, isA, false, true);
            case "shm" -> new SlimeSide(o, link, isA, true, false);
            case "shm-busy" -> new SlimeSide(o, link, isA, true, true);
            case "aeron" -> AeronSide.create(o, link, isA);
            case "jucx" -> JucxSide.create(o, link, isA);
            case "tcp" -> new NioTcpSide(o, link, isA);
            case "udp" -> new NioUdpSide(o, link, isA);
            default -> throw new IllegalArgumentException("unknown system " + system);
        };
    }

    /** Round-trip samples in nanoseconds, sorted in place, reported as microsecond percentiles. */
    void reportRtt(long[] samples) {
        java.util.Arrays.sort(samples);
        link.result("rtt.p50", Percentiles.of(samples, 0.50) / 1e3);
        link.result("rtt.p99", Percentiles.of(samples, 0.99) / 1e3);
        link.result("rtt.p999", Percentiles.of(samples, 0.999) / 1e3);
    }

    /** Messages per second between the arrival of message {@code from} and of the last, {@code to}. */
    static double perSecond(long messages, long nanos) {
        return nanos <= 0 ? 0 : messages * 1e9 / nanos;
    }

    /** One untimed round of a bandwidth size's warm-up ({@link #warmBandwidth}). */
    interface WarmRound {
        void run() throws Exception;
    }

    /**
     * Runs {@code round} (untimed transfers of one bandwidth size, a tenth of the timed ones) again
     * until {@code --bw-warmup} seconds passed, at least once: the same warm-up by time for every
     * system, so no figure is the JIT's.
     */
    void warmBandwidth(WarmRound round) throws Exception {
        warm(warmUntil(), round);
    }

    /** Runs {@code round} until {@code until} (a {@link System#nanoTime()}) has passed, at least once. */
    static void warm(long until, WarmRound round) throws Exception {
        do {
            round.run();
        } while (stillWarming(until));
    }

    /**
     * When a bandwidth warm-up started now ends: after {@code --bw-warmup} seconds, and not before
     * {@code --warmup} seconds after the connect (a bandwidth-only run's first size: 4 KiB writes
     * of slime4j measured 114-200 MB/s after 2 s, 633-668 after 10).
     */
    long warmUntil() {
        long own = System.nanoTime() + (long) (options.bandwidthWarmupSeconds * 1e9);
        long settled = warmEndsAt();
        return settled - own > 0 ? settled : own;
    }

    /** When {@code --warmup} ends: that many seconds after the connect (a {@link System#nanoTime()}). */
    private long warmEndsAt() {
        return connectedAt + (long) (options.warmupSeconds * 1e9);
    }

    /** Whether a bandwidth warm-up ending at {@code until} needs another round. */
    static boolean stillWarming(long until) {
        return System.nanoTime() - until < 0;
    }

    /** Messages of one rate run: the untimed warm-up ones, then the timed ones. */
    int rateCount() {
        return Math.addExact(options.rateWarmup, options.messages);
    }

    /**
     * Index of the first timed message of a rate run of {@link #rateCount()} messages: everything
     * before it is warm-up (the same for every system, so the first row of a run is not the one the
     * JIT is still compiling).
     */
    int warm() {
        return options.rateWarmup;
    }
}
