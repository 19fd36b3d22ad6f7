package io.slime4j.endpoint;

import io.slime4j.soft.SoftConfig;
import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.inproc.FaultConfig;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * The ABA stress of seed 001: many small operations from several threads — one-sided reads, writes
 * and writes-with-imm of random sizes split into random batches, pair-ordered send/recv, and an
 * immRecv consumer — with random waits and random {@code cancelAll()}s on both endpoints from a
 * chaos thread. Tiny pools force constant slot reuse. Each op is checked against its own expected
 * bytes, byte count and status the moment its future completes; any op that observed another op's
 * completion shows as wrong bytes, a wrong count or a wrong status. A lane's memory is reused only
 * after its previous op settled, so a cancelled op still on the wire cannot clobber a later one.
 */
final class StressRun {
    static final int IO_THREADS = 3;
    static final int LANES = 16;
    static final int LANE = 16 * 1024;
    static final int MSG_LANES = 8;
    static final int MSG_LANE = 8 * 1024;
    static final long MSG_BASE = (long) IO_THREADS * LANES * LANE;
    static final long REGION = MSG_BASE + (long) MSG_LANES * MSG_LANE;
    private final Duration wait;
    private final EndpointHooks hooks;

    final LongAdder succeeded = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder peerCancelled = new LongAdder();
    final LongAdder ops = new LongAdder();
    final LongAdder cancelAlls = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Set<Integer> issuedImms = ConcurrentHashMap.newKeySet();
    private final Set<Integer> receivedImms = ConcurrentHashMap.newKeySet();
    private volatile boolean done;
    private EndpointPair p;

    /** A run of the real endpoint, waiting up to a minute for any one op. */
    StressRun() {
        this(WatchedHooks.KEEPING_ALL, Duration.ofSeconds(60));
    }

    /** A run with {@code hooks} (tests break an invariant with them), waiting up to {@code wait} for any op. */
    StressRun(EndpointHooks hooks, Duration wait) {
        this.hooks = hooks;
        this.wait = wait;
    }

    EndpointConfig config(boolean faults) {
        EndpointConfig.Builder b = EndpointConfig.builder().qps(4).ioSlots(24).requestsPerSlot(4).maxRequestBytes(2048)
                .messageSlots(8).immWindow(16).slotTimeout(wait);
        if (faults) {
            b.qpTemplate(EndpointPair.lossyQp());
        }
        return b.build();
    }

    /**
     * Runs {@code ioOpsPerThread} one-sided ops on each io thread and {@code messages} send/recv
     * pairs, on devices whose settings {@code device} adjusts.
     */
    void run(int ioOpsPerThread, int messages, FaultConfig faults, long seed, UnaryOperator<SoftConfig.Builder> device)
            throws Exception {
        try (EndpointPair pair = EndpointPair.open(config(faults.injectsFaults()), faults, REGION, hooks, device)) {
            p = pair;
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < IO_THREADS; t++) {
                int id = t;
                workers.add(start("io-" + t, () -> ioThread(id, ioOpsPerThread, new SplittableRandom(seed + id))));
            }
            workers.add(start("sender", () -> sender(messages, seed)));
            workers.add(start("receiver", () -> receiver(messages, seed)));
            Thread imm = start("imm", this::immConsumer);
            Thread chaos = start("chaos", () -> chaos(new SplittableRandom(seed ^ 0x5EED)));
            for (Thread w : workers) {
                w.join();
            }
            done = true;
            chaos.join();
            p.b.cancelAll(); // releases the consumer's last immRecv
            imm.join();
            if (failure.get() != null) {
                throw new AssertionError("stress failed", failure.get());
            }
            p.awaitIdle(wait);
            if (p.a.inFlight() + p.b.inFlight() != 0) {
                throw new AssertionError("ops left in the in-flight registries: " + p.a.inFlight() + " + " + p.b.inFlight());
            }
            p.assertClean();
        }
    }

    private Thread start(String name, Checks.Body body) {
        return Thread.ofPlatform().name("stress-" + name).start(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
                done = true;
            }
        });
    }

    private record Expect(OpKind kind, long seed, long offset, int size, TransferFuture future) {}

    private void ioThread(int t, int n, SplittableRandom rnd) throws Exception {
        Expect[] lanes = new Expect[LANES];
        for (int i = 0; i < n && failure.get() == null; i++) {
            int k = i % LANES;
            if (lanes[k] != null) {
                finish(lanes[k]);
            }
            long off = (long) (t * LANES + k) * LANE;
            int size = size(rnd);
            long seed = ((long) t << 40) | i;
            double r = rnd.nextDouble();
            OpKind kind = r < 0.55 ? OpKind.WRITE : r < 0.85 ? OpKind.READ : OpKind.WRITE_WITH_IMM;
            List<Assignment> batch = split(off, size, rnd);
            TransferFuture f;
            if (kind == OpKind.READ) {
                Patterns.fill(p.kvB, off, size, seed);
                f = p.a.read(batch);
            } else {
                Patterns.fill(p.kvA, off, size, seed);
                if (kind == OpKind.WRITE) {
                    f = p.a.write(batch);
                } else {
                    int imm = (t << 28) | (i & 0x0FFF_FFFF);
                    issuedImms.add(imm);
                    f = p.a.writeWithImm(batch, imm);
                }
            }
            ops.increment();
            lanes[k] = new Expect(kind, seed, off, size, f);
            randomWait(rnd, lanes);
        }
        for (Expect e : lanes) {
            if (e != null) {
                finish(e);
            }
        }
    }

    private static int size(SplittableRandom rnd) {
        double r = rnd.nextDouble();
        return r < 0.70 ? 1 + rnd.nextInt(256) : r < 0.95 ? 257 + rnd.nextInt(3840) : 4097 + rnd.nextInt(LANE - 4096);
    }

    private static List<Assignment> split(long off, int size, SplittableRandom rnd) {
        int parts = size < 3 ? 1 : 1 + rnd.nextInt(3);
        List<Assignment> batch = new ArrayList<>(parts);
        int start = 0;
        for (int j = 0; j < parts; j++) {
            int end = j == parts - 1 ? size : start + rnd.nextInt(size - start + 1);
            batch.add(new Assignment("kv", off + start, "kv", off + start, end - start));
            start = end;
        }
        return batch;
    }

    private void randomWait(SplittableRandom rnd, Expect[] lanes) throws Exception {
        double r = rnd.nextDouble();
        if (r < 0.15) {
            int k = rnd.nextInt(LANES);
            if (lanes[k] != null) {
                finish(lanes[k]); // await some op out of order
                lanes[k] = null;
            }
        } else if (r < 0.17) {
            Thread.sleep(rnd.nextInt(2));
        } else if (r < 0.22) {
            LockSupport.parkNanos(rnd.nextInt(200_000));
        }
    }

    /** Checks one op against its own expectations, then waits until its memory is free again. */
    private void finish(Expect e) throws Exception {
        TransferFuture f = e.future();
        TransferStatus status = await(f);
        switch (status) {
            case SUCCESS -> {
                if (f.byteCount() != e.size()) {
                    throw new AssertionError(f + " reported " + f.byteCount() + " bytes, expected " + e.size());
                }
                MemorySegment target = e.kind() == OpKind.READ ? p.kvA : p.kvB;
                long bad = Patterns.mismatch(target, e.offset(), e.size(), e.seed());
                if (bad >= 0) {
                    throw new AssertionError(f + " completed but byte " + bad + " of " + e.size()
                            + " is not its own: it observed another op's completion");
                }
                succeeded.increment();
            }
            case CANCELLED -> cancelled.increment();
            default -> throw new AssertionError(f + " " + f.wcStatus() + ": " + f.failureMessage());
        }
        Checks.eventually(f::isSettled, wait, f + " settling");
    }

    private TransferStatus await(TransferFuture f) throws InterruptedException {
        try {
            return f.await(wait);
        } catch (TimeoutException ex) {
            throw new AssertionError(f + " did not complete within " + wait);
        }
    }

    private static int messageSize(long seed, int i) {
        return 1 + new SplittableRandom(seed * 31 + i).nextInt(MSG_LANE);
    }

    private void sender(int n, long seed) throws Exception {
        TransferFuture[] lanes = new TransferFuture[MSG_LANES];
        SplittableRandom rnd = new SplittableRandom(seed + 100);
        for (int i = 0; i < n && failure.get() == null; i++) {
            int k = i % MSG_LANES;
            if (lanes[k] != null) {
                finishSend(lanes[k]);
            }
            int size = messageSize(seed, i);
            Patterns.fill(p.kvA, MSG_BASE + (long) k * MSG_LANE, size, -1L - i);
            lanes[k] = p.a.send("kv", MSG_BASE + (long) k * MSG_LANE, size);
            ops.increment();
            if (rnd.nextInt(50) == 0) {
                LockSupport.parkNanos(rnd.nextInt(300_000));
            }
        }
        for (TransferFuture f : lanes) {
            if (f != null) {
                finishSend(f);
            }
        }
    }

    private void finishSend(TransferFuture f) throws Exception {
        switch (await(f)) {
            case SUCCESS -> succeeded.increment();
            case CANCELLED -> cancelled.increment();
            case FAILED -> {
                if (f.wcStatus() != WcStatus.REM_ABORT_ERR) { // the matching recv was cancelled: allowed
                    throw new AssertionError(f + " " + f.wcStatus() + ": " + f.failureMessage());
                }
                peerCancelled.increment();
            }
            default -> throw new AssertionError(f + " pending after await");
        }
        Checks.eventually(f::isSettled, wait, f + " settling");
    }

    private void receiver(int n, long seed) throws Exception {
        TransferFuture[] lanes = new TransferFuture[MSG_LANES];
        int[] index = new int[MSG_LANES];
        for (int i = 0; i < n + MSG_LANES && failure.get() == null; i++) {
            int k = i % MSG_LANES;
            if (lanes[k] != null) {
                finishRecv(lanes[k], index[k], seed, MSG_BASE + (long) k * MSG_LANE);
            }
            if (i < n) {
                index[k] = i;
                lanes[k] = p.b.recv("kv", MSG_BASE + (long) k * MSG_LANE, MSG_LANE);
                ops.increment();
            }
        }
    }

    private void finishRecv(TransferFuture f, int i, long seed, long offset) throws Exception {
        switch (await(f)) {
            case SUCCESS -> {
                int size = messageSize(seed, i);
                if (f.byteCount() != size) {
                    throw new AssertionError(f + " (message " + i + ") reported " + f.byteCount() + " bytes, expected " + size);
                }
                long bad = Patterns.mismatch(p.kvB, offset, size, -1L - i);
                if (bad >= 0) {
                    throw new AssertionError(f + " (message " + i + ") completed but byte " + bad + " is not its own");
                }
                succeeded.increment();
            }
            case CANCELLED -> cancelled.increment();
            case FAILED -> {
                if (f.wcStatus() != WcStatus.REM_ABORT_ERR) { // the matching send was cancelled: allowed
                    throw new AssertionError(f + " " + f.wcStatus() + ": " + f.failureMessage());
                }
                peerCancelled.increment();
            }
            default -> throw new AssertionError(f + " pending after await");
        }
        Checks.eventually(f::isSettled, wait, f + " settling");
    }

    private void immConsumer() throws Exception {
        while (!done || p.b.queuedImmediates() > 0) {
            TransferFuture f = p.b.immRecv();
            ops.increment();
            TransferStatus s;
            try {
                s = f.await(wait);
            } catch (TimeoutException e) {
                throw new AssertionError(f + " waited " + wait + " for an immediate");
            }
            if (s == TransferStatus.SUCCESS) {
                int v = f.immediate();
                if (!issuedImms.contains(v)) {
                    throw new AssertionError("immRecv returned " + v + ", which no write-with-imm carried");
                }
                if (!receivedImms.add(v)) {
                    throw new AssertionError("immRecv returned " + v + " twice");
                }
                succeeded.increment();
            } else if (s == TransferStatus.CANCELLED) {
                cancelled.increment();
            } else {
                throw new AssertionError(f + " " + f.wcStatus() + ": " + f.failureMessage());
            }
        }
    }

    private void chaos(SplittableRandom rnd) throws InterruptedException {
        while (!done) {
            Thread.sleep(5 + rnd.nextInt(100));
            (rnd.nextBoolean() ? p.a : p.b).cancelAll();
            cancelAlls.increment();
        }
    }

    @Override
    public String toString() {
        return ops.sum() + " ops: " + succeeded.sum() + " succeeded, " + cancelled.sum() + " cancelled, "
                + peerCancelled.sum() + " sends or recvs failed by the other side's cancel; " + cancelAlls.sum() + " cancelAll() calls";
    }
}
