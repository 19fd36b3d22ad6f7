package io.slime4j.wire.udp;

import io.slime4j.wire.WireAddress;
import io.slime4j.wire.WirePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/** Test helpers: numbered datagrams, and receiving into lists with bounded waits. */
final class Datagrams {

    /** One received datagram: its bytes and reported source. */
    record Received(byte[] bytes, WireAddress from) {
        int number() {
            return MemorySegment.ofArray(bytes).get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        }
    }

    private Datagrams() {
    }

    /** A 4-byte datagram holding {@code n}. */
    static MemorySegment numbered(int n) {
        MemorySegment s = MemorySegment.ofArray(new byte[4]);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 0, n);
        return s;
    }

    /** {@code length} bytes {@code (seed + i * 31)}. */
    static byte[] bytes(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i * 31);
        }
        return b;
    }

    /** What one receive call with {@code limit} hands over. */
    static List<Received> receiveOnce(WirePort port, int limit) {
        List<Received> got = new ArrayList<>();
        port.receive((packet, length, from) ->
                got.add(new Received(packet.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), from)), limit);
        return got;
    }

    /** Receives until {@code n} datagrams arrived or {@code timeoutMillis} passed. */
    static List<Received> receive(WirePort port, int n, long timeoutMillis) {
        List<Received> got = new ArrayList<>();
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (got.size() < n && System.nanoTime() - deadline < 0) {
            if (port.receive((packet, length, from) ->
                    got.add(new Received(packet.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), from)),
                    n - got.size()) == 0) {
                LockSupport.parkNanos(100_000);
            }
        }
        return got;
    }

    /**
     * Gives loopback delivery time to finish. Linux usually queues a loopback datagram at the
     * receiver before {@code sendto} returns; under load the softirq may run a little later.
     */
    static void settle() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
