package io.slime4j.soft;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.wire.inproc.InprocWire;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: the completion ring of {@link SoftCompletionQueue}: {@code batch} pushes (as the progress
 * agent does) then one poll that drains them (as the application does), on one thread. The queue
 * and its queue pair are real, made by a {@link SoftDevice} on an {@link InprocWire} with no
 * traffic, so the agent never pushes into this queue meanwhile. Receive completions (ssn -1) are
 * pushed, so polling retires no send.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CompletionQueueJmh {
    @Param({"1", "16"})
    public int batch;

    private InprocWire wire;
    private SoftDevice device;
    private SoftCompletionQueue cq;
    private SoftQueuePair qp;
    private WorkCompletion[] into;
    private long id;

    @Setup(Level.Trial)
    public void setUp() {
        wire = new InprocWire();
        device = SoftDevice.open(wire, "jmh-cq", SoftConfig.builder().name("jmh-cq").build());
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue q = device.createCompletionQueue(1024);
        cq = (SoftCompletionQueue) q;
        qp = (SoftQueuePair) device.createQueuePair(pd, QpConfig.defaults(), q, q);
        into = WorkCompletion.array(64);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        device.close();
        wire.close();
    }

    @Benchmark
    public int pushThenPoll() {
        for (int i = 0; i < batch; i++) {
            cq.push(qp, -1, id++, WcStatus.SUCCESS, WcOpcode.RECV, 64, 0, false);
        }
        int n = cq.poll(into);
        if (n != batch) {
            throw new IllegalStateException("polled " + n + " of " + batch);
        }
        return n;
    }
}
