package io.slime4j.endpoint;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: the io queue pair selection made per one-sided request. Today that is the package-private
 * {@link QpRouter#roundRobin}; when it becomes the public {@code QpSelector} SPI, only
 * {@link #setUp} and {@link #select} change (make the selector there and call it here).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class QpSelectorJmh {
    @Param({"1", "4"})
    public int qps;

    private QpRouter router;

    @Setup
    public void setUp() {
        router = QpRouter.roundRobin(qps);
    }

    @Benchmark
    public int select() {
        return router.select(OpKind.WRITE, 4096);
    }

    @Benchmark
    @Threads(2)
    public int selectTwoThreads() {
        return router.select(OpKind.WRITE, 4096);
    }
}
