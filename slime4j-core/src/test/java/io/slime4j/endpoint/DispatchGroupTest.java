package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Many endpoints on one device per side, their completions handled by one shared thread per side. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DispatchGroupTest {
    private static final int PEERS = 6;
    private static final int BYTES = 64 * 1024;

    @Test
    void endpointsOfOneGroupShareOneDispatchThreadAndMoveBytesExactly() throws Exception {
        EndpointConfig config = EndpointConfig.builder().ioSlots(16).messageSlots(8).immWindow(16).build();
        try (InprocWire wire = new InprocWire();
             SoftDevice deviceA = SoftDevice.open(wire, "group-a", SoftConfig.defaults());
             SoftDevice deviceB = SoftDevice.open(wire, "group-b", SoftConfig.defaults());
             DispatchGroup groupA = DispatchGroup.create("ga");
             DispatchGroup groupB = DispatchGroup.create("gb");
             Arena arena = Arena.ofShared()) {
            List<RdmaEndpoint> as = new ArrayList<>();
            List<RdmaEndpoint> bs = new ArrayList<>();
            List<MemorySegment> segBs = new ArrayList<>();
            MemorySegment segA = arena.allocate(BYTES);
            for (int i = 0; i < BYTES; i++) {
                segA.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            }
            for (int p = 0; p < PEERS; p++) {
                RdmaEndpoint a = RdmaEndpoint.open(List.of(deviceA), config, groupA);
                RdmaEndpoint b = RdmaEndpoint.open(List.of(deviceB), config, groupB);
                a.register("kv", segA);
                MemorySegment segB = arena.allocate(2L * BYTES);
                b.register("kv", segB);
                a.connect(b.info());
                b.connect(a.info());
                as.add(a);
                bs.add(b);
                segBs.add(segB);
            }
            assertThat(groupA.members()).isEqualTo(PEERS);
            List<String> dispatchThreads = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .filter(n -> n.contains("-dispatch")).toList();
            assertThat(dispatchThreads).containsExactlyInAnyOrder("slime4j-ga-dispatch", "slime4j-gb-dispatch");

            List<TransferFuture> recvs = new ArrayList<>();
            List<TransferFuture> imms = new ArrayList<>();
            for (int p = 0; p < PEERS; p++) {
                recvs.add(bs.get(p).recv("kv", BYTES, BYTES));
                imms.add(bs.get(p).immRecv());
            }
            List<java.util.concurrent.CompletableFuture<TransferFuture>> views = new ArrayList<>();
            for (int p = 0; p < PEERS; p++) { // views: completed by the shared thread, nobody helps
                views.add(as.get(p).writeWithImm(List.of(Assignment.local("kv", 0).remote("kv", 0).length(BYTES)), 100 + p)
                        .toCompletableFuture());
                views.add(as.get(p).send("kv", 0, BYTES).toCompletableFuture());
            }
            for (var v : views) {
                assertThat(v.get(20, TimeUnit.SECONDS).status()).isEqualTo(TransferStatus.SUCCESS);
            }
            for (int p = 0; p < PEERS; p++) {
                assertThat(recvs.get(p).await(java.time.Duration.ofSeconds(10))).isEqualTo(TransferStatus.SUCCESS);
                assertThat(imms.get(p).await(java.time.Duration.ofSeconds(10))).isEqualTo(TransferStatus.SUCCESS);
                assertThat(imms.get(p).immediate()).isEqualTo(100 + p);
                assertThat(segBs.get(p).asSlice(0, BYTES).mismatch(segA)).isEqualTo(-1);
                assertThat(segBs.get(p).asSlice(BYTES, BYTES).mismatch(segA)).isEqualTo(-1);
            }
            for (int p = 0; p < PEERS; p++) {
                as.get(p).close();
                bs.get(p).close();
            }
            assertThat(groupA.members()).isZero();
            assertThat(groupB.members()).isZero();
        }
    }
}
