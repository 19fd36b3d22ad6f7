package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.shm.SharedMemory;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The endpoint runs unchanged on shm devices: the byte-exact transfer sizes (1 byte to 64 MiB, 1, 3
 * and 8 queue pairs), the invariants I1-I5 and the ABA stress run, each the very test the soft
 * engine passes, with its pairs opened on two shm devices of this JVM.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ShmEndpointTest {

    @ParameterizedTest(name = "qps {0}")
    @ValueSource(ints = {1, 3, 8})
    void everyOperationIsByteExactAtEverySizeOnShm(int qps) throws Exception {
        EndpointPair.onShm(() -> new TransferSizesTest().everyOperationIsByteExactAtEverySize(qps, false));
    }

    /** The same with the shm device's own request size (16 MiB): large ops in few, whole requests. */
    @Test
    void everyOperationIsByteExactAtEverySizeOnShmWithTheDevicesRequestSize() throws Exception {
        EndpointPair.onShm(() -> new TransferSizesTest().everyOperationIsByteExactAtEverySize(3, false, 0));
    }

    @Test
    void invariantsOneToFiveHoldOnShm() throws Exception {
        EndpointPair.onShm(() -> {
            InvariantTest.checkI1(EndpointHooks.DEFAULT);
            InvariantTest.checkI2(EndpointHooks.DEFAULT);
            InvariantTest.checkI3(EndpointHooks.DEFAULT);
            InvariantTest.checkI4(EndpointHooks.DEFAULT);
            InvariantTest.checkI5(EndpointHooks.DEFAULT);
        });
    }

    /**
     * Every way a helping waiter leaves the queue (its own completion, a cancellation, an interrupt, a
     * timeout) on shm, where a look that drives the device makes completions: whatever the helper
     * leaves, the dispatch thread completes later exchanges alone. Blocking and busy-polling devices.
     */
    @ParameterizedTest(name = "busy-poll {0}")
    @ValueSource(booleans = {false, true})
    void aHelpingWaiterLeavesTheQueueToTheDispatchThreadOnShm(boolean busyPoll) throws Exception {
        EndpointPair.Body body = () -> {
            HelpingWaiterTest t = new HelpingWaiterTest();
            t.aBlockedWaiterHandlesTheQueueAndGetsItsOwnCompletion();
            t.aHelperWokenByCancellationLeavesAndTheDispatchThreadCarriesOn();
            t.anInterruptedHelperThrowsAndLeavesTheQueueToTheDispatchThread();
            t.aTimedAwaitThatHelpsTimesOutAndTheOpGoesOn();
        };
        if (busyPoll) {
            EndpointPair.onBusyPollingShm(body);
        } else {
            EndpointPair.onShm(body);
        }
    }

    @Test
    void noFutureEverObservesAnotherOpsCompletionOnShm() throws Exception {
        EndpointPair.onShm(() -> new AbaStressTest().noFutureEverObservesAnotherOpsCompletion());
    }

    @Test
    void theStressTestStillCatchesSlotsReusedBeforeTheirLastCompletionOnShm() throws Exception {
        EndpointPair.onShm(() -> new AbaStressTest().theStressTestCatchesTheAbaHazard_slotsReusedBeforeTheirLastCompletion());
    }

    /**
     * A write or read into memory the peer exports is copied inside the post; the posting thread
     * then handles its completion itself ({@link RailDrain#beginPosting}), so the future is complete
     * when the call returns, without the dispatch thread. Fails if the completion is left to it.
     */
    @Test
    void aWriteOrReadIntoExportedMemoryIsCompleteWhenTheCallReturns() throws Exception {
        ShmDevice da = ShmDevice.open(ShmConfig.builder().name("inline-ep-a").build());
        ShmDevice db = ShmDevice.open(ShmConfig.builder().name("inline-ep-b").build());
        try (Arena arena = Arena.ofShared();
             RdmaEndpoint a = RdmaEndpoint.open(da, EndpointConfig.builder().name("inline-a").build());
             RdmaEndpoint b = RdmaEndpoint.open(db, EndpointConfig.builder().name("inline-b").build())) {
            MemorySegment src = SharedMemory.allocate(1 << 16, arena);
            MemorySegment dst = SharedMemory.allocate(1 << 16, arena);
            a.register("src", src);
            b.register("dst", dst);
            a.connect(EndpointInfo.fromJson(b.info().toJson()));
            b.connect(EndpointInfo.fromJson(a.info().toJson()));
            int writesDone = 0;
            int readsDone = 0;
            for (int i = 0; i < 200; i++) {
                src.set(ValueLayout.JAVA_INT, 0, i);
                TransferFuture w = a.write(Assignment.local("src", 0).remote("dst", 256L * (i % 64)).length(4096));
                writesDone += w.isDone() ? 1 : 0;
                assertThat(w.join(Duration.ofSeconds(10)).status()).isEqualTo(TransferStatus.SUCCESS);
                assertThat(dst.get(ValueLayout.JAVA_INT, 256L * (i % 64))).isEqualTo(i);
                TransferFuture r = a.read(Assignment.local("src", 8192).remote("dst", 256L * (i % 64)).length(64));
                readsDone += r.isDone() ? 1 : 0;
                assertThat(r.join(Duration.ofSeconds(10)).status()).isEqualTo(TransferStatus.SUCCESS);
                assertThat(src.get(ValueLayout.JAVA_INT, 8192)).isEqualTo(i);
            }
            // not every one: a request of the queue pair still outstanding (the endpoint's own, right
            // after connecting) sends the next through the ring; left to the dispatch thread, almost none
            assertThat(writesDone).as("writes complete when write returns, of 200").isGreaterThanOrEqualTo(180);
            assertThat(readsDone).as("reads complete when read returns, of 200").isGreaterThanOrEqualTo(180);
        } finally {
            da.close();
            db.close();
        }
    }

    /**
     * On shm a long write is one request (the device's {@link ShmDevice#preferredRequestBytes()},
     * one copy), complete when the call returns up to 4 MiB; an explicit {@code maxRequestBytes}
     * still cuts it. Fails if the endpoint keeps its own 1 MiB default, or leaves the completion of
     * a 4 MiB copy to the dispatch thread.
     */
    @Test
    void aLongWriteIsOneRequestOnShmUnlessTheSettingCutsIt() throws Exception {
        try (io.slime4j.verbs.VerbsDevice d = ShmDevice.open(ShmConfig.builder().name("probe").build())) {
            assertThat(d.preferredRequestBytes()).isEqualTo(16 << 20);
        }
        assertThat(writeRequests(0, 16 << 20)).as("requests of one 16 MiB write, device's size").isEqualTo(1);
        assertThat(writeRequests(1 << 20, 16 << 20)).as("requests of one 16 MiB write, maxRequestBytes 1 MiB")
                .isGreaterThanOrEqualTo(16);
    }

    /** The send requests device a posted for one write of {@code length} (median of 5), after checking its bytes. */
    private static long writeRequests(int maxRequestBytes, int length) throws Exception {
        ShmDevice da = ShmDevice.open(ShmConfig.builder().name("long-a").build());
        ShmDevice db = ShmDevice.open(ShmConfig.builder().name("long-b").build());
        try (Arena arena = Arena.ofShared();
             RdmaEndpoint a = RdmaEndpoint.open(da, EndpointConfig.builder().name("long-a").maxRequestBytes(maxRequestBytes).build());
             RdmaEndpoint b = RdmaEndpoint.open(db, EndpointConfig.builder().name("long-b").build())) {
            MemorySegment src = SharedMemory.allocate(length, arena);
            MemorySegment dst = SharedMemory.allocate(length, arena);
            a.register("src", src);
            b.register("dst", dst);
            a.connect(EndpointInfo.fromJson(b.info().toJson()));
            b.connect(EndpointInfo.fromJson(a.info().toJson()));
            long[] requests = new long[5];
            int doneAtReturn = 0;
            for (int i = 0; i < requests.length; i++) {
                src.fill((byte) (i + 1));
                long before = da.counters().get(io.slime4j.verbs.Counter.WR_POSTED);
                TransferFuture w = a.write(Assignment.local("src", 0).remote("dst", 0).length(length));
                doneAtReturn += w.isDone() ? 1 : 0;
                assertThat(w.join(Duration.ofSeconds(20)).status()).isEqualTo(TransferStatus.SUCCESS);
                requests[i] = da.counters().get(io.slime4j.verbs.Counter.WR_POSTED) - before;
                assertThat(dst.mismatch(src)).as("first differing byte").isEqualTo(-1L);
            }
            if (maxRequestBytes == 0 && length <= 4 << 20) {
                assertThat(doneAtReturn).as("writes complete when write returns, of 5").isGreaterThanOrEqualTo(4);
            }
            java.util.Arrays.sort(requests);
            return requests[requests.length / 2];
        } finally {
            da.close();
            db.close();
        }
    }

    /** A 4 MiB write, the largest whose completion the posting thread handles, is complete when write returns. */
    @Test
    void aFourMiBWriteIsCompleteWhenTheCallReturnsOnShm() throws Exception {
        assertThat(writeRequests(0, 4 << 20)).isEqualTo(1);
    }
}
