package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The built-in selectors, their names and their configuration, without an endpoint. */
@Timeout(60)
class QpSelectorTest {

    @Test
    void singleAlwaysAnswersLaneZero() {
        QpSelector s = QpSelector.single();
        for (QpOpType t : QpOpType.values()) {
            assertThat(s.select(t, 7, 64)).isZero();
            assertThat(s.stripeBytes(t, 1 << 30, 64)).isEqualTo(1 << 30);
        }
    }

    @Test
    void roundRobinKeepsControlOnLaneZeroAndDataOnTheOthersInTurn() {
        QpSelector s = QpSelector.roundRobin(false);
        for (QpOpType t : List.of(QpOpType.CONTROL, QpOpType.RENDEZVOUS_DATA, QpOpType.EAGER, QpOpType.ATOMIC)) {
            assertThat(s.select(t, 1, 4)).as("%s", t).isZero();
        }
        List<Integer> lanes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            lanes.add(s.select(i % 2 == 0 ? QpOpType.WRITE : QpOpType.READ, i, 4));
        }
        assertThat(lanes).containsExactly(1, 2, 3, 1, 2, 3);
        assertThat(s.select(QpOpType.WRITE, 9, 1)).as("one lane: everything on it").isZero();
        QpSelector all = QpSelector.roundRobin(true);
        assertThat(List.of(all.select(QpOpType.WRITE, 1, 3), all.select(QpOpType.WRITE, 2, 3),
                all.select(QpOpType.WRITE, 3, 3))).containsExactly(0, 1, 2);
    }

    @Test
    void roundRobinPinsTheSegmentsOfOneMessageToOneLaneWhileOthersInterleave() {
        RoundRobinSelector s = new RoundRobinSelector(false, RoundRobinSelector.DEFAULT_PIN_CAPACITY);
        int qps = 8;
        Map<Long, Integer> firstLane = new HashMap<>();
        // 20 messages of 5 segments, interleaved segment by segment, with single writes in between
        for (int seg = 0; seg < 5; seg++) {
            for (long m = 1; m <= 20; m++) {
                QpOpType t = seg == 0 ? QpOpType.SAR_FIRST : seg == 4 ? QpOpType.SAR_LAST : QpOpType.SAR_MIDDLE;
                int lane = s.select(t, m, qps);
                assertThat(lane).isBetween(1, qps - 1);
                Integer before = firstLane.putIfAbsent(m, lane);
                assertThat(before == null ? lane : before).as("segment %d of message %d", seg, m).isEqualTo(lane);
                s.select(QpOpType.WRITE, 1000 + m, qps);
            }
        }
        assertThat(firstLane.values()).as("messages are spread").hasSizeGreaterThan(1);
        assertThat(s.pinnedUnits()).as("every pin was dropped at its last segment").isZero();
    }

    @Test
    void thePinTableStaysBoundedAfterAHundredThousandMessagesFromSeveralThreads() throws Exception {
        RoundRobinSelector s = new RoundRobinSelector(false, RoundRobinSelector.DEFAULT_PIN_CAPACITY);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> split = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long base = t * 1_000_000L;
                split.add(pool.submit(() -> {
                    int splits = 0;
                    for (long m = base; m < base + 25_000; m++) {
                        int lane = s.select(QpOpType.SAR_FIRST, m, 16);
                        for (int k = 0; k < 3; k++) {
                            splits += s.select(QpOpType.SAR_MIDDLE, m, 16) == lane ? 0 : 1;
                        }
                        splits += s.select(QpOpType.SAR_LAST, m, 16) == lane ? 0 : 1;
                        if (s.pinnedUnits() > s.pinCapacity()) {
                            splits += 1_000_000;
                        }
                    }
                    return splits;
                }));
            }
            for (Future<Integer> f : split) {
                assertThat(f.get(60, TimeUnit.SECONDS)).as("segments that left their message's lane").isZero();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(s.pinnedUnits()).isZero();
        assertThat(s.evictedPins()).isZero();
    }

    @Test
    void abandonedMessagesCannotGrowThePinTableBeyondItsBound() {
        RoundRobinSelector s = new RoundRobinSelector(false, 16);
        for (long m = 0; m < 100_000; m++) {
            s.select(QpOpType.SAR_FIRST, m, 4); // never finished
        }
        assertThat(s.pinnedUnits()).isEqualTo(16);
        assertThat(s.evictedPins()).isEqualTo(100_000 - 16);
    }

    @Test
    void stripedCutsLargeUnitsIntoOneStripePerLaneAndLeavesSmallOnesWhole() {
        QpSelector s = QpSelector.striped(64 << 10);
        assertThat(s.stripeBytes(QpOpType.WRITE, 16 << 20, 4)).isEqualTo(4 << 20);
        assertThat(s.stripeBytes(QpOpType.WRITE, (16 << 20) + 1, 4)).isEqualTo((4 << 20) + 1); // ceil
        assertThat(s.stripeBytes(QpOpType.WRITE, 100 << 10, 4)).as("below twice the minimum").isEqualTo(100 << 10);
        assertThat(s.stripeBytes(QpOpType.WRITE, 200 << 10, 8)).as("never below the minimum").isEqualTo(64 << 10);
        assertThat(s.stripeBytes(QpOpType.WRITE, 16 << 20, 1)).isEqualTo(16 << 20);
        assertThat(s.select(QpOpType.CONTROL, 1, 4)).isZero();
        assertThat(List.of(s.select(QpOpType.WRITE, 1, 4), s.select(QpOpType.WRITE, 2, 4), s.select(QpOpType.WRITE, 3, 4),
                s.select(QpOpType.WRITE, 4, 4))).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThatThrownBy(() -> QpSelector.striped(0)).hasMessageContaining("minimum stripe");
    }

    @Test
    void builtInsAreChosenByNameAndUnknownNamesAreRefusedWithTheKnownOnes() {
        EndpointConfig c = EndpointConfig.builder().qps(4).build();
        assertThat(QpSelector.factory("single").create(4, c)).isSameAs(QpSelector.single());
        assertThat(QpSelector.factory("Round-Robin").create(4, c)).isInstanceOf(RoundRobinSelector.class);
        assertThat(QpSelector.factory(" striped ").create(4, c)).isInstanceOf(StripedSelector.class);
        assertThat(QpSelector.factory("round-robin-all").create(4, c).select(QpOpType.WRITE, 1, 4)).isZero();
        assertThatThrownBy(() -> QpSelector.factory("random")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown QP selector 'random'").hasMessageContaining("striped");
        assertThatThrownBy(() -> EndpointConfig.builder().selector("fastest")).hasMessageContaining("fastest");
    }

    @Test
    void theDefaultIsSingleForOneQpAndStripedForSeveral() {
        assertThat(EndpointConfig.defaults().selectorFactory().toString()).isEqualTo("single");
        assertThat(EndpointConfig.builder().qps(8).build().selectorFactory().toString()).isEqualTo("striped");
        EndpointConfig rr = EndpointConfig.builder().qps(8).selector("round-robin").build();
        assertThat(rr.selectorFactory().toString()).isEqualTo("round-robin");
        assertThat(rr.toBuilder().build()).isEqualTo(rr);
        assertThat(EndpointConfig.builder().selector("striped").selector("default").build().selector()).isNull();
    }

    @Test
    void qpsAndSelectorComeFromPropertiesOrTheEnvironmentAndAreClampedThere() {
        Map<String, String> env = Map.of("SLIME4J_ENDPOINT_QPS", "1000", "SLIME4J_ENDPOINT_SELECTOR", "round-robin",
                "SLIME4J_ENDPOINT_STRIPE_MIN_BYTES", "-5");
        EndpointConfig c = EndpointConfig.builder().apply(k -> null, env).build();
        assertThat(c.qps()).as("clamped to the maximum").isEqualTo(EndpointConfig.MAX_QPS);
        assertThat(c.stripeMinBytes()).as("clamped to the minimum").isEqualTo(1);
        assertThat(c.selectorFactory().toString()).isEqualTo("round-robin");
        EndpointConfig p = EndpointConfig.builder()
                .apply(k -> k.equals("slime4j.endpoint.qps") ? "0" : k.equals("slime4j.endpoint.selector") ? "striped" : null,
                        env).build();
        assertThat(p.qps()).isEqualTo(1);
        assertThat(p.selectorFactory().toString()).isEqualTo("striped");
        assertThatThrownBy(() -> EndpointConfig.builder().apply(k -> null, Map.of("SLIME4J_ENDPOINT_SELECTOR", "x")))
                .hasMessageContaining("unknown QP selector 'x'");
        // in code, out of range is an error
        assertThatThrownBy(() -> EndpointConfig.builder().qps(65).build()).hasMessageContaining("qps must be in 1..64");
        assertThatThrownBy(() -> EndpointConfig.builder().stripeMinBytes(0).build()).hasMessageContaining("stripeMinBytes");
    }
}
