package io.slime4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.util.List;

/** Two connected queue pairs, {@link #a} (usually the requester) and {@link #b}, on two devices. */
final class QpPair {
    final Side a;
    final Side b;

    private QpPair(Side a, Side b) {
        this.a = a;
        this.b = b;
    }

    /** Connects two sides to each other (RESET → INIT → RTR → RTS on both). */
    static QpPair connect(Side a, Side b) {
        a.qp.connect(b.qp.localInfo());
        b.qp.connect(a.qp.localInfo());
        return new QpPair(a, b);
    }

    /**
     * One queue pair with its own send and receive completion queues, in a protection domain of a
     * device, plus registered buffers. Everything is tracked for closing after the test.
     */
    static final class Side {
        final VerbsDevice device;
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final QueuePair qp;
        private final TestResources resources;

        Side(TestResources resources, VerbsDevice device, ProtectionDomain pd, QpConfig config, int sendCqCapacity,
             int recvCqCapacity) {
            this.resources = resources;
            this.device = device;
            this.pd = pd;
            this.sendCq = resources.track(device, device.createCompletionQueue(sendCqCapacity));
            this.recvCq = resources.track(device, device.createCompletionQueue(recvCqCapacity));
            this.qp = resources.track(device, device.createQueuePair(pd, config, sendCq, recvCq));
        }

        /** A fresh zeroed buffer of {@code size} bytes registered with {@link AccessFlags#ALL}. */
        MemoryRegion region(long size) {
            return region(size, AccessFlags.ALL);
        }

        /** A fresh zeroed buffer of {@code size} bytes registered with {@code accessFlags}. */
        MemoryRegion region(long size, int accessFlags) {
            return register(resources.allocate(size), accessFlags);
        }

        /** Registers {@code segment} in this side's domain. */
        MemoryRegion register(MemorySegment segment, int accessFlags) {
            return resources.track(device, pd.register(segment, accessFlags));
        }

        void post(WorkRequest... requests) {
            for (WorkRequest wr : requests) {
                qp.postSend(wr);
            }
        }

        void postRecv(WorkRequest... requests) {
            for (WorkRequest wr : requests) {
                qp.postRecv(wr);
            }
        }

        /** Posts one (signaled) request and returns its completion, checking that it is this request's. */
        WorkCompletion run(WorkRequest wr) {
            qp.postSend(wr);
            WorkCompletion wc = Completions.take(sendCq, "completion of " + wr);
            assertThat(wc.wrId()).as("wrId of the completion of %s: %s", wr, wc).isEqualTo(wr.wrId());
            return wc;
        }

        /** As {@link #run}, and asserts success. */
        WorkCompletion runOk(WorkRequest wr) {
            WorkCompletion wc = run(wr);
            assertThat(wc.status()).as("status of %s", wc).isEqualTo(WcStatus.SUCCESS);
            return wc;
        }

        List<WorkCompletion> sendCompletions(int n) {
            return Completions.take(sendCq, n, "send completions of qp " + qp.qpn());
        }

        List<WorkCompletion> recvCompletions(int n) {
            return Completions.take(recvCq, n, "receive completions of qp " + qp.qpn());
        }

        WorkCompletion recvCompletion() {
            return Completions.take(recvCq, "a receive completion of qp " + qp.qpn());
        }

        /** A counter of this side's queue pair. */
        long qpCounter(Counter counter) {
            return qp.counters().get(counter);
        }

        /** A counter of this side's device. */
        long deviceCounter(Counter counter) {
            return device.counters().get(counter);
        }

        /** A soft engine protocol counter of this side's queue pair. */
        long qpCounter(io.slime4j.soft.SoftCounter counter) {
            return io.slime4j.soft.SoftCounters.of(qp).get(counter);
        }

        /** A soft engine protocol counter of this side's device. */
        long deviceCounter(io.slime4j.soft.SoftCounter counter) {
            return io.slime4j.soft.SoftCounters.of(device).get(counter);
        }
    }
}
