package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two devices on the in-process wire that no thread drives: the test runs each one's duty cycle
 * ({@code doWork(now)}) itself with a clock it moves by assignment, so what happens when is
 * decided by the test, not by the scheduler.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class SoftDeviceDutyCycleTest {
    private static final Duration ACK_TIMEOUT = Duration.ofMillis(40);
    private static final int SIZE = 1000;

    private final InprocWire wire = new InprocWire();
    private final Arena arena = Arena.ofShared();
    private long now;
    private SoftDevice a;
    private SoftDevice b;
    private QueuePair qpA;
    private CompletionQueue cqA;
    private MemoryRegion source;
    private MemoryRegion target;

    @BeforeEach
    void connect() {
        a = SoftDevice.openUndriven(wire.bind("a"), SoftConfig.builder().name("duty-a").build());
        b = SoftDevice.openUndriven(wire.bind("b"), SoftConfig.builder().name("duty-b").build());
        now = System.nanoTime(); // the devices' timer wheels start at their construction
        QpConfig config = QpConfig.builder().ackTimeout(ACK_TIMEOUT).retryCount(3).build();
        ProtectionDomain pdA = a.allocateProtectionDomain();
        ProtectionDomain pdB = b.allocateProtectionDomain();
        cqA = a.createCompletionQueue(16);
        CompletionQueue cqB = b.createCompletionQueue(16);
        qpA = a.createQueuePair(pdA, config, cqA, cqA);
        QueuePair qpB = b.createQueuePair(pdB, config, cqB, cqB);
        ConnectedQueuePairs.connect(qpA, qpB);
        MemorySegment src = arena.allocate(SIZE);
        for (int i = 0; i < SIZE; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
        }
        source = pdA.register(src, AccessFlags.LOCAL_WRITE);
        target = pdB.register(arena.allocate(SIZE), AccessFlags.ALL);
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
        arena.close();
    }

    private void postWrite() {
        qpA.postSend(new WorkRequest().wrId(9).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(source, 0, SIZE).remote(target.address(), target.remoteKey()));
    }

    @Test
    void aPacketNobodyAcknowledgesIsProbedAfterTwoRoundTripsThenSentAgainWhenTheClockPassesTheRetransmitTimeout() {
        postWrite();
        a.doWork(now);
        assertThat(a.counters().get(Counter.PACKETS_SENT)).isEqualTo(1);

        now += 1_000_000; // b does not run: no ACK comes back
        a.doWork(now);
        assertThat(a.counters().get(Counter.RETRANSMITS)).as("before the tail-loss probe").isZero();

        now += 2_000_000; // two round trips (1 ms before any sample) and an ACK delay passed
        a.doWork(now);
        assertThat(a.counters().get(Counter.RETRANSMITS)).as("the tail-loss probe").isEqualTo(1);
        assertThat(a.counters().get(Counter.TIMEOUTS)).isZero();

        now += ACK_TIMEOUT.toNanos();
        a.doWork(now);
        assertThat(a.counters().get(Counter.TIMEOUTS)).as("the probe spent the first retry: twice the RTO").isZero();
        now += ACK_TIMEOUT.toNanos();
        a.doWork(now);
        assertThat(a.counters().get(Counter.TIMEOUTS)).isEqualTo(1);
        assertThat(a.counters().get(Counter.RETRANSMITS)).isEqualTo(2);

        b.doWork(now); // the original and the two copies arrive: the copies are duplicates
        assertThat(b.counters().get(Counter.DUPLICATES)).isEqualTo(2);
        assertThat(b.protocolCounters().get(SoftCounter.ACKS_SENT)).isEqualTo(1);
        a.doWork(now);

        WorkCompletion[] wc = WorkCompletion.array(4);
        assertThat(cqA.poll(wc)).isEqualTo(1);
        assertThat(wc[0].status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc[0].wrId()).isEqualTo(9);
        assertThat(target.segment().mismatch(source.segment())).as("the bytes arrived").isEqualTo(-1);
    }

    @Test
    void theLastPacketOfAWriteIsAcknowledgedAtOnceSoTheWriteCompletesWithoutTheAckDelay() {
        postWrite(); // one packet: the first and the last
        a.doWork(now);
        b.doWork(now);
        assertThat(b.counters().get(Counter.PACKETS_RECEIVED)).isEqualTo(1);
        assertThat(b.protocolCounters().get(SoftCounter.ACKS_SENT)).as("asked for at once (AckReq)").isEqualTo(1);
        a.doWork(now); // the clock has not moved: no delay was waited out
        WorkCompletion[] wc = WorkCompletion.array(4);
        assertThat(cqA.poll(wc)).isEqualTo(1);
        assertThat(wc[0].status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(a.counters().get(Counter.RETRANSMITS)).isZero();
    }

    @Test
    void aReadRequestAsksForNoAckItsResponseCarriesOne() {
        qpA.postSend(new WorkRequest().wrId(5).opcode(Opcode.RDMA_READ).signaled(true)
                .sge(source, 0, SIZE).remote(target.address(), target.remoteKey()));
        a.doWork(now);
        b.doWork(now);
        assertThat(b.protocolCounters().get(SoftCounter.ACKS_SENT)).as("the response carries the ACK").isZero();
        a.doWork(now);
        WorkCompletion[] wc = WorkCompletion.array(4);
        assertThat(cqA.poll(wc)).isEqualTo(1);
        assertThat(wc[0].status()).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void onceEverythingIsAcknowledgedADutyCycleReportsNoWorkSoThatTheAgentCanPark() {
        postWrite();
        for (int i = 0; i < 4; i++) {
            now += SoftConfig.defaults().ackDelay().toNanos();
            a.doWork(now);
            b.doWork(now);
        }
        assertThat(cqA.poll(WorkCompletion.array(4))).isEqualTo(1);
        now += 1_000;
        assertThat(a.doWork(now)).as("idle requester side").isZero();
        assertThat(b.doWork(now)).as("idle responder side").isZero();
        now += 10 * ACK_TIMEOUT.toNanos(); // no timer, probe or ACK refresh is left to fire
        assertThat(a.doWork(now)).isZero();
        assertThat(b.doWork(now)).isZero();
    }
}
