package io.slime4j.soft;

import io.slime4j.wire.WireAddress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The receive side of coalescing: splits a bundle datagram (docs/WIRE.md, "Coalescing") into its
 * frames and hands each to the device's receive path as the packet it is, copied into a frame
 * buffer of its own (so the frame's header starts at offset 0 and nothing is allocated per frame).
 * Network input is never trusted: every frame's length is checked against what is left of the
 * datagram before a byte of it is read. A frame shorter than a packet header, one whose length
 * runs past the end, a cut-off length prefix, a frame count of zero or one the datagram does not
 * hold, and bytes left over after the last frame end the datagram there: the frames before were
 * handled, the rest is dropped and counted once ({@link SoftCounter#BAD_BUNDLES}). Agent thread only.
 */
final class BundleSplitter {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Where each frame goes. */
    interface FrameHandler {
        /** One frame: a whole packet of {@code length} bytes at the start of {@code frame}. */
        void onFrame(MemorySegment frame, int length, WireAddress from);
    }

    private final MemorySegment frameBuffer;
    private final CounterSet counters;

    /** @param maxDatagram the largest datagram the port receives (no frame can be larger) */
    BundleSplitter(int maxDatagram, CounterSet counters) {
        this.frameBuffer = Arena.ofAuto().allocate(Math.max(maxDatagram, HeaderFlyweight.HEADER_LENGTH), 8);
        this.counters = counters;
    }

    /** Whether {@code packet} of {@code length} bytes is a bundle (by its version and type bytes). */
    static boolean isBundle(MemorySegment packet, int length) {
        return length >= 2 && packet.get(ValueLayout.JAVA_BYTE, 0) == HeaderFlyweight.VERSION
                && (packet.get(ValueLayout.JAVA_BYTE, 1) & 0xFF) == HeaderFlyweight.TYPE_BUNDLE;
    }

    /**
     * Hands each frame of the bundle in the first {@code length} bytes of {@code datagram} to
     * {@code handler}, in order. Returns the frames handed over.
     */
    int split(MemorySegment datagram, int length, WireAddress from, FrameHandler handler) {
        counters.increment(SoftCounter.BUNDLES_RECEIVED);
        if (length < Coalescer.BUNDLE_HEADER_LENGTH || length > datagram.byteSize()) {
            counters.increment(SoftCounter.BAD_BUNDLES);
            return 0;
        }
        int count = datagram.get(INT, 4);
        if (count <= 0) {
            counters.increment(SoftCounter.BAD_BUNDLES);
            return 0;
        }
        int at = Coalescer.BUNDLE_HEADER_LENGTH;
        int handed = 0;
        while (handed < count) {
            if (length - at < Coalescer.FRAME_PREFIX_LENGTH) {
                counters.increment(SoftCounter.BAD_BUNDLES); // the count promised more frames
                return handed;
            }
            int frameLength = datagram.get(INT, at);
            at += Coalescer.FRAME_PREFIX_LENGTH;
            if (frameLength < HeaderFlyweight.HEADER_LENGTH || frameLength > length - at) {
                counters.increment(SoftCounter.BAD_BUNDLES);
                return handed;
            }
            MemorySegment.copy(datagram, at, frameBuffer, 0, frameLength);
            at += frameLength;
            handed++;
            handler.onFrame(frameBuffer, frameLength, from);
        }
        if (at != length) {
            counters.increment(SoftCounter.BAD_BUNDLES); // bytes beyond the frames it announced
        }
        return handed;
    }
}
