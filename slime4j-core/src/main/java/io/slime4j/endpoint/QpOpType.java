package io.slime4j.endpoint;

/**
 * What a work request is, as a {@link QpSelector} sees it: the input of every routing decision of
 * an {@link RdmaEndpoint}.
 *
 * <p>Which of the endpoint's traffic is which type:
 * <ul>
 *   <li>{@link #CONTROL}: rendezvous meta messages and imm-credit returns (the meta queue pair of
 *       lane 0);</li>
 *   <li>{@link #RENDEZVOUS_DATA}: the data of a {@code send}, written into the peer's buffer (the
 *       data queue pair of lane 0);</li>
 *   <li>{@link #EAGER}: a write-with-imm's immediate posted on its own (the fenced immediate of an op
 *       spread over several lanes, or the immediate of an empty batch): a small message carrying its
 *       payload inline;</li>
 *   <li>{@link #SAR_FIRST}, {@link #SAR_MIDDLE}, {@link #SAR_LAST}: the segments of one large
 *       one-sided transfer unit (an assignment, or a stripe of it) split at
 *       the request size ({@link EndpointConfig#maxRequestBytes()}, by default the device's); they share a message id;</li>
 *   <li>{@link #READ}, {@link #WRITE}: a one-sided unit that fits one request;</li>
 *   <li>{@link #ATOMIC}: reserved for atomics (the endpoint issues none yet).</li>
 * </ul>
 */
public enum QpOpType {
    /** Control-plane messages: rendezvous metas and credit returns. */
    CONTROL,
    /** A small message with its payload inline (a lone immediate). */
    EAGER,
    /** The first segment of a segmented unit. */
    SAR_FIRST,
    /** A segment between the first and the last. */
    SAR_MIDDLE,
    /** The last segment of a segmented unit. */
    SAR_LAST,
    /** Message data of a rendezvous send. */
    RENDEZVOUS_DATA,
    /** A one-sided read that fits one request. */
    READ,
    /** A one-sided write (or write-with-imm) that fits one request. */
    WRITE,
    /** An atomic operation (reserved). */
    ATOMIC;

    /** Whether this is a segment of a segmented unit. */
    public boolean isSegment() {
        return this == SAR_FIRST || this == SAR_MIDDLE || this == SAR_LAST;
    }

    /** Whether the endpoint carries this type on the message queue pairs of lane 0. */
    public boolean isMessagePath() {
        return this == CONTROL || this == RENDEZVOUS_DATA;
    }
}
