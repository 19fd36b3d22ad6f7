package io.slime4j.conformance;

import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.VerbsDevice;
import java.time.Duration;

/**
 * How the conformance suites reach one kind of device (an engine on a wire, with or without
 * injected faults): the only thing a device must supply to run the verbs contract. Every suite takes
 * one in its constructor and asks it for devices; the suite then creates domains, completion queues
 * and queue pairs on them through the verbs API and connects them with {@code QueuePair.connect}.
 *
 * <p>One instance serves one test: it is created with the test instance, and after the test, once
 * the suite has closed every device it opened, {@link #afterTest} and then {@link #close} run.
 *
 * <p>A new device plugs in with a package of its own under {@code io.slime4j.conformance} holding
 * an implementation of this interface and one subclass per suite, each a constructor that passes a
 * new fixture (see {@code io.slime4j.conformance.udp}); {@link SuiteCoverageTest} fails if a suite
 * is missing there.
 */
public interface DeviceFixture extends AutoCloseable {

    /**
     * Opens a device. Every device opened through one fixture must be able to reach every other
     * one. The suite closes it after the test.
     */
    VerbsDevice openDevice(String name);

    /** The address of a device where nothing answers (packets sent there vanish). */
    String unreachableAddress();

    /**
     * Queue pair attributes every test starts from (tests change only what they are about).
     * Fixtures with injected faults may lengthen the timeouts.
     */
    default QpConfig.Builder qpConfig() {
        return QpConfig.builder()
                .ackTimeout(Duration.ofMillis(20))
                .retryCount(7)
                .rnrTimer(Duration.ofMillis(1));
    }

    /**
     * Whether the devices' wire loses, duplicates or reorders packets. When true, tests that would
     * assert "no retransmission" skip that check, and the bulk test asserts that retransmissions and
     * duplicates did happen.
     */
    default boolean faultsInjected() {
        return false;
    }

    /**
     * Whether a thread waiting on a completion queue shows as {@code RUNNABLE} rather than parked:
     * it spins driving the device itself (a busy-polling device's waiters), or blocks in a native
     * call on the device's sockets (a default soft device's on the native UDP backend, which the
     * JVM reports as running). Tests that watch a waiter park then watch it run instead.
     */
    default boolean waitersLookRunnable() {
        return false;
    }

    /**
     * Asserts what the fixture itself promises once a test's devices are closed (a faulty wire: that
     * its faults happened and were counted). Nothing by default.
     */
    default void afterTest() {}

    /** Releases what the devices shared (a wire), after {@link #afterTest}, even if it failed. */
    @Override
    default void close() {}
}
