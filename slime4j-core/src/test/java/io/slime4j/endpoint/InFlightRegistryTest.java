package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class InFlightRegistryTest {
    private final OpTracker tracker = new OpTracker("t", EndpointHooks.DEFAULT, Runnable::run);

    @Test
    void removedOpsLeaveAndTheirPlacesAreUsedAgainWithoutGrowingForever() {
        InFlightRegistry reg = new InFlightRegistry();
        List<OpState> ops = new ArrayList<>();
        for (int i = 0; i < 200; i++) { // past the first array's 64 places
            OpState op = tracker.newOp(OpKind.WRITE, 0);
            reg.add(op);
            ops.add(op);
        }
        assertThat(reg.size()).isEqualTo(200);
        for (int i = 0; i < 200; i += 2) {
            reg.remove(ops.get(i));
        }
        assertThat(reg.size()).isEqualTo(100);
        assertThat(reg.liveOps()).hasSize(100).allMatch(op -> op.seq % 2 == 0); // seq starts at 1
        for (int i = 0; i < 100; i++) {
            reg.add(tracker.newOp(OpKind.READ, 0));
        }
        assertThat(reg.size()).isEqualTo(200);
        assertThat(reg.liveOps()).hasSize(200);
        reg.remove(ops.get(1));
        reg.remove(ops.get(1)); // twice: the second is nothing
        assertThat(reg.size()).isEqualTo(199);
    }
}
