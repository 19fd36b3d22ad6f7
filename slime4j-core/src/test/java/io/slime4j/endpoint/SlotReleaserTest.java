package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SlotReleaserTest {
    private final SlotReleaser releaser = new SlotReleaser(EndpointHooks.DEFAULT, new Stats(), null);
    private final SlotPool recvPool = new SlotPool("recv", 2, 1, 0);
    private final SlotPool sendPool = new SlotPool("send", 2, 1, 0);
    private final Unexpected unexpected = new Unexpected(8);

    @Test
    void aRecvSlotReleasedWithoutItsEagerArrivalIsNoLongerPending_soALaterMessageIsHeldNotMisdelivered()
            throws Exception {
        releaser.forgetOnRelease(recvPool, unexpected::forget);
        Slot recv = recvPool.acquire(TimeUnit.SECONDS.toNanos(1));
        recv.lease(null, 2, true);
        unexpected.post(recv, null); // message 0
        releaser.countDown(recvPool, recv, 2); // e.g. its meta was refused: released, no arrival
        assertThat(unexpected.pending()).isZero();
        Slot other = recvPool.acquire(TimeUnit.SECONDS.toNanos(1));
        assertThat(unexpected.arrive(1, Wire32.EAGER_DATA, null)).as("message 1 waits for its own recv").isNull();
        assertThat(other).isNotNull();
    }

    @Test
    void onlyTheRegisteredPoolsSlotsAreForgotten() throws Exception {
        releaser.forgetOnRelease(recvPool, unexpected::forget);
        Slot send = sendPool.acquire(TimeUnit.SECONDS.toNanos(1));
        send.lease(null, 1, true);
        unexpected.post(send, null);
        releaser.countDown(sendPool, send, 1);
        assertThat(unexpected.pending()).isEqualTo(1);
    }
}
