package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class IoPlanPoolTest {
    @Test
    void aPlanGivenBackIsTakenAgain_andAnEmptyPoolMakesANewOne() {
        IoPlanPool pool = new IoPlanPool(null, 2, 4);
        IoPlan a = pool.take();
        IoPlan b = pool.take();
        assertThat(a).isNotSameAs(b);
        a.recycle();
        assertThat(pool.spare()).isEqualTo(1);
        assertThat(pool.take()).isSameAs(a);
        assertThat(pool.spare()).isZero();
    }

    @Test
    void aFullPoolLeavesAReturnedPlanToTheCollector() {
        IoPlanPool pool = new IoPlanPool(null, 1, 2);
        IoPlan[] plans = {pool.take(), pool.take(), pool.take()};
        for (IoPlan p : plans) {
            p.recycle();
        }
        assertThat(pool.spare()).isEqualTo(2);
    }

    @Test
    void theWritesOfAnEndpointReuseTheirPlansOnceTheySettle() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 20)) {
            IoPlan first = null;
            int reused = 0;
            for (int i = 0; i < 50; i++) {
                TransferFuture w = p.a.write(Assignment.local("kv", i * 64L).remote("kv", i * 64L).length(64));
                IoPlan plan = w.op().plan; // null once it settled
                w.join(Duration.ofSeconds(10));
                assertThat(w.op().plan).as("a settled op lets go of its plan").isNull();
                if (plan != null && first == null) {
                    first = plan;
                } else if (plan != null && plan == first) {
                    reused++;
                }
            }
            assertThat(reused).as("writes planned with a plan an earlier settled write gave back").isPositive();
            p.awaitIdle(Duration.ofSeconds(5));
            p.assertClean();
        }
    }
}
