package io.slime4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.QpConfig;
import io.slime4j.wire.inproc.FaultConfig;
import io.slime4j.wire.inproc.FaultStats;
import io.slime4j.wire.inproc.InprocWire;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;

/**
 * The conformance suite on the in-process wire with 10% of datagrams dropped, 10% duplicated and
 * 10% reordered (seeded), in both directions, ACKs included. After each test the injected faults
 * must show in the wire's statistics.
 */
class InprocFaultsConformanceTest extends InprocConformanceTest {

    @Override
    protected InprocWire newWire() {
        return new InprocWire(FaultConfig.builder().seed(20261121)
                .dropRate(0.10).duplicateRate(0.10).reorderRate(0.10).build());
    }

    @Override
    protected QpConfig.Builder qpConfig() {
        return super.qpConfig().ackTimeout(Duration.ofMillis(40));
    }

    @Override
    protected boolean faultsInjected() {
        return true;
    }

    @AfterEach
    void faultsWereInjectedAndCounted() {
        FaultStats stats = wire.faultStats();
        if (stats.packetsSent() > 200) {
            assertThat(stats.dropped()).isPositive();
            assertThat(stats.duplicated()).isPositive();
            assertThat(stats.reordered()).isPositive();
        }
    }
}
