package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class OrderingChainTest {
    private final OpTracker tracker = new OpTracker("t", EndpointHooks.DEFAULT, Runnable::run);

    @Test
    void aGateHoldsOnEveryOpInTheChainAndOpensWhenTheLastOneSettles() {
        Ordering.Chain chain = new Ordering.Chain();
        OpState[] ops = new OpState[5];
        for (int i = 0; i < ops.length; i++) {
            ops[i] = tracker.newOp(OpKind.WRITE, 0);
            ops[i].orderedIn = chain;
            chain.add(ops[i]);
        }
        chain.remove(ops[2]); // from the middle
        chain.remove(ops[4]); // the head
        chain.remove(ops[4]); // not in any more: nothing
        AtomicInteger opened = new AtomicInteger();
        OrderGate gate = new OrderGate(1, failure -> opened.incrementAndGet());
        assertThat(chain.holdAll(gate)).isEqualTo(3);
        gate.release();
        for (int i : new int[] {0, 1, 3}) {
            assertThat(opened).hasValue(0);
            ops[i].partDone(); // settles: leaves the chain and releases the gate's hold
        }
        assertThat(opened).hasValue(1);
        assertThat(chain.isEmpty()).isTrue();
    }
}
