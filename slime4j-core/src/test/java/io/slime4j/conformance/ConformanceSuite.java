package io.slime4j.conformance;

import static io.slime4j.verbs.WcStatus.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.conformance.QpPair.Side;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

/**
 * The verbs contract, the same for every implementation and wire (docs/VERBS.md), split into
 * abstract suites along its sections; this is what they share: the {@link DeviceFixture} a suite
 * runs on, the resources of one test, and the ways to open devices, queue pairs and connected pairs
 * of them. Each suite has one subclass per device, in that device's package (for example
 * {@code io.slime4j.conformance.udp.UdpOrderingTest}); a device with injected faults (loss,
 * duplication, reordering) runs the same tests and proves the reliability protocol.
 *
 * <p>Every test opens its own devices (through the fixture) and closes them afterwards, queue pairs
 * before their completion queues, everything before its device. Buffers are off-heap memory of a
 * shared arena. Each test fails, rather than hangs, when the behaviour it names breaks: waits are
 * bounded ({@link Completions#PROGRESS_TIMEOUT} without progress) and every test has a
 * {@link Timeout}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class ConformanceSuite {
    protected static final int KIB = 1 << 10;
    protected static final int MIB = 1 << 20;
    /** Capacity of the suite's completion queues. */
    protected static final int CQ_CAPACITY = 4096;

    private static final AtomicInteger DEVICE_NUMBER = new AtomicInteger();

    private final DeviceFixture fixture;
    /** Everything this test opened; set before each test. */
    TestResources resources;

    protected ConformanceSuite(DeviceFixture fixture) {
        this.fixture = Objects.requireNonNull(fixture, "fixture");
    }

    @BeforeEach
    public final void openTestResources() {
        resources = new TestResources();
    }

    /** Closes what the test opened, then lets the fixture check and close what the devices shared. */
    @AfterEach
    @Timeout(30) // a class-level @Timeout does not cover lifecycle methods; closing must not hang either
    public final void closeTestResources() {
        try {
            resources.close();
            fixture.afterTest();
        } finally {
            fixture.close();
        }
    }

    /** The fixture's queue pair attributes, which every test starts from. */
    protected final QpConfig.Builder qpConfig() {
        return fixture.qpConfig();
    }

    /** Whether a waiting thread shows as running ({@link DeviceFixture#waitersLookRunnable}). */
    protected final boolean waitersLookRunnable() {
        return fixture.waitersLookRunnable();
    }

    /** Whether the fixture's wire loses, duplicates or reorders packets. */
    protected final boolean faultsInjected() {
        return fixture.faultsInjected();
    }

    /** Opens a device that is closed after the test. */
    protected final VerbsDevice device() {
        return resources.track(fixture.openDevice("conformance-" + DEVICE_NUMBER.incrementAndGet()));
    }

    /** A protection domain of {@code device}, closed after the test. */
    protected final ProtectionDomain domain(VerbsDevice device) {
        return resources.track(device, device.allocateProtectionDomain());
    }

    /** Zeroed memory of a shared arena (reachable by every thread), freed after the test. */
    protected final MemorySegment allocate(long size) {
        return resources.allocate(size);
    }

    /** Closes something after the test, before the devices opened earlier. */
    protected final <T extends AutoCloseable> T closeAfterTest(T resource) {
        return resources.track(resource);
    }

    final Side side(VerbsDevice device, ProtectionDomain pd, QpConfig config) {
        return new Side(resources, device, pd, config, CQ_CAPACITY, CQ_CAPACITY);
    }

    /** A queue pair on a new device of its own. */
    final Side side(QpConfig config) {
        VerbsDevice device = device();
        return side(device, domain(device), config);
    }

    /** Two connected queue pairs on two new devices, with the suite's defaults. */
    final QpPair pair() {
        return pair(qpConfig().build());
    }

    /** Two connected queue pairs on two new devices. */
    final QpPair pair(QpConfig config) {
        return QpPair.connect(side(config), side(config));
    }

    /** A queue pair connected to the fixture's unreachable address, where nothing answers. */
    final Side silentPeerSide(QpConfig config) {
        Side s = side(config);
        s.qp.connect(new QpInfo(fixture.unreachableAddress(), 1, 0, 0));
        return s;
    }

    static void assertCompletion(WorkCompletion wc, long wrId, WcStatus status, WcOpcode opcode) {
        assertThat(wc.wrId()).as("wrId of %s", wc).isEqualTo(wrId);
        assertThat(wc.status()).as("status of %s", wc).isEqualTo(status);
        assertThat(wc.opcode()).as("opcode of %s", wc).isEqualTo(opcode);
    }

    /** A successful receive completion; {@code immediate} null means none. */
    static void assertReceive(WorkCompletion wc, long wrId, WcOpcode opcode, long byteLength, Integer immediate,
                              Side receiver) {
        assertCompletion(wc, wrId, SUCCESS, opcode);
        assertThat((long) wc.byteLength()).as("byteLength of %s", wc).isEqualTo(byteLength);
        assertThat(wc.hasImmediate()).as("hasImmediate of %s", wc).isEqualTo(immediate != null);
        if (immediate != null) {
            assertThat(wc.immediate()).as("immediate of %s", wc).isEqualTo(immediate.intValue());
        }
        assertThat(wc.qpn()).as("qpn of %s", wc).isEqualTo(receiver.qp.qpn());
    }
}
