package io.slime4j.endpoint;

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

    @Test
    void noFutureEverObservesAnotherOpsCompletionOnShm() throws Exception {
        EndpointPair.onShm(() -> new AbaStressTest().noFutureEverObservesAnotherOpsCompletion());
    }

    @Test
    void theStressTestStillCatchesSlotsReusedBeforeTheirLastCompletionOnShm() throws Exception {
        EndpointPair.onShm(() -> new AbaStressTest().theStressTestCatchesTheAbaHazard_slotsReusedBeforeTheirLastCompletion());
    }
}
