package io.slime4j.bench;

import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * UCX through JUCX 1.12.1 (with Debian's libucx0 1.13.1 and {@code UCX_TLS=tcp}, which the harness
 * sets): one worker per side, endpoints by worker address, tagged send/recv for messages, RMA put
 * plus a final flush for one-sided bandwidth. Progress is JUCX's usual busy {@code worker.progress()}
 * loop. A missing or unloadable native library makes this side {@link Unavailable}.
 */
final class JucxSide extends Side {
    private static final int MESSAGE_WINDOW = 32;
    private UcpContext context;
    private UcpWorker worker;
    private UcpEndpoint endpoint;
    private UcpMemory src;
    private UcpMemory dst;
    private long remoteAddress;
    private UcpRemoteKey remoteKey;

    private JucxSide(CompareOptions options, Link link, boolean isA) {
        super(options, link, isA);
    }

    static Side create(CompareOptions o, Link link, boolean isA) throws Unavailable {
        JucxSide side = new JucxSide(o, link, isA);
        try {
            side.context = new UcpContext(new UcpParams().requestTagFeature().requestRmaFeature());
        } catch (Throwable e) { // UnsatisfiedLinkError, or an UcxException from ucp_init
            throw new Unavailable("JUCX/UCX not usable (apt-get install libucx0; JUCX 1.12.1 with libucx0 1.13.1): "
                    + e.toString().replace('\n', ' '), e);
        }
        return side;
    }

    @Override
    void open() throws Exception {
        HexFormat hex = HexFormat.of();
        worker = context.newWorker(new UcpWorkerParams());
        long region = 1L << 20;
        for (int s : options.bandwidthSizes) {
            region = Math.max(region, (long) CompareOptions.window(s) * s);
        }
        src = context.registerMemory(ByteBuffer.allocateDirect((int) region));
        dst = context.registerMemory(ByteBuffer.allocateDirect((int) region));
        link.toPeer("ADDR " + hex.formatHex(bytes(worker.getAddress())) + " " + dst.getAddress() + " "
                + hex.formatHex(bytes(dst.getRemoteKeyBuffer())));
        String[] peer = link.fromPeer("ADDR").split(" ");
        endpoint = worker.newEndpoint(new UcpEndpointParams().setUcpAddress(direct(hex.parseHex(peer[0]))));
        remoteAddress = Long.parseLong(peer[1]);
        remoteKey = endpoint.unpackRemoteKey(direct(hex.parseHex(peer[2])));
        link.barrier("connected");
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static ByteBuffer direct(byte[] b) {
        return ByteBuffer.allocateDirect(b.length).put(b).flip();
    }

    private void await(UcpRequest r, long deadline) throws Exception {
        int spins = 0;
        while (!r.isCompleted()) {
            worker.progress();
            if ((++spins & 1023) == 0 && System.nanoTime() > deadline) {
                throw new IOException("JUCX request not completed before the deadline");
            }
        }
        if (r.getStatus() != 0) {
            throw new IOException("JUCX request failed with status " + r.getStatus());
        }
    }

    private long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(options.timeoutSeconds);
    }

    @Override
    void rate(String variant, int size) throws Exception {
        int count = rateCount();
        long deadline = deadline();
        UcpRequest[] ring = new UcpRequest[MESSAGE_WINDOW];
        if (isA) {
            for (int i = 0; i < Math.min(MESSAGE_WINDOW, count); i++) {
                ring[i] = worker.recvTaggedNonBlocking(dst.getAddress() + (long) i * size, size, 0, 0, null);
            }
            long first = 0;
            for (int i = 0; i < count; i++) {
                int k = i % MESSAGE_WINDOW;
                await(ring[k], deadline);
                if (i == warm()) {
                    first = System.nanoTime();
                }
                if (i + MESSAGE_WINDOW < count) {
                    ring[k] = worker.recvTaggedNonBlocking(dst.getAddress() + (long) k * size, size, 0, 0, null);
                }
            }
            link.result("rate." + size, perSecond(count - 1 - warm(), System.nanoTime() - first));
        } else {
            for (int i = 0; i < count; i++) {
                int k = i % MESSAGE_WINDOW;
                if (ring[k] != null) {
                    await(ring[k], deadline);
                }
                ring[k] = endpoint.sendTaggedNonBlocking(src.getAddress() + (long) k * size, size, 0, null);
            }
            for (UcpRequest r : ring) {
                if (r != null) {
                    await(r, deadline);
                }
            }
        }
    }

    @Override
    void rtt(int size) throws Exception {
        int n = options.roundTrips;
        int total = n + options.rttWarmup;
        long deadline = deadline();
        long[] samples = new long[n];
        for (int i = 0; i < total; i++) {
            if (isA) {
                await(worker.recvTaggedNonBlocking(dst.getAddress(), size, 0, 0, null), deadline);
                await(endpoint.sendTaggedNonBlocking(src.getAddress(), size, 0, null), deadline);
            } else {
                UcpRequest r = worker.recvTaggedNonBlocking(dst.getAddress(), size, 0, 0, null);
                long start = System.nanoTime();
                UcpRequest s = endpoint.sendTaggedNonBlocking(src.getAddress(), size, 0, null);
                await(r, deadline);
                long t = System.nanoTime() - start;
                await(s, deadline);
                if (i >= total - n) {
                    samples[i - (total - n)] = t;
                }
            }
        }
        if (!isA) {
            reportRtt(samples);
        }
    }

    @Override
    boolean bandwidth(int size) throws Exception {
        if (isA) {
            // UCX over TCP emulates RMA in software: the target's worker must progress for puts to land
            long deadline = deadline();
            int spins = 0;
            while (!link.poll("PUTDONE")) {
                worker.progress();
                if ((++spins & 1023) == 0 && System.nanoTime() > deadline) {
                    throw new IOException("JUCX: the peer's puts did not finish before the deadline");
                }
            }
        } else {
            int window = CompareOptions.window(size);
            int n = options.transfers(size);
            warmBandwidth(() -> puts(size, window, Math.max(1, n / 10)));
            long start = System.nanoTime();
            puts(size, window, n);
            link.result("bw." + size, (double) size * n / ((System.nanoTime() - start) / 1e3));
            link.toPeer("PUTDONE");
        }
        return true;
    }

    private void puts(int size, int window, int n) throws Exception {
        long deadline = deadline();
        UcpRequest[] ring = new UcpRequest[window];
        int places = options.buffers(size);
        for (int i = 0; i < n; i++) {
            int k = i % window;
            if (ring[k] != null) {
                await(ring[k], deadline);
            }
            long offset = (long) (k % places) * size;
            ring[k] = endpoint.putNonBlocking(src.getAddress() + offset, size, remoteAddress + offset, remoteKey, null);
        }
        for (UcpRequest r : ring) {
            if (r != null) {
                await(r, deadline);
            }
        }
        await(endpoint.flushNonBlocking(null), deadline); // remote completion of every put
    }

    @Override
    void close() {
        if (remoteKey != null) {
            remoteKey.close();
        }
        if (endpoint != null) {
            endpoint.close();
        }
        if (src != null) {
            src.deregister();
        }
        if (dst != null) {
            dst.deregister();
        }
        if (worker != null) {
            worker.close();
        }
        if (context != null) {
            context.close();
        }
    }
}
