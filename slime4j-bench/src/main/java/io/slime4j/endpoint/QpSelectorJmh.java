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
 * JMH: the lane selection made per one-sided request through the public {@link QpSelector} SPI —
 * the built-in {@code round-robin} (SAR pinning: the first, a middle and the last segment of a
 * unit) and {@code striped} selectors.
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

    @Param({"round-robin", "striped"})
    public String selector;

    private QpSelector sel;
    private final java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong();

    @Setup
    public void setUp() {
        EndpointConfig config = EndpointConfig.builder().qps(qps).selector(selector).build();
        sel = config.selectorFactory().create(qps, config);
    }

    /** One whole unit: a write of one request. */
    @Benchmark
    public int selectWrite() {
        return sel.select(QpOpType.WRITE, ids.incrementAndGet(), qps);
    }

    /** A segmented unit of three requests: first, middle, last (pinned to one lane). */
    @Benchmark
    public int selectSegments() {
        long id = ids.incrementAndGet();
        return sel.select(QpOpType.SAR_FIRST, id, qps) + sel.select(QpOpType.SAR_MIDDLE, id, qps)
                + sel.select(QpOpType.SAR_LAST, id, qps);
    }

    @Benchmark
    @Threads(2)
    public int selectWriteTwoThreads() {
        return sel.select(QpOpType.WRITE, ids.incrementAndGet(), qps);
    }
}
