package io.slime4j.endpoint;

import io.slime4j.shm.SharedMemory;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.Wire;
import io.slime4j.wire.inproc.InprocWire;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: what one operation of each kind costs on the futures API of {@link RdmaEndpoint}, in time
 * and in allocation (run it with {@code -prof gc} and read {@code gc.alloc.rate.norm}: bytes
 * allocated per op, by every thread of the JVM, caller, dispatch threads and progress agents alike,
 * divided by the ops). Two endpoints in this JVM, each on {@code rails} soft devices, over the
 * in-process wire or UDP loopback ({@code wire}), or on {@code rails} shm devices ({@code shm}:
 * a write is one copy on the posting thread, which also handles its completion, so the figure is
 * the endpoint's and the device's own cost per op plus that copy). {@link #writeJoin} posts one 4 KiB write and
 * waits for it; {@link #writeWindow} keeps {@value #WINDOW} writes outstanding and waits for them
 * all, the figure being per write; {@link #readJoin} is a lone 4 KiB read. The two-sided cases
 * count two ops per invocation, the sender's and the receiver's: {@link #writeImmJoin} (a 4 KiB
 * write-with-imm and its {@code immRecv}), {@link #send32}, {@link #send1k} (eager messages) and
 * {@link #send64k} (a rendezvous message, above the default eager threshold), each a recv posted
 * first, then the send, both joined. The caller's batch lists are made once, so the figure is the
 * endpoint's own.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class EndpointAllocJmh {
    static final int WINDOW = 16;
    /** Bytes of each endpoint's buffer: the write window, and the largest message. */
    static final long BUFFER = Math.max(WINDOW * 4096L, 64 << 10);
    private static final Duration BOUND = Duration.ofSeconds(30);

    /** {@code inproc} or {@code udp} (soft devices), or {@code shm} (shm devices). */
    @Param({"inproc", "udp", "shm"})
    public String wire;

    /** Devices per endpoint, soft or shm as {@link #wire} says (one io queue pair each). */
    @Param({"1", "2"})
    public int rails;

    private final List<Wire> wires = new ArrayList<>();
    private final List<VerbsDevice> devices = new ArrayList<>();
    private Arena arena;
    private RdmaEndpoint a;
    private RdmaEndpoint b;
    private List<Assignment> one;
    private final List<List<Assignment>> windowBatches = new ArrayList<>();
    private final TransferFuture[] pending = new TransferFuture[WINDOW];

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        List<VerbsDevice> railsA = new ArrayList<>();
        List<VerbsDevice> railsB = new ArrayList<>();
        UdpWire udp = wire.equals("udp") ? new UdpWire() : null;
        if (udp != null) {
            wires.add(udp);
        }
        boolean shm = wire.equals("shm");
        for (int r = 0; r < rails && shm; r++) {
            railsA.add(ShmDevice.open(ShmConfig.builder().name("alloc-a" + r).build()));
            railsB.add(ShmDevice.open(ShmConfig.builder().name("alloc-b" + r).build()));
        }
        for (int r = 0; r < rails && !shm; r++) {
            Wire w = udp;
            String addrA = "udp:127.0.0.1:0";
            String addrB = "udp:127.0.0.1:0";
            if (udp == null) {
                InprocWire iw = new InprocWire();
                wires.add(iw);
                w = iw;
                addrA = "alloc-a" + r;
                addrB = "alloc-b" + r;
            }
            railsA.add(SoftDevice.open(w, addrA, SoftConfig.builder().name("alloc-a" + r).build()));
            railsB.add(SoftDevice.open(w, addrB, SoftConfig.builder().name("alloc-b" + r).build()));
        }
        devices.addAll(railsA);
        devices.addAll(railsB);
        EndpointConfig config = EndpointConfig.builder().qps(rails).build();
        a = RdmaEndpoint.open(railsA, config.toBuilder().name("alloc-a").build());
        b = RdmaEndpoint.open(railsB, config.toBuilder().name("alloc-b").build());
        arena = Arena.ofShared();
        // on shm the target must be memory the peer can map: the engine's shared memory
        a.register("buf", shm ? SharedMemory.allocate(BUFFER, arena) : arena.allocate(BUFFER, 4096));
        b.register("buf", shm ? SharedMemory.allocate(BUFFER, arena) : arena.allocate(BUFFER, 4096));
        a.connect(b.info());
        b.connect(a.info());
        one = List.of(Assignment.local("buf", 0).remote("buf", 0).length(4096));
        for (int i = 0; i < WINDOW; i++) {
            windowBatches.add(List.of(Assignment.local("buf", i * 4096L).remote("buf", i * 4096L).length(4096)));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        a.close();
        b.close();
        for (VerbsDevice d : devices) {
            d.close();
        }
        for (Wire w : wires) {
            w.close();
        }
        arena.close();
    }

    /** One write, then wait for it (join): the round trip of a lone write. */
    @Benchmark
    public TransferFuture writeJoin() {
        return a.write(one).join();
    }

    /** {@value #WINDOW} writes posted, then each joined: the figures are per write. */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public TransferFuture writeWindow() throws Exception {
        for (int i = 0; i < WINDOW; i++) {
            pending[i] = a.write(windowBatches.get(i));
        }
        TransferFuture last = null;
        for (int i = 0; i < WINDOW; i++) {
            last = pending[i].join(BOUND);
            pending[i] = null;
        }
        return last;
    }

    /** One 4 KiB read, then wait for it. */
    @Benchmark
    public TransferFuture readJoin() {
        return a.read(one).join();
    }

    /** A 4 KiB write-with-imm and the peer's {@code immRecv}: two ops, both joined. */
    @Benchmark
    @OperationsPerInvocation(2)
    public TransferFuture writeImmJoin() {
        TransferFuture r = b.immRecv();
        a.writeWithImm(one, 7).join();
        return r.join();
    }

    /** A 32 B eager message: the peer's recv posted first, then the send; two ops, both joined. */
    @Benchmark
    @OperationsPerInvocation(2)
    public TransferFuture send32() {
        return message(32);
    }

    /** A 1 KiB eager message, as {@link #send32}. */
    @Benchmark
    @OperationsPerInvocation(2)
    public TransferFuture send1k() {
        return message(1024);
    }

    /** A 64 KiB rendezvous message (above the default eager threshold), as {@link #send32}. */
    @Benchmark
    @OperationsPerInvocation(2)
    public TransferFuture send64k() {
        return message(64 << 10);
    }

    private TransferFuture message(int length) {
        TransferFuture r = b.recv("buf", 0, length);
        a.send("buf", 0, length).join();
        return r.join();
    }
}
