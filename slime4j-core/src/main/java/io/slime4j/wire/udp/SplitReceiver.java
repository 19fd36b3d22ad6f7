package io.slime4j.wire.udp;

import io.slime4j.wire.PacketHandler;
import io.slime4j.wire.PlacingPacketHandler;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * The split receive of a {@link UdpPort} on the native backend, for a
 * {@link PlacingPacketHandler}: a datagram's header goes into the port's receive buffer and its
 * payload straight to the place the handler names, found by peeking at the header or predicted by
 * the handler for the rest of a write in progress (docs/WIRE.md). Receiving thread only.
 */
final class SplitReceiver {
    private final MemorySegment receiveSegment;
    private final int maxDatagramSize;
    private final UdpCounters receiveCounters;
    private final UdpPort port;
    private int peekSkips;
    /** The last {@link #next} used one of {@link #peekSkips}. */
    private boolean skipping;
    /**
     * The whole receive {@link #next} asked for ({@link #NOT_SPLIT}, while backing off from peeking)
     * found nothing: the skip is given back, so that the back-off counts datagrams, not the empty
     * polls of an idle or spinning thread (which would otherwise use it up before the next datagram
     * came, and every small datagram would again cost a peek and a receive).
     */
    void nothingReceived() {
        if (skipping) {
            skipping = false;
            peekSkips++;
        }
    }

    /**
     * A whole receive {@link #next} asked for brought a coalesced run: the back-off from peeking
     * ends, since one peek serves a whole run (which taken whole crosses memory twice), as after a
     * declined coalesced receive. The back-off is for streams of small single datagrams.
     */
    void coalescedReceivedWhole() {
        peekSkips = 0;
    }

    /** Datagrams the last {@link #next} that returned {@link #HANDED} handed over (several for a coalesced receive). */
    private int handedLast;
    /** Placements left before predicting again, after a misprediction (packets of several queue pairs interleave). */
    private int predictSkips;
    private boolean predicted;
    private MemorySegment predictedSegment;
    private long predictedOffset;
    private int predictedLength;

    SplitReceiver(MemorySegment receiveSegment, int maxDatagramSize, UdpCounters receiveCounters, UdpPort port) {
        this.receiveSegment = receiveSegment;
        this.maxDatagramSize = maxDatagramSize;
        this.receiveCounters = receiveCounters;
        this.port = port;
    }

    /**
     * Takes the next datagram split if it can: at the predicted place if the handler still
     * predicts one, else after a peek if the handler places it (after a decline, the next few are
     * left to be received whole without a peek).
     *
     * @return {@link #HANDED}, {@link #NOT_SPLIT}, {@link #NONE} or {@link #DROPPED}
     */
    int next(UdpSocket channel, UdpPort.SourceCache sources, PlacingPacketHandler placing, PacketHandler handler) {
        handedLast = 1;
        if (predicted && predict(placing)) {
            return receivePredicted(channel, sources, placing, handler);
        }
        skipping = peekSkips > 0;
        if (skipping) {
            peekSkips--;
            return NOT_SPLIT;
        }
        return receivePlaced(channel, sources, placing);
    }

    /** Datagrams the last {@link #next} handed over when it returned {@link #HANDED}. */
    int handedLast() {
        return handedLast;
    }

    /** {@link #next}: a datagram was handed over (placed, or whole after a misprediction). */
    static final int HANDED = 0;
    /** {@link #next}: the next datagram is still queued; receive it whole. */
    static final int NOT_SPLIT = 1;
    /** {@link #next}: nothing was waiting, or the receive failed (counted). */
    static final int NONE = 2;
    /** {@link #next}: a datagram was taken and dropped (counted). */
    static final int DROPPED = 4;
    private static final int PLACED = HANDED;
    private static final int NOT_PLACED = NOT_SPLIT;
    private static final int TAKEN = HANDED;
    /**
     * Datagrams received whole, without peeking, after the handler declined to place one. Not
     * after a declined coalesced receive: there one peek serves many datagrams, and the receives
     * that follow (after a duplicated run, or once a hole is filled) are likely ones to place,
     * which taken whole would cross memory twice.
     */
    private static final int PEEK_BACKOFF = 8;
    /**
     * Placements without prediction after a miss. A miss costs a copy back, so when the packets of
     * several queue pairs interleave (each prediction guessing the wrong one) prediction pauses and
     * the peek path, which is never wrong, takes over for a while.
     */
    private static final int PREDICT_BACKOFF = 16;

    /**
     * Peeks at the next datagram's header and, if the handler places it, receives it split: the
     * header into the receive buffer, the payload straight to its place. Returns PLACED, NOT_PLACED
     * (the datagram is still queued), DROPPED (the handler had no use for it: taken unread) or NONE
     * (nothing waiting, or an error, counted).
     */
    private int receivePlaced(UdpSocket channel, UdpPort.SourceCache sources, PlacingPacketHandler placing) {
        int headerLength = placing.headerLength();
        InetSocketAddress source;
        try {
            source = channel.peek(receiveSegment, headerLength);
        } catch (IOException e) {
            port.receiveFailed(e);
            return NONE;
        }
        if (source == null) {
            return NONE;
        }
        int length = channel.receivedLength();
        int segment = channel.segmentSize(); // coalesced (GRO): the first datagram is placed, the rest copied
        int first = segment > 0 ? segment : length;
        if (first <= headerLength || first > maxDatagramSize || length >= receiveSegment.byteSize()) {
            return NOT_PLACED;
        }
        UdpAddress from = sources.from(source);
        if (!placing.place(receiveSegment, first, from)) {
            if (placing.discard(receiveSegment, length, segment, from)) {
                return discardPeeked(channel, headerLength, length, segment);
            }
            peekSkips = segment > 0 ? 0 : PEEK_BACKOFF;
            return NOT_PLACED;
        }
        MemorySegment target = placing.placementSegment();
        long offset = placing.placementOffset();
        if (segment > 0) {
            int count = runLength(placing, length, segment, headerLength);
            if (count > 1) {
                return receiveRun(channel, placing, from, length, segment, count, target, offset);
            }
        }
        try {
            source = channel.receiveSplit(receiveSegment, headerLength, target, offset, first - headerLength);
        } catch (IOException e) {
            port.receiveFailed(e);
            return NONE;
        } catch (RuntimeException e) {
            return placementFailed(e);
        }
        int unlike = unlikePeeked(channel, source, length, segment);
        if (unlike != PLACED) {
            return unlike;
        }
        placed(placing, first, from);
        if (segment > 0) {
            handedLast = 1 + port.handOver(placing, from, length, segment, 1); // behind the first, in the buffer
        }
        return PLACED;
    }

    /**
     * How many datagrams of a coalesced receive of {@code length} bytes in {@code segment}-byte
     * datagrams may be received with their payloads back to back from the place the handler just
     * accepted the first one for; 0 when the run does not fit the room the handler allows there.
     */
    private static int runLength(PlacingPacketHandler placing, int length, int segment, int headerLength) {
        int count = (length + segment - 1) / segment;
        int last = length - (count - 1) * segment;
        if (count < 2 || count > UdpSocket.MAX_SCATTERED || last <= headerLength) {
            return 0;
        }
        long payloads = (long) (count - 1) * (segment - headerLength) + last - headerLength;
        return placing.placementRoom() >= payloads ? count : 0;
    }

    /**
     * Receives a coalesced run whose first datagram the handler placed with its payloads back to
     * back at the place (one system call, every header where a whole receive would put it), then
     * hands the datagrams over in order: the first as placed, as many after it as the handler takes
     * in one go ({@link PlacingPacketHandler#onPlacedRun}), then each next one as placed if the handler
     * predicts exactly its place and confirms it. From the first that is not confirmed on, the
     * payloads are copied back behind their headers and the rest handed over whole (harmless, as
     * after a wrong prediction: the handler allowed any bytes there, {@link
     * PlacingPacketHandler#placementRoom}). Returns PLACED, NONE or DROPPED.
     */
    private int receiveRun(UdpSocket channel, PlacingPacketHandler placing, UdpAddress from, int length, int segment,
                           int count, MemorySegment target, long offset) {
        int headerLength = placing.headerLength();
        int payload = segment - headerLength;
        int last = length - (count - 1) * segment;
        InetSocketAddress source;
        try {
            source = channel.receiveScattered(receiveSegment, headerLength, segment, count, last - headerLength, target,
                    offset);
        } catch (IOException e) {
            port.receiveFailed(e);
            return NONE;
        } catch (RuntimeException e) {
            return placementFailed(e);
        }
        int unlike = unlikePeeked(channel, source, length, segment);
        if (unlike != PLACED) {
            return unlike;
        }
        predicted = false; // the next receive peeks: a prediction places only one datagram of a run
        countPlaced(segment);
        placing.onPlacedPacket(receiveSegment, segment, from);
        int taken = Math.min(count - 1, placing.onPlacedRun(receiveSegment, segment, 1, count, last, from));
        if (taken > 0) { // counted as the loop below counts each
            long bytes = (long) taken * segment - (1 + taken == count ? segment - last : 0);
            receiveCounters.add(UdpCounters.DATAGRAMS_RECEIVED, taken);
            receiveCounters.add(UdpCounters.BYTES_RECEIVED, bytes);
            receiveCounters.add(UdpCounters.PLACED_RECEIVED, taken);
            receiveCounters.add(UdpCounters.COALESCED_RECEIVED, taken);
        }
        for (int i = 1 + taken; i < count; i++) {
            int n = i < count - 1 ? segment : last;
            long at = offset + (long) i * payload;
            MemorySegment header = port.slice(i, segment);
            if (placing.predictNext() && placing.placementSegment() == target && placing.placementOffset() == at
                    && placing.predictedPayloadLength() >= n - headerLength && placing.confirm(header, n, from)) {
                receiveCounters.increment(UdpCounters.COALESCED_RECEIVED);
                countPlaced(n);
                placing.onPlacedPacket(header, n, from);
                continue;
            }
            for (int j = i; j < count; j++) { // the buffer holds the rest of the receive again, in order
                MemorySegment.copy(target, offset + (long) j * payload, receiveSegment, (long) j * segment + headerLength,
                        (j < count - 1 ? segment : last) - headerLength);
            }
            predictSkips = PREDICT_BACKOFF;
            handedLast = i + port.handOver(placing, from, length, segment, i);
            return PLACED;
        }
        receiveCounters.increment(UdpCounters.GRO_RECEIVES);
        handedLast = count;
        return PLACED;
    }

    private void countPlaced(int length) {
        receiveCounters.increment(UdpCounters.DATAGRAMS_RECEIVED);
        receiveCounters.add(UdpCounters.BYTES_RECEIVED, length);
        receiveCounters.increment(UdpCounters.PLACED_RECEIVED);
    }

    /** Hands over a placed datagram and asks the handler where the next one goes. */
    private void placed(PlacingPacketHandler placing, int length, UdpAddress from) {
        receiveCounters.increment(UdpCounters.DATAGRAMS_RECEIVED);
        receiveCounters.add(UdpCounters.BYTES_RECEIVED, length);
        receiveCounters.increment(UdpCounters.PLACED_RECEIVED);
        placing.onPlacedPacket(receiveSegment, length, from);
        if (predictSkips > 0) {
            predictSkips--;
            predicted = false;
        } else {
            predicted = true; // asked right before the next datagram, see predict
        }
    }

    /**
     * Asks the handler where the next datagram goes, right before receiving it: anything handled
     * since the last placement (a datagram on the priority channel, another receive call, a
     * deregistration) may have changed the answer, and a stale prediction could overwrite data
     * that is final by now.
     */
    private boolean predict(PlacingPacketHandler placing) {
        predicted = placing.predictNext();
        if (predicted) {
            predictedSegment = placing.placementSegment();
            predictedOffset = placing.placementOffset();
            predictedLength = placing.predictedPayloadLength();
        } else {
            predictedSegment = null;
        }
        return predicted;
    }

    /**
     * Receives the next datagram at the place the handler predicted, without peeking: header into
     * the receive buffer, payload at the prediction, any excess behind it in the receive buffer.
     * If the handler does not confirm it, copies the payload back and hands the datagram over whole
     * (the handler allowed any bytes at the predicted place). Returns PLACED, TAKEN (handed over
     * whole), DROPPED (too large, counted), NOT_PLACED (still queued) or NONE.
     */
    private int receivePredicted(UdpSocket channel, UdpPort.SourceCache sources, PlacingPacketHandler placing,
                                 PacketHandler handler) {
        int headerLength = placing.headerLength();
        MemorySegment target = predictedSegment;
        long offset = predictedOffset;
        int room = (int) Math.min(predictedLength, receiveSegment.byteSize() - headerLength);
        InetSocketAddress source;
        try {
            source = channel.receiveSplit(receiveSegment, headerLength, target, offset, room);
        } catch (IOException e) {
            port.receiveFailed(e);
            return NONE;
        } catch (RuntimeException e) {
            receiveCounters.increment(UdpCounters.RECEIVE_ERRORS);
            port.logReceiveError(e);
            predicted = false;
            return NOT_PLACED;
        }
        if (source == null) {
            return NONE; // the prediction stands for the next datagram
        }
        predicted = false;
        predictedSegment = null;
        int length = channel.receivedLength();
        int segment = channel.segmentSize();
        UdpAddress from = sources.from(source);
        int first = segment > 0 ? segment : length;
        int payload = first - headerLength;
        // coalesced (GRO): the first datagram's payload must have filled the room exactly, so that the
        // next one starts right behind it in the buffer
        if (payload > 0 && (segment > 0 ? payload == room : payload <= room)
                && placing.confirm(receiveSegment, first, from)) {
            receiveCounters.increment(UdpCounters.PREDICTED_RECEIVED);
            placed(placing, first, from);
            if (segment > 0) {
                handedLast = 1 + port.handOver(placing, from, length, segment, 1);
            }
            return PLACED;
        }
        predictSkips = PREDICT_BACKOFF;
        if (segment == 0 && length > maxDatagramSize) {
            receiveCounters.increment(UdpCounters.OVERSIZE_DROPS);
            return DROPPED;
        }
        if (length > headerLength) { // the buffer holds the whole receive again, in order
            MemorySegment.copy(target, offset, receiveSegment, headerLength, Math.min(length - headerLength, room));
        }
        if (segment > 0) {
            handedLast = port.handOver(handler, from, length, segment, 0);
            return TAKEN;
        }
        receiveCounters.increment(UdpCounters.DATAGRAMS_RECEIVED);
        receiveCounters.add(UdpCounters.BYTES_RECEIVED, length);
        handler.onPacket(receiveSegment, length, from);
        return TAKEN;
    }


    /**
     * Drops the peeked datagram (or coalesced run) the handler has no use for, reading only its
     * header: no copy of its payload, and no back-off from peeking, since the next datagram is
     * likely one to place (a duplicate run is followed by new data). Returns DROPPED, or NONE.
     */
    private int discardPeeked(UdpSocket channel, int headerLength, int length, int segment) {
        InetSocketAddress source;
        try {
            source = channel.discard(receiveSegment, headerLength);
        } catch (IOException e) {
            port.receiveFailed(e);
            return NONE;
        }
        int unlike = unlikePeeked(channel, source, length, segment);
        if (unlike != PLACED) {
            return unlike;
        }
        receiveCounters.add(UdpCounters.DISCARDED, segment > 0 ? (length + segment - 1) / segment : 1);
        return DROPPED;
    }

    /** A placement outside its segment or in freed memory: counted and logged; the datagram is taken the usual way. */
    private int placementFailed(RuntimeException e) {
        receiveCounters.increment(UdpCounters.RECEIVE_ERRORS);
        port.logReceiveError(e);
        peekSkips = PEEK_BACKOFF;
        return NOT_PLACED;
    }

    /**
     * PLACED when the split receive took the datagram (or run) that was peeked; NONE when nothing
     * came; DROPPED, counted, when it differs (cannot happen with one receiving thread).
     */
    private int unlikePeeked(UdpSocket channel, InetSocketAddress source, int length, int segment) {
        if (source == null) {
            return NONE;
        }
        if (channel.receivedLength() != length || channel.segmentSize() != segment) {
            receiveCounters.increment(UdpCounters.RECEIVE_ERRORS);
            return DROPPED;
        }
        return PLACED;
    }
}
