package io.slime4j.bench;

import java.util.Arrays;

/** Command-line options of {@link WriteBench}, validated with one-line errors. */
final class Options {
    int[] sizes = {64 << 10, 1 << 20};
    long bytes = 2L << 30; // per measured run; the warm-up before it is counted in time (warmupSeconds)
    int depth = 16;
    int mtu = 0; // from the path: 60 KiB on loopback, which carries such datagrams whole; 1408 at MTU 1500
    int rounds = 3;
    /**
     * Seconds from the start of a phase's processes before its first measured run: the warm-up run
     * of the first size repeats until then (at least once; later sizes warm up once). A fresh pair
     * of JVMs on a loaded 2-core machine compiles the engine's hot paths with C2 over its first
     * 2-6 s, and a warm-up of as many bytes as the measured run (1 GiB: about a second) left most
     * of the measured run on C1 code (docs/PERFORMANCE.md). Applies to both systems' Java sides; 0
     * warms each size up once.
     */
    double warmupSeconds = 8;
    /**
     * How many message-sized buffers each side cycles through, for both systems alike: 1 is the TCP
     * stream's (and iperf3's) footprint, one send buffer and one receive buffer; the depth gives
     * every outstanding write a source and a target of its own.
     */
    int buffers = 1;
    /** This side's address (its device and the TCP client); the served side's. */
    String host = "127.0.0.1";
    String peerHost = "127.0.0.1";
    /** The network namespace the served side runs in, or null for this one. */
    String peerNetns;
    /** Which systems run: {@code both}, {@code slime4j} or {@code tcp}. */
    String only = "both";
    /** Which system's phase goes first in the first round ({@code slime4j} or {@code tcp}); the order then alternates. */
    String first = "slime4j";
    /** The TCP baseline: {@code nio} (a blocking NIO stream of this harness) or {@code iperf3} (Debian's, one buffer a side). */
    String tcp = "nio";
    /**
     * The largest share of the machine's CPU time the host may steal during a measured run before
     * it is run again (at most {@link #STEAL_RERUNS} times; {@link StealGuard}), 0..1; from
     * {@code --max-steal PERCENT}, default 5%, 100 to keep every run.
     */
    double maxSteal = 0.05;
    /** How many times at most a measured run is run again after it was set aside for its steal. */
    static final int STEAL_RERUNS = 2;

    static Options parse(String[] args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            if (value == null) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--sizes" -> o.sizes = Arrays.stream(value.split(",")).mapToInt(s -> (int) size(s)).toArray();
                case "--bytes" -> o.bytes = size(value);
                case "--depth" -> o.depth = Integer.parseInt(value);
                case "--mtu" -> o.mtu = (int) size(value);
                case "--rounds" -> o.rounds = Integer.parseInt(value);
                case "--warmup" -> o.warmupSeconds = CompareOptions.seconds("--warmup", value);
                case "--buffers" -> {
                    o.buffers = Integer.parseInt(value);
                    if (o.buffers < 1) {
                        throw new IllegalArgumentException("--buffers must be at least 1, was " + value);
                    }
                }
                case "--host" -> o.host = value;
                case "--peer-host" -> o.peerHost = value;
                case "--peer-netns" -> o.peerNetns = value;
                case "--only" -> {
                    if (!value.equals("both") && !value.equals("slime4j") && !value.equals("tcp")) {
                        throw new IllegalArgumentException("--only must be both, slime4j or tcp, was " + value);
                    }
                    o.only = value;
                }
                case "--first" -> {
                    if (!value.equals("slime4j") && !value.equals("tcp")) {
                        throw new IllegalArgumentException("--first must be slime4j or tcp, was " + value);
                    }
                    o.first = value;
                }
                case "--tcp" -> o.tcp = tcpBaseline(value);
                case "--max-steal" -> o.maxSteal = CompareOptions.decimal("--max-steal", value, 0, 100, "a percentage 0..100") / 100;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
            i++;
        }
        if (o.tcp.equals("iperf3") && o.buffers != 1) {
            throw new IllegalArgumentException("--tcp iperf3 streams from one buffer a side; --buffers must be 1, was " + o.buffers);
        }
        if (o.tcp.equals("iperf3") && o.maxSize() > IPERF3_MAX_BLOCK) {
            throw new IllegalArgumentException("--tcp iperf3 writes blocks of at most 1 MiB (iperf3's -l limit); --sizes has "
                    + format(o.maxSize()));
        }
        return o;
    }

    /** iperf3's largest {@code -l} (its MAX_BLOCKSIZE). */
    static final int IPERF3_MAX_BLOCK = 1 << 20;

    /** The TCP baseline's name in the table. */
    String tcpName() {
        return tcpName(tcp);
    }

    /** The table's name of TCP baseline {@code tcp} ({@code nio} or {@code iperf3}). */
    static String tcpName(String tcp) {
        return tcp.equals("iperf3") ? "iperf3" : "NIO TCP";
    }

    /** {@code value} if it names a TCP baseline ({@code nio} or {@code iperf3}); else a one-line error. */
    static String tcpBaseline(String value) {
        if (!value.equals("nio") && !value.equals("iperf3")) {
            throw new IllegalArgumentException("--tcp must be nio or iperf3, was " + value);
        }
        return value;
    }

    /** The command prefix that runs the served side where it belongs. */
    java.util.List<String> peerPrefix() {
        return peerNetns == null ? java.util.List.of() : java.util.List.of("ip", "netns", "exec", peerNetns);
    }

    /** When a phase whose processes started at {@code startNanos} may begin measuring ({@link #warmupSeconds}). */
    long warmUntil(long startNanos) {
        return startNanos + (long) (warmupSeconds * 1e9);
    }

    /** Bytes of message buffers on each side: {@link #buffers} of the largest size. */
    long footprint() {
        return (long) maxSize() * buffers;
    }

    int maxSize() {
        return Arrays.stream(sizes).max().orElseThrow();
    }

    static long size(String text) {
        String t = text.trim().toUpperCase();
        long unit = t.endsWith("K") ? 1 << 10 : t.endsWith("M") ? 1 << 20 : t.endsWith("G") ? 1 << 30 : 1;
        return Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
    }

    /** A share 0..1 as a percentage with at most one decimal, without float noise: 0.07 is {@code "7"}, 0.125 {@code "12.5"}. */
    static String percent(double share) {
        return plain(Math.round(share * 1000) / 10.0);
    }

    /** {@code value} as written, without trailing zeros: 5, not 5.0; 2.5 as 2.5. */
    static String plain(double value) {
        return java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    static String format(long bytes) {
        return bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB"
                : bytes >= 1 << 10 && bytes % (1 << 10) == 0 ? (bytes >> 10) + " KiB" : bytes + " B";
    }
}
