package io.slime4j.endpoint;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.wire.udp.UdpWire;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The passive side of {@link CrossProcessEndpointTest}: an {@link RdmaEndpoint} on the UDP wire in
 * a child JVM, driven by lines on stdin, answering on stdout. Regions: {@code dst} (written and
 * checked), {@code src} (filled with pattern 2, read by the peer), {@code inbox} (receives).
 * Commands: {@code PEER json}, {@code RECV off len}, {@code IMM}, {@code SEND off len} (from
 * {@code src}), {@code WRITE local remote off len}, {@code CANCEL} (cancelAll), {@code NOTICES} (cancel notices read from the peer), {@code CHECK region off len seed}, {@code STATE} (its lanes, {@link LaneDump}), {@code QUIT}. It exits on QUIT, end of input, or after a watchdog of 180 s.
 * An op command answers {@code POSTED} first and its outcome ({@code RECVD}, {@code IMMED},
 * {@code SENT}, {@code WROTE}) after it, even when the op completed before the call returned.
 */
public final class EndpointPeerMain {
    static final long REGION = 64L << 20;

    private EndpointPeerMain() {}

    public static void main(String[] args) throws Exception {
        int qps = Integer.parseInt(args[0]);
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(180_000);
            } catch (InterruptedException e) {
                return;
            }
            System.exit(3);
        });
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int rails = args.length > 1 ? Integer.parseInt(args[1]) : 1; // routing (issue 5): rails and selector
        String selector = args.length > 2 ? args[2] : "default";
        try (UdpWire wire = new UdpWire();
             SoftDevice device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("peer").build());
             Arena arena = Arena.ofShared();
             RdmaEndpoint ep = RdmaEndpoint.open(moreRails(wire, device, rails),
                     EndpointConfig.builder().qps(qps).selector(selector).build())) {
            MemorySegment dst = arena.allocate(REGION, 4096);
            MemorySegment inbox = arena.allocate(REGION, 4096);
            ep.register("dst", dst);
            MemorySegment src = arena.allocate(REGION, 4096);
            fill(src, 0, REGION, 2);
            ep.register("src", src);
            ep.register("inbox", inbox);
            System.out.println("INFO " + ep.info().toJson());
            System.out.flush();
            String line;
            while ((line = in.readLine()) != null) {
                String[] p = line.split(" ", 2);
                switch (p[0]) {
                    case "PEER" -> {
                        ep.connect(EndpointInfo.fromJson(p[1]));
                        reply("OK");
                    }
                    case "RECV" -> {
                        String[] a = p[1].split(" ");
                        TransferFuture f = ep.recv("inbox", Long.parseLong(a[0]), Long.parseLong(a[1]));
                        reply("POSTED"); // before the outcome, which may be known at once
                        f.toCompletableFuture().whenComplete((done, e) -> reply("RECVD " + f.status() + " " + f.byteCount()));
                    }
                    case "IMM" -> {
                        TransferFuture f = ep.immRecv();
                        reply("POSTED");
                        f.toCompletableFuture().thenAccept(done -> reply("IMMED " + done.status() + " " + done.immediate()));
                    }
                    case "CHECK" -> {
                        String[] a = p[1].split(" ");
                        long mismatch = check(a[0].equals("dst") ? dst : inbox,
                                Long.parseLong(a[1]), Long.parseLong(a[2]), Long.parseLong(a[3]));
                        reply(mismatch < 0 ? "OK" : "MISMATCH " + mismatch);
                    }
                    case "SEND" -> {
                        String[] a = p[1].split(" ");
                        TransferFuture f = ep.send("src", Long.parseLong(a[0]), Long.parseLong(a[1]));
                        reply("POSTED"); // a send matched with a cancelled recv may have failed already
                        f.toCompletableFuture().whenComplete((done, e) -> reply("SENT " + f.status() + " " + f.wcStatus()));
                    }
                    case "WRITE" -> {
                        String[] a = p[1].split(" ");
                        TransferFuture f = ep.write(Assignment.local(a[0], Long.parseLong(a[2])).remote(a[1], Long.parseLong(a[2])).length(Long.parseLong(a[3])));
                        reply("POSTED");
                        f.toCompletableFuture().whenComplete((done, e) -> reply("WROTE " + f.status() + " " + f.wcStatus()));
                    }
                    case "CANCEL" -> reply("CANCELLED " + ep.cancelAll());
                    case "STATE" -> reply("STATE " + LaneDump.of(ep));
                    case "NOTICES" -> reply("NOTICES " + ep.stats().cancelNoticesReceived.sum());
                    case "QUIT" -> {
                        return;
                    }
                    default -> reply("ERROR unknown command " + p[0]);
                }
            }
        }
    }

    /** {@code device} and {@code rails - 1} more UDP devices (closed with the JVM; the peer is a child process). */
    static java.util.List<io.slime4j.verbs.VerbsDevice> moreRails(UdpWire wire, SoftDevice device, int rails) {
        java.util.List<io.slime4j.verbs.VerbsDevice> out = new java.util.ArrayList<>(java.util.List.of(device));
        for (int r = 1; r < rails; r++) {
            out.add(SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("peer-rail" + r).build()));
        }
        return out;
    }

    private static synchronized void reply(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** The byte at {@code position} of pattern {@code seed}. */
    static byte pattern(long position, long seed) {
        long z = position * 0x9E3779B97F4A7C15L + seed * 0xBF58476D1CE4E5B9L;
        return (byte) (z ^ (z >>> 29) ^ (z >>> 47));
    }

    static void fill(MemorySegment s, long offset, long length, long seed) {
        for (long i = 0; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, offset + i, pattern(i, seed));
        }
    }

    /** The first offset (relative) where {@code s} differs from the pattern, or -1. */
    static long check(MemorySegment s, long offset, long length, long seed) {
        for (long i = 0; i < length; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, offset + i) != pattern(i, seed)) {
                return i;
            }
        }
        return -1;
    }
}
