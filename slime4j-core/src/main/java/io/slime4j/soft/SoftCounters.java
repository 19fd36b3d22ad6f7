package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsDevice;

import java.util.Map;

/**
 * A read-only view of a soft device's or queue pair's {@link SoftCounter}s (its hardware-neutral
 * counters are {@link VerbsDevice#counters()} and {@link QueuePair#counters()}); values are
 * updated concurrently by the device.
 *
 * <pre>{@code
 * long resent = device.counters().get(Counter.RETRANSMITS);
 * }</pre>
 */
public interface SoftCounters {

    /** The current value of a counter. */
    long get(SoftCounter counter);

    /** A snapshot of every counter, keyed by counter, in id order. */
    Map<SoftCounter, Long> snapshot();

    /** The protocol counters of a soft engine's device (totals of its queue pairs plus device-only drops). */
    static SoftCounters of(VerbsDevice device) {
        if (device instanceof SoftDevice soft) {
            return soft.protocolCounters();
        }
        throw new IllegalArgumentException("not a soft engine device: " + device);
    }

    /** The protocol counters of a soft engine's queue pair. */
    static SoftCounters of(QueuePair qp) {
        if (qp instanceof SoftQueuePair soft) {
            return soft.countersSet().soft();
        }
        throw new IllegalArgumentException("not a soft engine queue pair: " + qp);
    }
}
