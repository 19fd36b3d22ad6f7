package io.slime4j.wire;

import java.lang.foreign.MemorySegment;

/**
 * A {@link PacketHandler} that can tell from a datagram's first bytes where the rest of it belongs
 * (e.g. an RDMA write's payload: at its target in registered memory). A wire able to split a
 * datagram on receipt asks {@link #place} first and, on yes, receives the header into its buffer and
 * the rest straight to {@link #placementSegment()} at {@link #placementOffset()}, then calls
 * {@link #onPlacedPacket}: the payload is copied once, by the kernel, instead of twice. Wires that
 * cannot split call {@link #onPacket} as for any handler. All calls come from the receiving thread,
 * and {@link #onPlacedPacket} follows the {@code place} that said yes with no other call between.
 */
public interface PlacingPacketHandler extends PacketHandler {

    /** How many leading bytes of a datagram {@link #place} looks at. */
    int headerLength();

    /**
     * Decides where a datagram goes that has not been received yet: {@code header} holds its first
     * {@link #headerLength()} bytes, {@code length} is its whole size, {@code from} its source.
     *
     * @return true if its bytes after the header go to {@link #placementSegment()} from
     *         {@link #placementOffset()} (the segment then has room for them); false to receive it
     *         whole and hand it to {@link #onPacket}
     */
    boolean place(MemorySegment header, int length, WireAddress from);

    /** Where the last accepted datagram's payload goes. */
    MemorySegment placementSegment();

    /** Offset in {@link #placementSegment()} of the last accepted datagram's payload. */
    long placementOffset();

    /**
     * The datagram {@link #place} accepted last, received: {@code packet} holds its header (the first
     * {@link #headerLength()} bytes; what follows is not the payload), {@code length} is its whole
     * size, and its payload is already in place.
     */
    void onPlacedPacket(MemorySegment packet, int length, WireAddress from);

    /**
     * After {@link #place} said yes: how many bytes from {@link #placementOffset()} on the handler
     * may have written before it has seen the datagrams that own them (at least the accepted
     * datagram's payload; e.g. the rest of the RDMA write in progress, undefined until it
     * completes). A wire that received several datagrams coalesced may receive the payloads of
     * those behind the accepted one there, back to back, and then hands them over only as the
     * handler takes them: in one go ({@link #onPlacedRun}), or each after {@link #predictNext} and
     * {@link #confirm} agree it is the one whose place it took (copying it back behind its header
     * otherwise, as after a wrong prediction). The default allows nothing
     * beyond the accepted datagram.
     */
    default long placementRoom() {
        return 0;
    }

    /**
     * After {@link #onPlacedPacket}: whether the next datagram may be received at a guessed
     * place without peeking at its header first, because the handler may have any bytes written
     * there (e.g. the rest of the RDMA write in progress, whose target is undefined until the write
     * completes). On true, {@link #placementSegment()} and {@link #placementOffset()} name the place
     * and {@link #predictedPayloadLength()} its size. The wire asks right before it receives the
     * next datagram (not right after the placement: datagrams of another channel, or a later receive
     * call, may come between), so the answer must describe the handler's state at that moment. The
     * default never predicts.
     */
    default boolean predictNext() {
        return false;
    }

    /** Room at the predicted place: a longer datagram cannot be received there whole. */
    default int predictedPayloadLength() {
        return 0;
    }

    /**
     * Whether a datagram received at the predicted place ({@code header} holds its first
     * {@link #headerLength()} bytes, {@code length} is its whole size, which fits) is one whose
     * payload belongs exactly there. On true the wire calls {@link #onPlacedPacket}; on false it
     * copies the payload back behind the header and calls {@link #onPacket} with the whole datagram.
     */
    default boolean confirm(MemorySegment header, int length, WireAddress from) {
        return false;
    }

    /**
     * Right after {@link #onPlacedPacket} of a coalesced receive's datagram: takes the datagrams
     * behind it in one go, as many of them as continue it exactly, each one the datagram whose
     * place its payload took, that {@link #predictNext} and {@link #confirm} would accept one at a
     * time, and handles them as {@link #onPlacedPacket} would (e.g. the rest of an RDMA write,
     * checked and executed as a run: no look-up per datagram). The receive is in {@code buffer}
     * as a whole receive puts it (datagram {@code i}'s header at {@code i * segment}; what follows
     * a header there is not its payload), {@code count} datagrams of {@code segment} bytes, the last
     * {@code last} bytes; the run begins at datagram {@code first}, and every payload lies back to
     * back from the place of the one handed over before it.
     *
     * @return how many datagrams from {@code first} on it took (they count as placed); the wire
     *         hands the rest over one at a time. The default takes none.
     */
    default int onPlacedRun(MemorySegment buffer, int segment, int first, int count, int last, WireAddress from) {
        return 0;
    }

    /**
     * After {@link #place} declined a datagram: whether the handler has no use for any of its bytes,
     * so that the wire may drop it without reading them (no copy). {@code header} holds the first
     * {@link #headerLength()} bytes, {@code length} is its whole size; {@code segment} is 0 for one
     * datagram, else the size of each of the datagrams a coalesced receive brings (the last may be
     * shorter). On true the handler has taken note of the datagram as it would on receiving it
     * whole (e.g. counted duplicates and owes the ACK they ask for); the wire then drops it. The
     * default keeps everything.
     */
    default boolean discard(MemorySegment header, int length, int segment, WireAddress from) {
        return false;
    }
}
