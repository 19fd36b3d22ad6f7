package io.slime4j.bench;

import io.slime4j.shm.SharedMemory;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * The shm device measured at the verbs level, below the endpoint: two processes (this one and a
 * child JVM), one queue pair each, {@link SharedMemory} regions, completions taken by the posting
 * thread itself (spinning on {@code poll}, or {@code await} with {@code --poll park}); next to a
 * one-thread memcpy of the same sizes in the same run. It shows what the device can do without the
 * endpoint's completion path (its dispatcher thread, futures), for the figures of issue 16.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp ... io.slime4j.bench.ShmVerbsBench
 *     [--sizes 64K,1M,16M] [--bytes 256M] [--round-trips 20000] [--messages 200000] [--poll spin|park]
 *     [--idle-qps 0]
 * </pre>
 *
 * <p>Rows: 64 B write-with-immediate round trip (p50, p99; the peer answers each with one), 32 B
 * SEND rate (32 outstanding, counted as the sender's completions, each a message placed in a
 * posted receive), and one-sided RDMA WRITE and READ bandwidth (16 outstanding, each to its own
 * offset at every size, so 16 MiB rows cycle through 256 MiB per side where {@code Compare}'s use one
 * buffer; each row after at least half a second untimed). The "same working set" memcpy cycles
 * through the same 16 offsets. Set {@code SLIME4J_SHM_BUSY_POLL=true} for busy-polling devices (a poster
 * waiting in {@code await} then spins and drives the device itself; with {@code --poll spin} its {@code poll}
 * runs a duty cycle whenever the queue is empty). {@code --idle-qps N} connects N more queue pairs
 * between the two devices first, which then stay idle: what a device serving many peers (an engine
 * on a host shared with many others) costs the one pair that works.
 */
public final class ShmVerbsBench {
    private static final int WINDOW = 16;
    private static final int MESSAGE_WINDOW = 32;
    private static final int DEPTH = 256;
    private static final long TIMEOUT_NANOS = 60_000_000_000L;
    /** The least untimed time before each one-sided row. */
    private static final long WARMUP_NANOS = 500_000_000L;

    private final Arena arena = Arena.ofShared();
    private final ShmDevice device;
    private final MemoryRegion local;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final boolean spin;
    private final WorkCompletion[] wcs = WorkCompletion.array(64);
    private final WorkRequest wr = new WorkRequest();
    private final ProtectionDomain pd;
    private final java.util.List<QueuePair> idle = new java.util.ArrayList<>();
    private long remoteAddress;
    private long remoteKey;

    private ShmVerbsBench(String name, long regionBytes, boolean spin) {
        this.spin = spin;
        device = ShmDevice.open(ShmConfig.fromEnvironment().name(name).build());
        pd = device.allocateProtectionDomain();
        local = pd.register(SharedMemory.allocate(regionBytes, arena), AccessFlags.ALL);
        sendCq = device.createCompletionQueue(4 * DEPTH);
        recvCq = device.createCompletionQueue(4 * DEPTH);
        qp = device.createQueuePair(pd, QpConfig.builder().sendQueueDepth(DEPTH).recvQueueDepth(DEPTH).maxSge(1).build(),
                sendCq, recvCq);
    }

    private String info() {
        QpInfo i = qp.localInfo();
        return i.address() + " " + i.qpn() + " " + i.psn() + " " + i.token() + " " + local.address() + " "
                + local.remoteKey();
    }

    /** Creates {@code n} idle queue pairs; their infos, space-separated, as {@link #connectIdle} takes them. */
    private String idleInfos(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            QueuePair q = device.createQueuePair(pd, QpConfig.builder().sendQueueDepth(4).recvQueueDepth(4).maxSge(1)
                    .build(), sendCq, recvCq);
            idle.add(q);
            QpInfo info = q.localInfo();
            sb.append(' ').append(info.address()).append(' ').append(info.qpn()).append(' ').append(info.psn())
                    .append(' ').append(info.token());
        }
        return sb.toString().strip();
    }

    /** Connects the idle queue pairs, in order, to the peer's ({@link #idleInfos}). */
    private void connectIdle(String infos) {
        String[] f = infos.isEmpty() ? new String[0] : infos.split(" ");
        if (f.length != 4 * idle.size()) {
            throw new IllegalStateException("the peer has " + f.length / 4 + " idle queue pairs, this side " + idle.size());
        }
        for (int i = 0; i < idle.size(); i++) {
            idle.get(i).connect(new QpInfo(f[4 * i], Integer.parseInt(f[4 * i + 1]), Integer.parseInt(f[4 * i + 2]),
                    Long.parseLong(f[4 * i + 3])));
        }
    }

    private void connect(String peer) {
        String[] f = peer.split(" ");
        qp.connect(new QpInfo(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3])));
        remoteAddress = Long.parseLong(f[4]);
        remoteKey = Long.parseLong(f[5]);
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(Long.parseLong(args[1]), args[2].equals("spin"));
            return;
        }
        String sizes = "64K,1M,16M";
        long bytes = 256L << 20;
        int roundTrips = 20_000;
        int messages = 200_000;
        boolean spin = true;
        int idleQps = 0;
        for (int i = 0; i < args.length; i += 2) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--sizes" -> sizes = v;
                case "--bytes" -> bytes = Options.size(v);
                case "--round-trips" -> roundTrips = Integer.parseInt(v);
                case "--messages" -> messages = Integer.parseInt(v);
                case "--idle-qps" -> {
                    idleQps = Integer.parseInt(v);
                    if (idleQps < 0 || idleQps > 4000) {
                        throw new IllegalArgumentException("--idle-qps must be 0..4000, was " + v);
                    }
                }
                case "--poll" -> spin = switch (v) {
                    case "spin" -> true;
                    case "park" -> false;
                    default -> throw new IllegalArgumentException("--poll must be spin or park, was " + v);
                };
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int[] sizeList = Arrays.stream(sizes.split(",")).mapToInt(s -> (int) Options.size(s)).toArray();
        long region = Math.max(1L << 20, (long) WINDOW * Arrays.stream(sizeList).max().orElse(0));
        ShmVerbsBench a = new ShmVerbsBench("verbs-a", region, spin);
        try (ChildProcess child = new ChildProcess(ShmVerbsBench.class, "child", Long.toString(region), spin ? "spin" : "park")) {
            a.connect(child.handshake.expect("INFO"));
            child.handshake.send("PEER " + a.info());
            child.handshake.expect("READY");
            child.handshake.send("IDLE " + idleQps);
            String idleInfos = a.idleInfos(idleQps);
            a.connectIdle(child.handshake.expect("IDLE").strip());
            child.handshake.send("IDLEPEER " + idleInfos);
            child.handshake.expect("READY");
            System.out.printf(Locale.ROOT, "shm verbs level, poll %s, busy-poll agents %s, %d idle queue pairs%n",
                    spin ? "spin" : "park", a.device.config().busyPoll(), idleQps);
            child.handshake.send("RTT " + (roundTrips + roundTrips / 10));
            long[] rtt = a.roundTrips(roundTrips, roundTrips / 10);
            child.handshake.expect("DONE");
            System.out.printf(Locale.ROOT, "64 B write-imm round trip: p50 %.1f us, p99 %.1f us%n",
                    Percentiles.of(rtt, 0.50) / 1e3, Percentiles.of(rtt, 0.99) / 1e3);
            child.handshake.send("RECV " + messages);
            double rate = a.sends(32, messages);
            child.handshake.expect("DONE");
            System.out.printf(Locale.ROOT, "32 B send rate: %.0f k msg/s%n", rate / 1e3);
            for (int size : sizeList) {
                long n = Math.max(WINDOW, bytes / size);
                double w = a.oneSided(Opcode.RDMA_WRITE, size, n);
                double r = a.oneSided(Opcode.RDMA_READ, size, n);
                double m = Memcpy.bandwidth(size, bytes);
                double mw = Memcpy.bandwidth(size, bytes, WINDOW); // the rows' own working set: 16 offsets at every size
                System.out.printf(Locale.ROOT, "%s: write %.0f MB/s (%.2fx memcpy, %.2fx same working set), "
                                + "read %.0f MB/s (%.2fx, %.2fx); memcpy %.0f, same working set %.0f MB/s%n",
                        Options.format(size), w, w / m, w / mw, r, r / m, r / mw, m, mw);
            }
        } finally {
            a.close();
        }
    }

    private static void child(long region, boolean spin) throws Exception {
        Handshake h = new Handshake(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
                new PrintStream(System.out, true, StandardCharsets.UTF_8));
        ShmVerbsBench b = new ShmVerbsBench("verbs-b", region, spin);
        try {
            h.send("INFO " + b.info());
            b.connect(h.expect("PEER"));
            h.send("READY");
            int idleQps = Integer.parseInt(h.expect("IDLE").strip());
            h.send("IDLE " + b.idleInfos(idleQps));
            b.connectIdle(h.expect("IDLEPEER").strip());
            h.send("READY");
            b.answerRoundTrips(Integer.parseInt(h.expect("RTT")));
            h.send("DONE");
            b.receive(Integer.parseInt(h.expect("RECV")), 32);
            h.send("DONE");
            h.expect("QUIT");
        } finally {
            b.close();
        }
    }

    /** {@code timed} ping-pongs after {@code warm} untimed ones; the nanoseconds of each timed one. */
    private long[] roundTrips(int timed, int warm) {
        long[] samples = new long[timed];
        postRecv(0);
        for (int i = 0; i < warm + timed; i++) {
            long start = System.nanoTime();
            post(Opcode.RDMA_WRITE_WITH_IMM, 0, 64, i);
            takeOne(recvCq);
            long t = System.nanoTime() - start;
            if (i + 1 < warm + timed) {
                postRecv(0);
            }
            drain(sendCq);
            if (i >= warm) {
                samples[i - warm] = t;
            }
        }
        Arrays.sort(samples);
        return samples;
    }

    private void answerRoundTrips(int n) {
        postRecv(0);
        for (int i = 0; i < n; i++) {
            takeOne(recvCq);
            if (i + 1 < n) {
                postRecv(0);
            }
            post(Opcode.RDMA_WRITE_WITH_IMM, 0, 64, i);
            drain(sendCq);
        }
    }

    /** Sends {@code n} messages of {@code size} bytes, {@link #MESSAGE_WINDOW} outstanding; messages per second. */
    private double sends(int size, int n) {
        int warm = n / 10;
        long start = 0;
        long startDone = 0;
        long done = 0;
        long posted = 0;
        while (done < n) {
            while (posted < n && posted - done < MESSAGE_WINDOW) {
                post(Opcode.SEND, (posted % MESSAGE_WINDOW) * size, size, posted);
                posted++;
            }
            done += take(sendCq);
            if (start == 0 && done >= warm) {
                start = System.nanoTime();
                startDone = done;
            }
        }
        return (n - startDone) / ((System.nanoTime() - start) / 1e9);
    }

    private void receive(int n, int size) {
        int posted = 0;
        int done = 0;
        while (posted < Math.min(n, DEPTH)) {
            postRecv((long) (posted % MESSAGE_WINDOW) * size);
            posted++;
        }
        while (done < n) {
            int k = take(recvCq);
            done += k;
            for (int i = 0; i < k && posted < n; i++) {
                postRecv((long) (posted % MESSAGE_WINDOW) * size);
                posted++;
            }
        }
    }

    /**
     * {@code n} one-sided operations of {@code size} bytes, 16 outstanding, after at least n/10 untimed
     * ones and at least {@link #WARMUP_NANOS} of them (the first row of a short run is otherwise timed
     * while the JIT still compiles the posting path); MB/s.
     */
    private double oneSided(Opcode op, int size, long n) {
        long warmUntil = System.nanoTime() + WARMUP_NANOS;
        do {
            run(op, size, Math.max(WINDOW, n / 10));
        } while (System.nanoTime() - warmUntil < 0);
        long start = System.nanoTime();
        run(op, size, n);
        return (double) size * n / ((System.nanoTime() - start) / 1e3);
    }

    private void run(Opcode op, int size, long n) {
        long posted = 0;
        long done = 0;
        while (done < n) {
            while (posted < n && posted - done < WINDOW) {
                long offset = (posted % WINDOW) * size;
                wr.clear().wrId(posted).opcode(op).remote(remoteAddress + offset, remoteKey).sge(local, offset, size);
                qp.postSend(wr);
                posted++;
            }
            done += take(sendCq);
        }
    }

    private void post(Opcode op, long offset, int size, long id) {
        wr.clear().wrId(id).opcode(op).immediate((int) id).sge(local, offset, size);
        if (op != Opcode.SEND) {
            wr.remote(remoteAddress + offset, remoteKey);
        }
        qp.postSend(wr);
    }

    private void postRecv(long offset) {
        wr.clear().sge(local, offset, 64);
        qp.postRecv(wr);
    }

    private void takeOne(CompletionQueue cq) {
        while (take(cq) == 0) {
            Thread.onSpinWait();
        }
    }

    private void drain(CompletionQueue cq) {
        while (true) {
            int n = cq.poll(wcs);
            check(n);
            if (n == 0) {
                return;
            }
        }
    }

    /** Takes at least one completion (spinning or parked, bounded); how many. */
    private int take(CompletionQueue cq) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int turns = 0;
        while (true) {
            int n;
            try {
                n = spin ? cq.poll(wcs) : cq.await(wcs, 10, java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            if (n > 0) {
                check(n);
                return n;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion within 60 s on " + qp);
            }
            if (++turns % 64 == 0) {
                Thread.yield(); // two spinning pollers and two agents share the cores
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private void check(int n) {
        for (int i = 0; i < n; i++) {
            if (!wcs[i].isSuccess()) {
                throw new IllegalStateException("completion failed: " + wcs[i]);
            }
        }
    }

    private void close() {
        qp.close();
        device.close();
        arena.close();
    }
}
