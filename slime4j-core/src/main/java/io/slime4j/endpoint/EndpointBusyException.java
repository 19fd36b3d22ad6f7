package io.slime4j.endpoint;

/**
 * Back-pressure ran out: a call waited {@link EndpointConfig#slotTimeout()} for a free slot, a
 * send-queue credit or a write-with-imm credit and got none. Nothing of the call was posted. Wait
 * for outstanding operations, or configure more slots or a longer timeout.
 */
public final class EndpointBusyException extends EndpointException {
    /** An exception with a message. */
    public EndpointBusyException(String message) {
        super(message);
    }
}
