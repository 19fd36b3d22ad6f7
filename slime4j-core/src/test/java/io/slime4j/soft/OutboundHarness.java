package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The sending side of one reliable stream, assembled as a queue pair assembles it but with no
 * device, socket or thread: an {@link OutboundStream}, {@link AimdCongestionControl},
 * {@link RttEstimator}, {@link LossRecovery} and a real {@link TimerWheel}, driven by a clock
 * that the test sets ({@link #now}). "Sending" a segment does the bookkeeping the transmitter does.
 */
final class OutboundHarness {
    static final long ACK_TIMEOUT = 10_000_000; // 10 ms
    static final long ACK_DELAY = 50_000;
    static final int INITIAL_PSN = Integer.MAX_VALUE - 5; // every test crosses the PSN wrap

    long now = 1_000_000_000L;
    final CounterSet counters = new CounterSet();
    final TimerWheel timers = new TimerWheel(10_000, 4096, now);
    final List<SendSegment> timedOut = new ArrayList<>();
    final OutboundStream stream;
    final AimdCongestionControl congestion;
    final LossRecovery loss;
    final ResponseQueue responses = new ResponseQueue();
    /** The receive window the peer advertises, in packets, as the congestion control reads it. */
    int peerWindowPackets = 0;
    private final MemorySegment ackBuffer = Arena.ofAuto().allocate(HEADER_LENGTH + MAX_SACK_BITS / 8);
    private final AckFrame ack = new AckFrame().wrap(ackBuffer);

    OutboundHarness(int window, int initialCwnd, int retryCount) {
        stream = new OutboundStream(window, INITIAL_PSN, (s, t) -> timedOut.add(s));
        congestion = new AimdCongestionControl(initialCwnd, window, () -> peerWindowPackets);
        loss = new LossRecovery(stream, congestion, new RttEstimator(ACK_TIMEOUT), timers, counters, retryCount,
                ACK_DELAY);
    }

    OutboundHarness() {
        this(64, 32, 3);
    }

    /** Sends one new segment now, as the transmitter would; returns it. */
    SendSegment send() {
        SendSegment s = stream.claim(TYPE_WRITE, F_FIRST | F_LAST);
        transmit(s, false);
        return s;
    }

    /** Sends {@code n} new segments, {@code gapNanos} apart. */
    void send(int n, long gapNanos) {
        for (int i = 0; i < n; i++) {
            send();
            now += gapNanos;
        }
    }

    /** What the requester does for each queued retransmission; returns how many it sent. */
    int sendRetransmits() {
        int n = 0;
        SendSegment s;
        while ((s = stream.pollRetransmit()) != null) {
            if (s.acked || s.sacked || !stream.inWindow(s.psn)) {
                continue;
            }
            transmit(s, true);
            if (!s.isScheduled()) {
                timers.schedule(s, now + loss.backoff(s.retries));
            }
            n++;
        }
        return n;
    }

    private void transmit(SendSegment s, boolean retransmission) {
        stream.sent(s, now);
        if (!retransmission) {
            timers.schedule(s, now + loss.rto());
        } else {
            s.retransmitted = true;
        }
    }

    /** Fires the timers due now into {@link LossRecovery#onTimeout}; returns the outcomes in order. */
    List<LossRecovery.Timeout> fireTimers() {
        List<LossRecovery.Timeout> outcomes = new ArrayList<>();
        timers.poll(now, (t, at) -> outcomes.add(loss.onTimeout((SendSegment) t, at)));
        return outcomes;
    }

    /** The PSN {@code i} segments after the first. */
    static int psn(int i) {
        return INITIAL_PSN + i;
    }

    /** An explicit ACK: everything before {@code psn(cumulative)}, plus SACK bits for the given offsets. */
    AckFrame ack(int cumulative, int... sackedIndexes) {
        ack.start(TYPE_ACK, 0, 1, 1, psn(cumulative)).ackPsn(psn(cumulative));
        ack.window(0).syndrome(SYNDROME_ACK);
        int bits = 0;
        for (int i = 0; i < 4; i++) {
            ack.sackWord(i, 0);
        }
        for (int index : sackedIndexes) {
            int bit = index - cumulative - 1; // bit i is PSN ack + 1 + i
            ack.sackWord(bit >>> 6, ack.sackWord(bit >>> 6) | 1L << bit);
            bits = Math.max(bits, bit + 1);
        }
        ack.sackBits(bits);
        return ack;
    }

    /** The same, asking the sender to go back (the receiver dropped packets ahead of order). */
    AckFrame goBack(int cumulative) {
        AckFrame a = ack(cumulative);
        a.flags(a.flags() | F_GO_BACK);
        return a;
    }

    long count(SoftCounter c) {
        return counters.get(c);
    }

    long count(io.slime4j.verbs.Counter c) {
        return counters.get(c);
    }
}
