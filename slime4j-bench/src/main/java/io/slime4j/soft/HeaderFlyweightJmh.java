package io.slime4j.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * JMH: encoding and decoding the 64-byte packet header with {@link HeaderFlyweight} (package-private,
 * hence this class lives in {@code io.slime4j.soft} on the benchmark module's class path). Encode
 * is what the requester does per packet of an RDMA_WRITE; decode is what the responder reads.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HeaderFlyweightJmh {
    private Arena arena;
    private final DataFrame header = new DataFrame();
    private int psn;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofConfined();
        MemorySegment packet = arena.allocate(HeaderFlyweight.HEADER_LENGTH + 4096, 64);
        header.wrap(packet).start(HeaderFlyweight.TYPE_WRITE, 0, 17, 0x1234_5678_9ABCL, 42);
        header.remoteAddress(0x7f00_0000_1000L).remoteKey(99).messageLength(4096);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public HeaderFlyweight encodeWrite() {
        header.start(HeaderFlyweight.TYPE_WRITE, 0, 17, 0x1234_5678_9ABCL, psn++);
        return header.remoteAddress(0x7f00_0000_1000L).remoteKey(99).messageLength(4096);
    }

    @Benchmark
    public long decodeWrite() {
        return header.version() + header.type() + header.flags() + header.destQpn() + header.token()
                + header.psn() + header.remoteAddress() + header.remoteKey() + header.messageLength();
    }

    @Benchmark
    public boolean validate() {
        return header.isWellFormed(HeaderFlyweight.HEADER_LENGTH + 4096);
    }
}
