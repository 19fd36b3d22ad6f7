package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A responder's turn (it runs under the device's progress lock) ends after 64 requests or after the
 * device's preferred request size in bytes, whichever comes first; the request that passes the
 * byte bound still runs whole.
 */
class ResponderTurnTest {

    @Test
    void aTurnEndsAfter64RequestsOr16MiB() {
        assertThat(Responder.TURN_BYTES).as("the device's preferred request size").isEqualTo(ShmDevice.PREFERRED_REQUEST_BYTES);
        assertThat(Responder.mayContinue(0, 0)).isTrue();
        assertThat(Responder.mayContinue(63, 1024)).as("small requests: 64 of them").isTrue();
        assertThat(Responder.mayContinue(64, 1024)).isFalse();
        assertThat(Responder.mayContinue(1, (16 << 20) - 1)).as("below 16 MiB").isTrue();
        assertThat(Responder.mayContinue(1, 16 << 20)).as("one request of 16 MiB is a turn").isFalse();
        assertThat(Responder.mayContinue(2, 24 << 20)).as("a request that passed the bound ran whole").isFalse();
    }
}
