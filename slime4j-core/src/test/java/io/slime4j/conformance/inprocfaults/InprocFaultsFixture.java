package io.slime4j.conformance.inprocfaults;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.conformance.inproc.InprocFixture;
import io.slime4j.verbs.QpConfig;
import io.slime4j.wire.inproc.FaultConfig;
import io.slime4j.wire.inproc.FaultStats;
import io.slime4j.wire.inproc.InprocWire;
import java.time.Duration;

/**
 * Soft-engine devices on an in-process wire that drops 10% of datagrams, duplicates 10% and
 * reorders 10% (seeded), in both directions, ACKs included. After each test the injected faults
 * must show in the wire's statistics.
 */
public class InprocFaultsFixture extends InprocFixture {

    public InprocFaultsFixture() {
        super(new InprocWire(FaultConfig.builder().seed(20261121)
                .dropRate(0.10).duplicateRate(0.10).reorderRate(0.10).build()));
    }

    @Override
    public QpConfig.Builder qpConfig() {
        return super.qpConfig().ackTimeout(Duration.ofMillis(40));
    }

    @Override
    public boolean faultsInjected() {
        return true;
    }

    /** Faults were injected and counted (when the test sent enough datagrams to expect each kind). */
    @Override
    public void afterTest() {
        FaultStats stats = wire.faultStats();
        if (stats.packetsSent() > 200) {
            assertThat(stats.dropped()).isPositive();
            assertThat(stats.duplicated()).isPositive();
            assertThat(stats.reordered()).isPositive();
        }
    }
}
