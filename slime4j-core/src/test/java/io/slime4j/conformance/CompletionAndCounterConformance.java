package io.slime4j.conformance;

import static io.slime4j.conformance.Requests.recv;
import static io.slime4j.conformance.Requests.send;
import static io.slime4j.conformance.Requests.write;
import static io.slime4j.verbs.WcStatus.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.slime4j.conformance.QpPair.Side;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.CompletionQueueOverflowException;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WorkCompletion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Completion queues and counters: a completion queue that overflows says so instead of
 * dropping completions, {@code awaitReady} waits without polling, and the counters of devices and
 * queue pairs are readable and count the traffic.
 *
 * <p>Each device runs it through a subclass in its own package (see {@link DeviceFixture}).
 */
public abstract class CompletionAndCounterConformance extends ConformanceSuite {
    protected CompletionAndCounterConformance(DeviceFixture fixture) {
        super(fixture);
    }

    // ----------------------------------------------------------------------- completion queues

    @Test
    @Timeout(30)
    public void aCompletionQueueThatOverflowsSaysSoInsteadOfDroppingCompletions() {
        QpConfig config = qpConfig().build();
        VerbsDevice device = device();
        Side a = new Side(resources, device, domain(device), config, 4, CQ_CAPACITY);
        Side b = side(config);
        QpPair.connect(a, b);
        MemoryRegion src = a.region(16 * KIB);
        RemoteRegion remote = RemoteRegion.of(b.region(16 * KIB));
        CompletionQueue cq = a.sendCq;
        assertThat(cq.capacity()).as("capacity of a queue created for 4").isBetween(4, 15);

        int n = 16;
        for (int i = 0; i < n; i++) {
            a.post(write(i, src, i * KIB, KIB, remote, i * KIB));
        }
        Completions.awaitCondition(cq::isOverflowed, Duration.ofSeconds(10),
                "the completion queue of capacity " + cq.capacity() + " reporting overflow after " + n
                        + " completions");

        List<WorkCompletion> delivered = new ArrayList<>();
        CompletionQueueOverflowException overflow = null;
        WorkCompletion[] into = WorkCompletion.array(n);
        for (int attempt = 0; attempt <= n && overflow == null; attempt++) {
            try {
                int got = cq.poll(into);
                if (got == 0) {
                    fail("poll() returned 0 on an overflowed queue after %d completions instead of throwing",
                            delivered.size());
                }
                for (int i = 0; i < got; i++) {
                    delivered.add(new WorkCompletion().copyFrom(into[i]));
                }
            } catch (CompletionQueueOverflowException e) {
                overflow = e;
            }
        }
        assertThat(overflow).as("poll() on an overflowed queue once drained").isNotNull();
        assertThat(delivered).as("completions that fitted").hasSize(cq.capacity());
        for (int i = 0; i < delivered.size(); i++) {
            assertCompletion(delivered.get(i), i, SUCCESS, WcOpcode.RDMA_WRITE);
        }
        assertThat(cq.isOverflowed()).isTrue();
        Completions.awaitState(a.qp, QpState.ERR);
    }

    @Test
    @Timeout(30)
    public void awaitReadyWaitsForACompletionWithoutPollingIt() throws Exception {
        QpConfig config = qpConfig().build();
        Side a = side(config);
        Side b = side(config);
        QpPair.connect(a, b);
        MemoryRegion src = a.region(16 * KIB);
        RemoteRegion remote = RemoteRegion.of(b.region(16 * KIB));
        CompletionQueue cq = a.sendCq;
        assertThat(cq.awaitReady(1, TimeUnit.MILLISECONDS)).as("awaitReady on an empty queue").isFalse();
        assertThat(cq.awaitReady(0, TimeUnit.NANOSECONDS)).as("awaitReady(0) on an empty queue").isFalse();

        AtomicReference<Object> woke = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                woke.set(cq.awaitReady(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                woke.set(e);
            }
        });
        awaitWaiting(waiter, "the waiter blocked in awaitReady");
        a.post(write(7, src, 0, KIB, remote, 0));
        waiter.join(10_000);
        assertThat(woke.get()).as("what the blocked awaitReady returned once a completion arrived").isEqualTo(true);
        assertThat(cq.awaitReady(0, TimeUnit.NANOSECONDS)).as("still ready: awaitReady polled nothing").isTrue();
        WorkCompletion[] into = WorkCompletion.array(4);
        assertThat(cq.poll(into)).isEqualTo(1);
        assertCompletion(into[0], 7, SUCCESS, WcOpcode.RDMA_WRITE);

        AtomicReference<Object> interrupted = new AtomicReference<>();
        Thread second = Thread.ofPlatform().start(() -> {
            try {
                interrupted.set(cq.awaitReady(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                interrupted.set(e);
            }
        });
        awaitWaiting(second, "the second waiter blocked in awaitReady");
        second.interrupt();
        second.join(10_000);
        assertThat(interrupted.get()).as("an interrupted awaitReady").isInstanceOf(InterruptedException.class);
    }

    /** Waits until {@code waiter} is parked in awaitReady, or, where waiters look running (spinning, or in epoll), has run into it a while. */
    private void awaitWaiting(Thread waiter, String what) throws InterruptedException {
        if (waitersLookRunnable()) {
            Completions.awaitCondition(() -> waiter.getState() == Thread.State.RUNNABLE, Duration.ofSeconds(10), what);
            Thread.sleep(50); // in awaitReady by now (nothing else to run after its start)
            assertThat(waiter.isAlive()).as(what + ": still waiting").isTrue();
            return;
        }
        Completions.awaitCondition(() -> waiter.getState() == Thread.State.TIMED_WAITING, Duration.ofSeconds(10), what);
    }

    // -------------------------------------------------------------------------------- counters

    @Test
    @Timeout(30)
    public void countersAreReadableOnDevicesAndQueuePairsAndCountTheTraffic() {
        QpPair p = pair();
        MemoryRegion src = p.a.region(64 * KIB);
        MemoryRegion dst = p.b.region(64 * KIB);
        p.b.postRecv(recv(1, dst, 32 * KIB, 16 * KIB));
        long payload = 0;
        for (int i = 0; i < 3; i++) {
            p.a.runOk(write(i, src, i * 10 * KIB, 10 * KIB, RemoteRegion.of(dst), i * 10 * KIB));
            payload += 10 * KIB;
        }
        p.a.runOk(send(3, src, 0, 16 * KIB));
        payload += 16 * KIB;
        p.b.recvCompletion();

        for (Counters counters : List.of(p.a.device.counters(), p.b.device.counters(), p.a.qp.counters(),
                p.b.qp.counters())) {
            assertThat(counters.snapshot()).as("snapshot").containsOnlyKeys(Counter.values());
            assertThat(List.copyOf(counters.snapshot().keySet())).as("snapshot order (by id)")
                    .containsExactly(Counter.values());
            assertThat(counters.snapshot().values()).as("counter values")
                    .allSatisfy(v -> assertThat(v).isNotNegative());
        }
        for (int i = 1; i < Counter.values().length; i++) {
            assertThat(Counter.values()[i].id()).isGreaterThan(Counter.values()[i - 1].id());
        }
        assertThat(p.a.deviceCounter(Counter.PACKETS_SENT)).as("device packets sent").isGreaterThanOrEqualTo(4);
        assertThat(p.a.qpCounter(Counter.PACKETS_SENT)).as("queue pair packets sent").isGreaterThanOrEqualTo(4);
        assertThat(p.a.deviceCounter(Counter.BYTES_SENT)).as("device bytes sent").isGreaterThanOrEqualTo(payload);
        assertThat(p.a.qpCounter(Counter.BYTES_SENT)).as("queue pair bytes sent").isGreaterThanOrEqualTo(payload);
        assertThat(p.b.deviceCounter(Counter.PACKETS_RECEIVED)).as("peer packets received").isGreaterThanOrEqualTo(4);
        assertThat(p.b.deviceCounter(Counter.BYTES_RECEIVED)).as("peer bytes received").isGreaterThanOrEqualTo(payload);
        assertThat(p.a.qpCounter(Counter.WR_POSTED)).as("work requests posted").isGreaterThanOrEqualTo(4);
        assertThat(p.a.deviceCounter(Counter.COMPLETIONS_GENERATED)).as("completions generated")
                .isGreaterThanOrEqualTo(4);
        assertThat(p.a.deviceCounter(Counter.COMPLETIONS_POLLED)).as("completions polled").isGreaterThanOrEqualTo(4);
        assertThat(p.a.deviceCounter(Counter.AGENT_ERRORS)).as("progress agent errors").isZero();
        assertThat(p.b.deviceCounter(Counter.AGENT_ERRORS)).as("progress agent errors").isZero();
    }

    /**
     * A queue pair's counts stay in its device's totals after it is destroyed, those it makes
     * afterwards included (its flushed receive, polled once it is gone): device totals are summed
     * from the queue pairs' counts, and a destroyed one's move into the device's.
     */
    @Test
    @Timeout(30)
    public void aDestroyedQueuePairsCountsStayInItsDevicesTotals() throws Exception {
        QpPair p = pair();
        MemoryRegion src = p.a.region(16 * KIB);
        MemoryRegion dst = p.b.region(16 * KIB);
        for (int i = 0; i < 3; i++) {
            p.a.runOk(write(i, src, i * KIB, KIB, RemoteRegion.of(dst), i * KIB));
        }
        p.b.postRecv(recv(9, dst, 0, KIB)); // never matched: flushed when the queue pair fails
        long posted = p.a.deviceCounter(Counter.WR_POSTED);
        long sent = p.a.deviceCounter(Counter.BYTES_SENT);
        long recvPosted = p.b.deviceCounter(Counter.RECV_WR_POSTED);
        long received = p.b.deviceCounter(Counter.BYTES_RECEIVED);
        long polledBefore = p.b.deviceCounter(Counter.COMPLETIONS_POLLED);
        assertThat(posted).as("writes posted on a's device").isGreaterThanOrEqualTo(3);
        assertThat(sent).as("bytes sent on a's device").isGreaterThanOrEqualTo(3 * KIB);

        p.b.qp.modifyToError();
        p.b.qp.close();
        p.a.qp.close();
        Thread.sleep(50); // long enough for the devices to retire both in most runs; right either way
        WorkCompletion flushed = p.b.recvCompletion(); // polled after its queue pair was destroyed
        assertThat(flushed.wrId()).isEqualTo(9);

        assertThat(p.a.deviceCounter(Counter.WR_POSTED)).as("a's device: writes posted, after the destroy")
                .isEqualTo(posted);
        assertThat(p.a.deviceCounter(Counter.BYTES_SENT)).as("a's device: bytes sent, after the destroy")
                .isGreaterThanOrEqualTo(sent);
        assertThat(p.b.deviceCounter(Counter.RECV_WR_POSTED)).as("b's device: receives posted, after the destroy")
                .isEqualTo(recvPosted);
        assertThat(p.b.deviceCounter(Counter.BYTES_RECEIVED)).as("b's device: bytes received, after the destroy")
                .isGreaterThanOrEqualTo(received);
        assertThat(p.b.deviceCounter(Counter.COMPLETIONS_POLLED)).as("b's device: the flush polled after the destroy")
                .isEqualTo(polledBefore + 1);
        assertThat(p.b.qp.counters().get(Counter.COMPLETIONS_POLLED)).as("b's queue pair, polled, in its own view")
                .isGreaterThanOrEqualTo(1);
        assertThat(p.b.deviceCounter(Counter.COMPLETIONS_GENERATED)).as("b's device: generated >= polled")
                .isGreaterThanOrEqualTo(p.b.deviceCounter(Counter.COMPLETIONS_POLLED));
    }
}
