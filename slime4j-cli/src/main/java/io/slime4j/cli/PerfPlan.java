package io.slime4j.cli;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * A validated {@code perf} run: the rows to measure and the settings both sides use.
 *
 * @param rows        the result rows, in order
 * @param qps         io queue pairs of each endpoint
 * @param selector    the queue pair selector name, or null for the endpoint's default
 * @param signalEvery signal one request in this many, or 0 for the endpoint's default
 * @param mtu         payload bytes per packet of both sides' queue pairs
 * @param wire        {@code udp}, {@code shm} or {@code inproc}
 * @param verify      check every byte where it landed
 * @param json        one JSON object per row instead of the table
 * @param timeout     bound of connecting, of each bootstrap message, and of a transfer without progress
 * @param jitWarmup   an untimed row run before the first one so that the JIT has compiled the data
 *                    path before anything is timed (null: none); not reported
 * @param busyPoll    both sides' progress threads spin instead of blocking when idle (lowest
 *                    latency, a core each); else they spin briefly, then block until work arrives
 */
record PerfPlan(List<Row> rows, int qps, String selector, int signalEvery, int mtu, String wire, boolean verify, boolean json,
                Duration timeout, Row jitWarmup, boolean busyPoll) {

    /** A plan without a JIT warm-up row, whose progress threads block when idle. */
    PerfPlan(List<Row> rows, int qps, String selector, int signalEvery, int mtu, String wire, boolean verify, boolean json,
             Duration timeout) {
        this(rows, qps, selector, signalEvery, mtu, wire, verify, json, timeout, null, false);
    }

    /** Bytes a JIT warm-up row moves at most; its operations are also capped at {@link #JIT_WARMUP_OPS}. */
    static final long JIT_WARMUP_BYTES = 1L << 30;
    /**
     * Operations of a JIT warm-up row at most. On two cores that the data path's threads keep busy,
     * the JIT's C2 compiler keeps compiling the path for several seconds: a 4 KiB write row timed
     * after 20,000 warm-up writes measured 216-305 MB/s, after 300,000 660-825 MB/s, after 1,000,000
     * no more (docs/PERFORMANCE.md).
     */
    static final int JIT_WARMUP_OPS = 300_000;
    /** Timed operations of a bandwidth row by default at most (and 256 MiB worth): about 0.1 s of small writes. */
    static final int BW_ITERS_MAX = 20_000;

    /**
     * The JIT warm-up for {@code first}: the same operation, size and depth, untimed, with enough
     * operations that the data path is compiled: at most {@link #JIT_WARMUP_BYTES} and
     * {@link #JIT_WARMUP_OPS}, at least one.
     */
    static Row jitWarmupFor(Row first) {
        int n = (int) Math.clamp(JIT_WARMUP_BYTES / Math.max(1, first.bytes()), 1, JIT_WARMUP_OPS);
        return new Row(first.op(), first.mode(), first.bytes(), n, 0, first.depth());
    }

    /** Operations {@code perf} measures. */
    enum Op {
        WRITE("write", "RDMA_Write"), READ("read", "RDMA_Read"), WRITE_IMM("write-imm", "RDMA_Write_Imm"),
        SEND("send", "Send");

        final String cli;
        final String title;

        Op(String cli, String title) {
            this.cli = cli;
            this.title = title;
        }

        static Op parse(String text) {
            for (Op op : values()) {
                if (op.cli.equals(text)) {
                    return op;
                }
            }
            throw new IllegalArgumentException("--op must be write, read, write-imm or send, was '" + text + "'");
        }
    }

    /** Bandwidth (many outstanding) or latency (one at a time). */
    enum Mode {
        BW, LAT;

        String cli() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One result row.
     *
     * @param op     the operation
     * @param mode   bandwidth or latency
     * @param bytes  bytes per operation
     * @param iters  timed operations
     * @param warmup untimed operations before them
     * @param depth  operations outstanding at most
     */
    record Row(Op op, Mode mode, long bytes, int iters, int warmup, int depth) {
        /** Operations the peer sees: warm-up and timed. */
        long count() {
            return (long) warmup + iters;
        }

        /** Distinct buffer slots used: up to {@code depth}, within {@link #REGION_CAP} (at least one). */
        int slots() {
            return (int) Math.max(1, Math.min(depth, REGION_CAP / bytes));
        }

        /** Bytes of the regions the row touches. */
        long regionBytes() {
            return slots() * bytes;
        }

        /** Bytes the row writes and the receiver checks: every slot that was used. */
        long checkedBytes() {
            return Math.min(count(), slots()) * bytes;
        }

        /** A short name: {@code write 4 KiB}. */
        String label() {
            return op.cli + " " + Sizes.format(bytes);
        }
    }

    /** Regions hold up to this many bytes of slots (a single operation may be larger). */
    static final long REGION_CAP = 64L << 20;

    /** Bytes each side registers: the largest row's. */
    long regionBytes() {
        return rows.stream().mapToLong(Row::regionBytes).max().orElse(1);
    }
}
