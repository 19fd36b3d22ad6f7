package io.slime4j.verbs;

/**
 * An RDMA-style device: the factory for protection domains, completion queues and queue pairs.
 * Closing a device moves its queue pairs to {@link QpState#ERR}, flushes them, and releases its
 * threads and sockets.
 */
public interface VerbsDevice extends AutoCloseable {

    /** A short name for logs and counters, unique in this JVM. */
    String name();

    /** The address peers use to reach this device (wire-specific text, e.g. {@code udp:10.0.0.1:4791}). */
    String address();

    /** Allocates a protection domain: the scope within which memory is registered and keys are valid. */
    ProtectionDomain allocateProtectionDomain();

    /**
     * Creates a completion queue holding up to {@code capacity} unpolled completions. A queue that
     * overflows enters an error state reported by {@link CompletionQueue#poll}.
     */
    CompletionQueue createCompletionQueue(int capacity);

    /** Creates a reliable-connected queue pair in state {@link QpState#RESET}. */
    QueuePair createQueuePair(ProtectionDomain pd, QpConfig config, CompletionQueue sendCq, CompletionQueue recvCq);

    /** Device-wide counters (packets, bytes, retransmits, drops, ...). */
    Counters counters();

    @Override
    void close();
}
