package io.slime4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.engine.directory.Directory;
import io.slime4j.engine.directory.FileDirectory;
import io.slime4j.shm.TransportChoice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engines in one process on the embedded directory: lazy connections by name, every op, failure
 * handling — through the shm device (auto, same host); {@link TransferEngineOverNetworkTest} runs
 * the same over UDP.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransferEngineTest {
    private static final int SIZE = 1 << 16;
    @TempDir
    Path folder;

    /** The transport every engine of the test uses: auto (shm, all engines being in this process) here. */
    TransportChoice transport() {
        return TransportChoice.AUTO;
    }

    private TransferEngine engine(String name, Directory dir) {
        TransferEngine e = TransferEngine.builder(name, dir).lease(Duration.ofSeconds(3))
                .connectTimeout(Duration.ofSeconds(3)).transport(transport()).start();
        assertThat(e.transportSetting()).isEqualTo(transport());
        return e;
    }

    private static MemorySegment pattern(Arena arena, int seed) {
        MemorySegment s = arena.allocate(SIZE);
        for (int i = 0; i < SIZE; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s;
    }

    private static void ok(TransferFuture f) throws Exception {
        assertThat(f.await(Duration.ofSeconds(20))).as(f.failureMessage()).isEqualTo(TransferStatus.SUCCESS);
    }

    @Test
    void enginesReachEachOtherByNameWithEveryOperationByteExact() throws Exception {
        try (Directory dir = new FileDirectory(folder);
             Arena arena = Arena.ofShared();
             TransferEngine a = engine("A", dir);
             TransferEngine b = engine("B", dir);
             TransferEngine c = engine("C", dir)) {
            MemorySegment srcA = pattern(arena, 1);
            MemorySegment srcC = pattern(arena, 3);
            MemorySegment dstB = arena.allocate(4L * SIZE);
            a.register("src", srcA);
            b.register("dst", dstB);
            c.register("src", srcC);
            assertThat(dir.list()).extracting(r -> r.name()).containsExactly("A", "B", "C");
            assertThat(dir.lookup("B").orElseThrow().regions()).containsEntry("dst", 4L * SIZE);

            ok(a.write("B", List.of(new Assignment("src", 0, "dst", 0, SIZE))));       // connects A-B lazily
            ok(c.write("B", List.of(new Assignment("src", 0, "dst", SIZE, SIZE))));    // C-B
            assertThat(dstB.asSlice(0, SIZE).mismatch(srcA)).isEqualTo(-1);
            assertThat(dstB.asSlice(SIZE, SIZE).mismatch(srcC)).isEqualTo(-1);
            PeerTransport expected = transport() == TransportChoice.NETWORK ? PeerTransport.NETWORK : PeerTransport.SHM;
            assertThat(a.transport("B")).contains(expected);
            long until = System.nanoTime() + 5_000_000_000L; // B records an accepted connection on its acceptor thread
            while (b.transport("C").isEmpty() && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertThat(b.transport("C")).contains(expected);

            MemorySegment back = arena.allocate(SIZE);
            a.register("back", back);                                                    // after connecting: pushed to B
            ok(b.write("A", List.of(new Assignment("dst", SIZE, "back", 0, SIZE))));    // B uses A's new region
            assertThat(back.mismatch(srcC)).isEqualTo(-1);
            MemorySegment readBack = arena.allocate(SIZE);
            c.register("read", readBack);
            ok(c.read("B", List.of(new Assignment("read", 0, "dst", 0, SIZE))));
            assertThat(readBack.mismatch(srcA)).isEqualTo(-1);

            TransferFuture recv = b.recv("A", "dst", 2L * SIZE, SIZE);
            TransferFuture imm = b.immRecv("C");
            ok(a.send("B", "src", 0, SIZE));
            ok(recv);
            ok(c.writeWithImm("B", List.of(new Assignment("src", 0, "dst", 3L * SIZE, SIZE)), 0xCAFE));
            ok(imm);
            assertThat(imm.immediate()).isEqualTo(0xCAFE);
            assertThat(dstB.asSlice(2L * SIZE, SIZE).mismatch(srcA)).isEqualTo(-1);
            assertThat(dstB.asSlice(3L * SIZE, SIZE).mismatch(srcC)).isEqualTo(-1);
            assertThat(b.connectedPeers()).containsExactly("A", "C");
        }
    }

    @Test
    void manyThreadsDialingEachOtherAtOnceShareOneConnectionPerPair() throws Exception {
        try (Directory dir = new FileDirectory(folder);
             Arena arena = Arena.ofShared()) {
            List<TransferEngine> engines = new ArrayList<>();
            List<MemorySegment> bufs = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    TransferEngine e = engine("E" + i, dir);
                    MemorySegment buf = arena.allocate(4L * 1024);
                    e.register("buf", buf);
                    engines.add(e);
                    bufs.add(buf);
                }
                for (int i = 0; i < 4; i++) { // one peer each first: every lazily started thread is running
                    ok(engines.get(i).write("E" + ((i + 1) % 4), List.of(new Assignment("buf", 0, "buf", 0, 8))));
                }
                List<String> before = platformThreads();
                List<Thread> ts = new ArrayList<>();
                List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
                for (int i = 0; i < 4; i++) {
                    for (int j = 0; j < 4; j++) {
                        if (i == j) {
                            continue;
                        }
                        int me = i;
                        int peer = j;
                        ts.add(Thread.ofPlatform().start(() -> {
                            try {
                                ok(engines.get(me).write("E" + peer, List.of(new Assignment("buf", 0, "buf",
                                        me * 1024L, 1024))));
                            } catch (Throwable t) {
                                errors.add(t);
                            }
                        }));
                    }
                }
                for (Thread t : ts) {
                    t.join();
                }
                assertThat(errors).isEmpty();
                for (TransferEngine e : engines) {
                    assertThat(e.connectedPeers()).hasSize(3);
                }
                assertThat(platformThreads()).as("threads with 3 peers each vs 1").hasSameSizeAs(before);
            } finally {
                engines.forEach(TransferEngine::close);
            }
        }
    }

    private static List<String> platformThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> !t.isVirtual() && t.isAlive())
                .map(Thread::getName).filter(n -> !n.startsWith("ForkJoinPool")).sorted().toList();
    }

    @Test
    void aRestartedPeerIsReachedInItsNewIncarnationWithoutAnyUserCall() throws Exception {
        try (Directory dir = new FileDirectory(folder);
             Arena arena = Arena.ofShared();
             TransferEngine a = engine("A", dir)) {
            a.register("src", pattern(arena, 5));
            MemorySegment dst1 = arena.allocate(SIZE);
            TransferEngine b1 = engine("B", dir);
            b1.register("dst", dst1);
            ok(a.write("B", List.of(new Assignment("src", 0, "dst", 0, SIZE))));
            long first = b1.incarnation();
            TransferFuture pending = a.recv("B", "src", 0, 16); // outstanding when B goes away
            b1.close();
            assertThat(pending.await(Duration.ofSeconds(10))).isNotEqualTo(TransferStatus.SUCCESS);

            MemorySegment dst2 = arena.allocate(SIZE);
            TransferEngine b2 = engine("B", dir);
            try {
                b2.register("dst", dst2);
                assertThat(b2.incarnation()).isNotEqualTo(first);
                long t0 = System.nanoTime();
                while (true) { // until A has seen the old connection end (its control channel closed)
                    try {
                        ok(a.write("B", List.of(new Assignment("src", 0, "dst", 0, SIZE))));
                        break;
                    } catch (PeerUnavailableException | AssertionError e) {
                        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(10));
                        Thread.sleep(50);
                    }
                }
                assertThat(dst2.mismatch(pattern(arena, 5))).isEqualTo(-1);
            } finally {
                b2.close();
            }
        }
    }

    @Test
    void anUnknownPeerOrAnUnreachableDirectoryFailsTheCallClearly() throws Exception {
        try (Directory dir = new FileDirectory(folder);
             Arena arena = Arena.ofShared();
             TransferEngine a = engine("A", dir)) {
            a.register("src", pattern(arena, 1));
            assertThatThrownBy(() -> a.write("nobody", List.of(new Assignment("src", 0, "dst", 0, 1))))
                    .isInstanceOf(PeerUnavailableException.class).hasMessageContaining("no engine 'nobody'")
                    .hasMessageContaining(dir.url());
            assertThatThrownBy(() -> a.write("A", List.of())).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> a.write("bad name", List.of())).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aPeerWhoseEndpointsDoNotFitRefusesTheDialSayingWhy() throws Exception {
        try (Directory dir = new FileDirectory(folder);
             Arena arena = Arena.ofShared();
             TransferEngine a = TransferEngine.builder("A", dir).connectTimeout(Duration.ofSeconds(3))
                     .endpointConfig(io.slime4j.endpoint.EndpointConfig.builder().qps(2).build()).start();
             TransferEngine b = engine("B", dir)) {
            a.register("src", pattern(arena, 1));
            b.register("dst", arena.allocate(SIZE));
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> a.write("B", List.of(new Assignment("src", 0, "dst", 0, 1))))
                    .isInstanceOf(PeerUnavailableException.class).hasMessageContaining("peer B refused the connection")
                    .hasMessageContaining("io queue pairs");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("refused at once, not after the connect timeout")
                    .isLessThan(Duration.ofSeconds(3));
        }
    }
}
