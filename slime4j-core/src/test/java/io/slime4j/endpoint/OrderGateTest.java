package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrderGateTest {
    private final List<String> runs = new ArrayList<>();

    private OrderGate gate(String name, int holds) {
        return new OrderGate(holds, failure -> runs.add(name + (failure == null ? "" : " after " + failure)));
    }

    @Test
    void theActionRunsOnceWhenTheLastHoldIsReleased() {
        OrderGate g = gate("g", 1);
        g.hold();
        g.hold();
        g.release();
        g.release();
        assertThat(runs).isEmpty();
        assertThat(g.fired()).isFalse();
        g.release();
        assertThat(runs).containsExactly("g");
        assertThat(g.fired()).isTrue();
        assertThatThrownBy(g::release).isInstanceOf(IllegalStateException.class);
        assertThat(runs).containsExactly("g");
    }

    @Test
    void theActionLearnsTheFirstFailureOfAnEarlierOp() {
        OrderGate g = gate("g", 3);
        g.releaseFailed("write op 1 failed");
        g.releaseFailed("write op 2 failed");
        g.release();
        assertThat(runs).containsExactly("g after write op 1 failed");
    }

    @Test
    void aChainedGateRunsOnlyAfterItsPredecessorEvenWhenItsOwnHoldsAreGoneFirst() {
        OrderGate first = gate("first", 1);
        OrderGate second = gate("second", 1);
        first.chain(second);
        second.release();
        assertThat(runs).isEmpty();
        first.release();
        assertThat(runs).containsExactly("first", "second");
    }

    @Test
    void chainingToAGateThatFiredAlreadyAddsNoWait() {
        OrderGate first = gate("first", 1);
        first.release();
        OrderGate second = gate("second", 1);
        first.chain(second);
        second.release();
        assertThat(runs).containsExactly("first", "second");
    }

    @Test
    void aSuccessorIsReleasedEvenWhenTheActionThrows() {
        OrderGate first = new OrderGate(1, f -> {
            throw new IllegalStateException("boom");
        });
        OrderGate second = gate("second", 1);
        first.chain(second);
        second.release();
        assertThatThrownBy(first::release).hasMessage("boom");
        assertThat(runs).containsExactly("second");
    }

    @Test
    void aLongChainOpensInOrderWithoutDeepeningTheStack() {
        int n = 200_000;
        int[] opened = new int[1];
        OrderGate first = new OrderGate(1, f -> opened[0]++);
        OrderGate prev = first;
        for (int i = 1; i < n; i++) {
            int expect = i;
            OrderGate g = new OrderGate(1, f -> assertThat(opened[0]++).isEqualTo(expect));
            prev.chain(g);
            g.release(); // its own hold gone: it waits only for its predecessor
            prev = g;
        }
        first.release();
        assertThat(opened[0]).isEqualTo(n);
        assertThat(prev.fired()).isTrue();
    }

    @Test
    void aFiredGateResetForItsSlotsNextSendHoldsAndChainsAsANewOne() {
        OrderGate g = gate("g", 1);
        OrderGate next = gate("next", 1);
        g.chain(next);
        g.releaseFailed("write op 1 failed");
        next.release();
        assertThat(runs).containsExactly("g after write op 1 failed", "next");
        g.reset(2);
        assertThat(g.fired()).as("a reset gate waits again").isFalse();
        OrderGate later = gate("later", 1);
        g.chain(later);
        later.release();
        g.release();
        assertThat(runs).as("nothing runs while a hold is left").hasSize(2);
        g.release();
        assertThat(runs).as("the earlier failure of its last use is forgotten; its new successor follows it")
                .containsExactly("g after write op 1 failed", "next", "g", "later");
    }

    @Test
    void aGateCannotBeResetBeforeItsActionRan() {
        OrderGate g = gate("g", 2);
        g.release();
        assertThatThrownBy(() -> g.reset(2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before its action ran");
        g.release();
        assertThat(runs).containsExactly("g");
    }
}
