package io.slime4j.bench;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One-sided write throughput between two processes on loopback: slime4j RDMA_WRITE over the UDP
 * wire, then a plain NIO TCP stream of the same messages, in one run; prints MB/s and the ratio.
 *
 * <pre>
 * java -cp ... io.slime4j.bench.WriteBench [--sizes 64K,1M] [--bytes 256M] [--depth 16] [--mtu 16K] [--rounds 3]
 * </pre>
 */
public final class WriteBench {
    private WriteBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--serve")) {
            Handshake h = new Handshake(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
                    System.out);
            if (args[1].equals("tcp")) {
                TcpStream.serve(h);
            } else {
                serveSlime(h, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            }
            return;
        }
        Options o = Options.parse(args);
        System.out.printf("WriteBench: %s per size, %d outstanding, mtu %d, best of %d rounds; two processes on loopback;"
                + " udp backend %s%n", Options.format(o.bytes), o.depth, o.mtu, o.rounds,
                UdpConfig.fromEnvironment().backend().resolve());
        List<String> rows = new ArrayList<>();
        double[] slime = slimeWrites(o);
        double[] tcp = tcpWrites(o);
        System.out.printf("%-10s %16s %16s %8s%n", "size", "slime4j MB/s", "NIO TCP MB/s", "ratio");
        for (int i = 0; i < o.sizes.length; i++) {
            String row = String.format("%-10s %16.1f %16.1f %8.2f", Options.format(o.sizes[i]), slime[i], tcp[i],
                    slime[i] / tcp[i]);
            rows.add(row);
            System.out.println(row);
        }
    }

    private static double[] tcpWrites(Options o) throws Exception {
        double[] best = new double[o.sizes.length];
        try (ChildProcess child = new ChildProcess(WriteBench.class, "--serve", "tcp")) {
            int port = Integer.parseInt(child.handshake.expect("PORT"));
            try (TcpStream.Client client = new TcpStream.Client(port, o.maxSize())) {
                for (int i = 0; i < o.sizes.length; i++) {
                    int count = (int) (o.bytes / o.sizes[i]);
                    client.round(o.sizes[i], Math.max(1, count / 4)); // warm-up
                    for (int r = 0; r < o.rounds; r++) {
                        long nanos = client.round(o.sizes[i], count);
                        best[i] = Math.max(best[i], (double) o.sizes[i] * count / (nanos / 1e3));
                    }
                }
            }
        }
        return best;
    }

    private static double[] slimeWrites(Options o) throws Exception {
        double[] best = new double[o.sizes.length];
        QpConfig qpConfig = QpConfig.builder().mtu(o.mtu).sendQueueDepth(Math.max(64, o.depth * 2)).build();
        try (ChildProcess child = new ChildProcess(WriteBench.class, "--serve", "slime4j",
                     Integer.toString(o.maxSize() * o.depth), Integer.toString(o.mtu));
             UdpWire wire = new UdpWire();
             SoftDevice device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("bench").build());
             Arena arena = Arena.ofShared()) {
            QpInfo peer = parseQp(child.handshake.expect("QP"));
            String[] r = child.handshake.expect("REGION").split(" ");
            RemoteRegion remote = new RemoteRegion(Long.parseLong(r[0]), Long.parseLong(r[1]), Long.parseLong(r[2]));
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionQueue cq = device.createCompletionQueue(4096);
            QueuePair qp = device.createQueuePair(pd, qpConfig, cq, cq);
            child.handshake.send("QP " + format(qp.localInfo()));
            qp.connect(peer);
            child.handshake.expect("READY");
            MemoryRegion source = pd.register(arena.allocate((long) o.maxSize() * o.depth, 4096), AccessFlags.ALL);
            for (int i = 0; i < o.sizes.length; i++) {
                int count = (int) (o.bytes / o.sizes[i]);
                writes(qp, cq, source, remote, o.sizes[i], Math.max(1, count / 4), o.depth); // warm-up
                for (int k = 0; k < o.rounds; k++) {
                    long nanos = writes(qp, cq, source, remote, o.sizes[i], count, o.depth);
                    best[i] = Math.max(best[i], (double) o.sizes[i] * count / (nanos / 1e3));
                }
            }
            System.out.printf("slime4j transport: %d packets sent, %d retransmitted, %d timeouts, %d send drops "
                            + "(socket buffer full)%n", device.counters().get(Counter.PACKETS_SENT),
                    device.counters().get(Counter.RETRANSMITS), device.counters().get(Counter.TIMEOUTS),
                    device.counters().get(Counter.SEND_DROPS));
        }
        return best;
    }

    private static long writes(QueuePair qp, CompletionQueue cq, MemoryRegion source, RemoteRegion remote, int size,
                               int count, int depth) throws InterruptedException {
        WorkRequest wr = new WorkRequest();
        WorkCompletion[] wc = WorkCompletion.array(64);
        long start = System.nanoTime();
        int posted = 0;
        int done = 0;
        while (done < count) {
            while (posted < count && posted - done < depth) {
                long slot = (long) (posted % depth) * size;
                qp.postSend(wr.clear().wrId(posted).opcode(Opcode.RDMA_WRITE).sge(source, slot, size)
                        .remote(remote, slot));
                posted++;
            }
            int n = cq.await(wc, 30, TimeUnit.SECONDS);
            if (n == 0) {
                throw new IllegalStateException("no completion within 30 s");
            }
            for (int i = 0; i < n; i++) {
                if (!wc[i].isSuccess()) {
                    throw new IllegalStateException("write failed: " + wc[i]);
                }
            }
            done += n;
        }
        return System.nanoTime() - start;
    }

    private static void serveSlime(Handshake h, int regionBytes, int mtu) throws Exception {
        QpConfig qpConfig = QpConfig.builder().mtu(mtu).build();
        try (UdpWire wire = new UdpWire();
             SoftDevice device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("bench-peer").build());
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionQueue cq = device.createCompletionQueue(64);
            QueuePair qp = device.createQueuePair(pd, qpConfig, cq, cq);
            MemoryRegion target = pd.register(arena.allocate(regionBytes, 4096), AccessFlags.ALL);
            h.send("QP " + format(qp.localInfo()));
            h.send("REGION " + target.address() + " " + target.length() + " " + target.remoteKey());
            qp.connect(parseQp(h.expect("QP")));
            h.send("READY");
            h.expect("QUIT");
        }
    }

    static String format(QpInfo info) {
        return info.address() + " " + info.qpn() + " " + info.psn() + " " + info.token();
    }

    static QpInfo parseQp(String text) {
        String[] p = text.split(" ");
        return new QpInfo(p[0], Integer.parseInt(p[1]), Integer.parseInt(p[2]), Long.parseLong(p[3]));
    }
}
