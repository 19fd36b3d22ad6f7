package io.slime4j.endpoint;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: leasing and releasing a pooled dispatch {@link Slot} through {@link SlotPool} (package-private,
 * hence this class lives in {@code io.slime4j.endpoint} on the benchmark module's class path):
 * uncontended on one thread, and contended by two threads as a caller and the dispatch thread
 * would be. Each lease also installs an op and counts its one completion down, as the endpoint does.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SlotPoolJmh {
    private SlotPool pool;
    private OpState op;

    @Setup(Level.Trial)
    public void setUp() {
        pool = new SlotPool("jmh", 256, 16, 0);
        op = new OpTracker("jmh", EndpointHooks.DEFAULT, Runnable::run).newOp(OpKind.WRITE, 4096);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
    }

    @Benchmark
    public Slot leaseRelease() throws InterruptedException {
        Slot s = pool.acquire(1_000_000_000L);
        s.lease(op, 1, true);
        if (s.countDown(1) && s.finish()) { // as SlotReleaser: last completion, then release
            s.clear();
            pool.release(s);
        }
        return s;
    }

    @Benchmark
    @Group("contended")
    @GroupThreads(2)
    public Slot leaseReleaseTwoThreads() throws InterruptedException {
        return leaseRelease();
    }
}
