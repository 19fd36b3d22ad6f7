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

    /** {@link #preferredRequestBytes()} of a device that does not say: 1 MiB. */
    int DEFAULT_REQUEST_BYTES = 1 << 20;

    /**
     * How long a work request this device handles best, for a layer above that cuts long transfers
     * into requests (the endpoint's default {@code maxRequestBytes}). A preference, not a limit:
     * any request up to 2^31 - 1 bytes is valid. The software engine keeps the default of 1 MiB
     * (a request is a run of packets, and a shorter one lets several queue pairs take turns); the
     * shared-memory device does a request in one copy, which runs fastest whole.
     */
    default int preferredRequestBytes() {
        return DEFAULT_REQUEST_BYTES;
    }

    @Override
    void close();
}
