package io.slime4j.wire.inproc;

import io.slime4j.wire.WirePort;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** Test helpers: numbered packets and receiving into lists. */
final class Receiver {

    private Receiver() {
    }

    /** A 4-byte packet holding {@code n}. */
    static MemorySegment numbered(int n) {
        MemorySegment s = MemorySegment.ofArray(new byte[4]);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 0, n);
        return s;
    }

    /** The numbers of the packets one receive call hands over. */
    static List<Integer> numbers(WirePort port, int limit) {
        List<Integer> numbers = new ArrayList<>();
        port.receive((packet, length, from) -> numbers.add(packet.get(ValueLayout.JAVA_INT_UNALIGNED, 0)), limit);
        return numbers;
    }

    /** The contents of every packet one unlimited receive call hands over. */
    static List<byte[]> drain(WirePort port) {
        List<byte[]> packets = new ArrayList<>();
        port.receive((packet, length, from) -> packets.add(packet.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE)),
                Integer.MAX_VALUE);
        return packets;
    }
}
