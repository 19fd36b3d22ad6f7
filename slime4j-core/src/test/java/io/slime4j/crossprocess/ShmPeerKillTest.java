package io.slime4j.crossprocess;

import io.slime4j.verbs.QpConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * SIGKILL of the peer process on the shm device: its pidfd becomes readable at once, so every
 * outstanding request fails (the oldest RETRY_EXC_ERR, the rest flushed) within a second or so,
 * not after the retry budget. The peer's regions are private memory: into {@link
 * io.slime4j.shm.SharedMemory} on both sides the requester copies every write itself inside
 * {@code postSend} (docs/SHM.md, "Who copies"), so nothing would be outstanding at the peer when
 * it is killed; private target memory keeps the writes in the ring for the peer's responder.
 */
class ShmPeerKillTest extends PeerKillTest {
    @Override
    protected String[] peerOptions(String... base) {
        return Stream.concat(Arrays.stream(base), Stream.of("--device", "shm"))
                .toArray(String[]::new);
    }

    @Override
    protected LocalSide newLocalSide(String name, QpConfig qp) {
        return LocalSide.shm(name, qp, true);
    }

    /**
     * The default 100 ms: the kill is seen through the pidfd, not the retry budget, so a short ACK
     * timeout would only fail healthy requests on a starved machine before the kill.
     */
    @Override
    protected Duration ackTimeout() {
        return QpConfig.defaults().ackTimeout();
    }

    @Override
    protected Duration failureBound(Duration retryBudget) {
        return Duration.ofSeconds(3); // the pidfd check runs every millisecond; 3 s absorbs a loaded machine
    }
}
