package io.slime4j.endpoint;

/**
 * The decisions that keep the ownership invariants I1–I5 of docs/ENDPOINT.md, gathered in one place
 * so that a test-only subclass can break exactly one of them and show that its test fails. The
 * endpoint always uses {@link #DEFAULT}, which keeps all of them and installs no detector that
 * costs time on the hot path; nothing public can substitute another instance.
 */
class EndpointHooks {
    static final EndpointHooks DEFAULT = new EndpointHooks();

    /**
     * I1: a signal per op, never shared and never reset: null, for the op to be its own signal
     * ({@link OpState} is one); a test's hooks may hand out a shared one instead.
     */
    OpSignal newSignal() {
        return null;
    }

    /** I2: release a slot after the first completion of its lease instead of the last. */
    boolean releaseOnFirstCompletion() {
        return false;
    }

    /** I3: a slot lease holds its op strongly, so completion reaches the op whoever else dropped it. */
    boolean slotHoldsOpStrongly() {
        return true;
    }

    /** I4: a released slot forgets its op, so nothing but the future keeps a completed op alive. */
    boolean clearSlotOnRelease() {
        return true;
    }

    /** I5: receives pre-posted per window at connect. */
    int prePosted(RecvWindow.Kind kind, int windowSize) {
        return windowSize;
    }

    /** I5: a consumed window receive is re-posted before its completion is acted on (and a slot released). */
    boolean repostBeforeRelease() {
        return true;
    }

    /**
     * Whether to install the I5 detector ({@link WindowWatch}), which scans the receive windows at
     * every slot release: off the release path of a real endpoint; the tests' hooks turn it on.
     */
    boolean watchWindowsAtRelease() {
        return false;
    }
}
