package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;

/**
 * The outcome of one step of the responder's chain of checks (and of executing a packet): go on,
 * drop the packet silently (it is counted where it is judged), refuse it for now with an RNR NAK,
 * or refuse it for good with an error NAK of the given syndrome.
 */
enum Verdict {
    OK(-1),
    DROP(-1),
    RNR(SYNDROME_RNR_NAK),
    NAK_REMOTE_ACCESS(SYNDROME_NAK_REMOTE_ACCESS),
    NAK_INVALID_REQUEST(SYNDROME_NAK_INVALID_REQUEST),
    NAK_REMOTE_OPERATION(SYNDROME_NAK_REMOTE_OPERATION);

    /** The syndrome of the ACK packet that answers it (RNR and NAKs only). */
    final int syndrome;

    Verdict(int syndrome) {
        this.syndrome = syndrome;
    }

    /** Whether the packet is refused with a NAK (RNR or error). */
    boolean isNak() {
        return syndrome >= 0;
    }
}
