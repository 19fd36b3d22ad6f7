package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import static io.slime4j.soft.OutboundHarness.psn;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Loss recovery driven packet by packet with a clock the test sets: no device, socket or thread. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LossRecoveryTest {
    private final OutboundHarness h = new OutboundHarness();

    @Test
    void aCumulativeAckRetiresEverySegmentBeforeItAcrossThePsnWrap() {
        h.send(8, 1_000);
        h.now += 100_000;
        h.loss.onAck(h.ack(6), h.now, h.responses);

        assertThat(h.stream.una()).isEqualTo(psn(6));
        assertThat(h.stream.pipe()).as("two still on the wire").isEqualTo(2);
        assertThat(h.stream.at(psn(5)).acked).isTrue();
        assertThat(h.stream.at(psn(5)).isScheduled()).as("its timer is cancelled").isFalse();
        assertThat(h.count(SoftCounter.ACKS_RECEIVED)).isEqualTo(1);
        assertThat(h.congestion.window()).as("slow start: one packet per packet acked").isEqualTo(32 + 6);
    }

    @Test
    void anAckForWhatWasNeverSentOrAlreadyAckedChangesNothing() {
        h.send(4, 1_000);
        h.loss.onAck(h.ack(2), h.now, h.responses);
        h.loss.onAck(h.ack(1), h.now, h.responses); // reordered, older
        h.loss.onAck(h.ack(9), h.now, h.responses); // beyond what was sent

        assertThat(h.stream.una()).isEqualTo(psn(2));
        assertThat(h.count(SoftCounter.ACKS_RECEIVED)).isEqualTo(1);
    }

    @Test
    void aHoleIsResentOnceLaterSegmentsSentAReorderWindowAfterItAreSacked() {
        h.send(); // psn 0, lost
        h.now += 200_000; // the next ones leave 200 us later: more than the 50 us reordering window
        h.send(5, 1_000);
        h.loss.onAck(h.ack(0, 1, 2, 3, 4, 5), h.now, h.responses);

        assertThat(h.stream.at(psn(1)).sacked).isTrue();
        assertThat(h.stream.pipe()).as("SACKed segments left the pipe, and so did the lost one").isZero();
        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).isEqualTo(1);
        assertThat(h.sendRetransmits()).as("exactly the hole is resent").isEqualTo(1);
        assertThat(h.stream.at(psn(0)).retransmitted).isTrue();
        assertThat(h.congestion.window()).as("halved once on loss").isEqualTo(16);
        assertThat(h.congestion.inRecovery()).isTrue();

        h.now += 100_000;
        h.loss.onAck(h.ack(6), h.now, h.responses);
        assertThat(h.stream.isEmpty()).isTrue();
        assertThat(h.congestion.inRecovery()).as("recovery ends once everything then in flight is acked").isFalse();
    }

    @Test
    void onAPathNotSeenToReorderAHoleWithThreeLaterSegmentsSackedIsLostAtOnceEvenInTheSameBurst() {
        h.send(6, 0); // one duty cycle's burst: one send time, told apart by PSN
        h.now += 30_000;
        h.loss.onAck(h.ack(0, 2, 3), h.now, h.responses);
        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).as("two SACKed: below the duplicate threshold").isZero();

        h.loss.onAck(h.ack(0, 2, 3, 4), h.now, h.responses);
        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).as("three SACKed beyond the hole: 0 and 1 are lost")
                .isEqualTo(2);
        assertThat(h.stream.at(psn(5)).queuedForRetransmit).as("sent after every delivered one: not judged").isFalse();
    }

    @Test
    void onceThePathReorderedReorderingWithinTheWindowIsNotTakenForLossAndTheWindowThenRuns() {
        h.send(3, 1_000);
        h.now += 30_000;
        h.loss.onAck(h.ack(0, 1, 2), h.now, h.responses); // 0 overtaken by 1 and 2...
        h.loss.onAck(h.ack(3), h.now, h.responses); // ...and then delivered: the path reorders
        h.send(6, 1_000); // all within 6 us
        h.now += 30_000;
        h.loss.onAck(h.ack(3, 5, 6, 7, 8), h.now, h.responses); // 3 and 4 overtaken

        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).as("within the 50 us window").isZero();
        h.now += ReorderWindow.MIN_NANOS;
        h.loss.onDutyCycle(h.now);
        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).as("a round trip and the window passed").isEqualTo(2);
        assertThat(h.sendRetransmits()).isEqualTo(2);
    }

    @Test
    void reorderingOfSegmentsSentTogetherWithFewSackedIsNotTakenForLoss() {
        h.send(6, 1_000);
        h.loss.onAck(h.ack(0, 4, 5), h.now, h.responses); // two overtook the rest: not yet a loss

        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).isZero();
        h.loss.onAck(h.ack(6), h.now, h.responses);
        assertThat(h.stream.isEmpty()).isTrue();
        assertThat(h.congestion.window()).as("no reduction").isGreaterThan(32);
    }

    @Test
    void aResentHoleAckedTogetherWithTheOriginalsAfterItIsNoSignOfReordering() {
        h.send(10, 0);
        h.now += 30_000;
        h.loss.onAck(h.ack(0, 1, 2, 3), h.now, h.responses);
        assertThat(h.sendRetransmits()).as("0 lost: three SACKed beyond it").isEqualTo(1);
        h.now += 30_000;
        h.loss.onAck(h.ack(10), h.now, h.responses); // 0's copy and 4..9 in one cumulative ACK

        assertThat(h.loss.reorderingSeen()).as("each delivery came in PSN order").isFalse();
    }

    @Test
    void aHoleResentInTheSameBurstAsNewSegmentsIsNotJudgedLostAgainWhenTheyArrive() {
        h.send(10, 0);
        h.now += 30_000;
        h.loss.onAck(h.ack(0, 1, 2, 3), h.now, h.responses);
        h.send(5, 0); // new segments 10..14, then the resend of 0, all at one clock reading
        h.sendRetransmits();
        h.now += 30_000;
        h.loss.onAck(h.ack(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14), h.now, h.responses);

        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).as("the copy of 0 left after 14: not judged by it")
                .isEqualTo(1);
    }

    @Test
    void theDeliveryOfATailProbeCondemnsEverySegmentSentBeforeIt() {
        h.send(20, 1_000);
        h.now += 100_000;
        h.loss.onAck(h.ack(10), h.now, h.responses); // 10..19 lost, nothing SACKed
        h.now += 2 * (long) h.loss.rtt().srtt() + OutboundHarness.ACK_DELAY + 1;
        h.loss.onDutyCycle(h.now);
        assertThat(h.stream.at(psn(19)).queuedForRetransmit).as("the probe: the last segment").isTrue();
        assertThat(h.sendRetransmits()).isEqualTo(1);

        h.now += 200_000;
        h.loss.onAck(h.ack(10, 19), h.now, h.responses); // the probe arrived alone
        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).as("10..18 were sent before the probe").isEqualTo(9);
        assertThat(h.sendRetransmits()).isEqualTo(9);
    }

    @Test
    void theDeliveryOfAResentHoleCondemnsTheSegmentsSentBeforeItAboveTheHighestSack() {
        h.send(20, 1_000);
        h.now += 100_000;
        h.loss.onAck(h.ack(0, 1, 2, 3), h.now, h.responses); // 0 lost (three SACKed beyond); 4..19 too, unseen yet
        assertThat(h.sendRetransmits()).isEqualTo(1);
        h.now += 200_000;
        h.loss.onAck(h.ack(4), h.now, h.responses); // 0's copy arrived, nothing beyond 3 did

        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).as("0, then 4..19: sent before 0's copy")
                .isEqualTo(1 + 16);
    }

    @Test
    void aDuplicateAckResendsTheHoleOnceASegmentSentAfterItWasDelivered() {
        h.send();
        h.now += 500_000; // more than the reordering window (a quarter of the smoothed RTT, about 1 ms)
        h.send(3, 1_000);
        h.now += 10_000;
        h.loss.onAck(h.ack(0), h.now, h.responses); // duplicate: nothing new, no SACK yet
        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).as("no evidence of loss yet").isZero();

        h.loss.onAck(h.ack(0, 2), h.now, h.responses); // segment 2, sent 500 us after 0, arrived
        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).isEqualTo(1);
        assertThat(h.stream.at(psn(0)).queuedForRetransmit).isTrue();
        assertThat(h.stream.at(psn(1)).queuedForRetransmit).as("sent together with 2: merely reordered").isFalse();
    }

    @Test
    void goBackResendsEverythingNotSackedThatHadARoundTripToArrive() {
        h.send(4, 1_000);
        h.now += 2_000_000; // past the initial smoothed RTT
        h.loss.onAck(h.goBack(1), h.now, h.responses);

        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).isEqualTo(3);
        assertThat(h.sendRetransmits()).isEqualTo(3);
    }

    @Test
    void theRetransmitTimeoutBacksOffExponentiallyAndTheOldestSegmentSpendsTheRetryBudget() {
        SendSegment s = h.send();
        long rto = h.loss.rto();
        assertThat(rto).isEqualTo(OutboundHarness.ACK_TIMEOUT);

        h.now += rto - 20_000;
        assertThat(h.fireTimers()).as("not before the RTO").isEmpty();
        h.now += 40_000;
        assertThat(h.fireTimers()).containsExactly(LossRecovery.Timeout.RETRANSMIT);
        assertThat(s.retries).isEqualTo(1);
        assertThat(h.congestion.window()).as("a timeout restarts from the floor").isEqualTo(AimdCongestionControl.MIN_CWND);
        assertThat(h.sendRetransmits()).isEqualTo(1);

        h.now += 2 * rto - 20_000;
        assertThat(h.fireTimers()).as("the second timeout waits twice as long").isEmpty();
        h.now += 40_000;
        assertThat(h.fireTimers()).containsExactly(LossRecovery.Timeout.RETRANSMIT);
        h.sendRetransmits();
        h.now += 4 * rto + 20_000;
        assertThat(h.fireTimers()).containsExactly(LossRecovery.Timeout.RETRANSMIT);
        h.sendRetransmits();
        h.now += 8 * rto + 20_000;
        assertThat(h.fireTimers()).as("retry count 3 spent").containsExactly(LossRecovery.Timeout.EXHAUSTED);
        assertThat(h.count(Counter.TIMEOUTS)).isEqualTo(4);
    }

    @Test
    void progressGivesTheNewOldestSegmentAFreshRetryBudget() {
        SendSegment first = h.send();
        SendSegment second = h.send();
        h.now += h.loss.rto() + 20_000;
        assertThat(h.fireTimers()).hasSize(2);
        assertThat(second.retries).isEqualTo(1);

        h.loss.onAck(h.ack(1), h.now, h.responses);
        assertThat(first.acked).isTrue();
        assertThat(second.retries).isZero();
    }

    @Test
    void aTimerOfASackedSegmentThatIsNotTheOldestIsIgnored() {
        h.send(3, 1_000);
        h.loss.onAck(h.ack(0, 2), h.now, h.responses);
        assertThat(h.loss.onTimeout(h.stream.at(psn(2)), h.now)).isEqualTo(LossRecovery.Timeout.IGNORED);
        assertThat(h.loss.onTimeout(h.stream.at(psn(0)), h.now)).isEqualTo(LossRecovery.Timeout.RETRANSMIT);
    }

    @Test
    void aTailLossProbeResendsTheLastSegmentOnceTwoRoundTripsAndAnAckDelayAfterDeliveriesStop() {
        h.send(3, 1_000);
        SendSegment last = h.stream.at(psn(2));
        long probeTimeout = (long) (2 * h.loss.rtt().srtt()) + OutboundHarness.ACK_DELAY;
        assertThat(probeTimeout).as("well inside the retransmit timeout, above the floor").isLessThan(h.loss.rto() / 2)
                .isGreaterThan(LossRecovery.MIN_PROBE_TIMEOUT_NANOS);
        h.now += probeTimeout - 10_000;
        h.loss.onDutyCycle(h.now);
        assertThat(last.queuedForRetransmit).as("not yet").isFalse();

        h.now += 20_000;
        h.loss.onDutyCycle(h.now);
        assertThat(last.queuedForRetransmit).as("the segment sent last").isTrue();
        assertThat(h.stream.at(psn(0)).queuedForRetransmit).isFalse();
        assertThat(h.stream.at(psn(0)).retries).as("the probe spends the oldest segment's first retry").isEqualTo(1);
        assertThat(h.sendRetransmits()).isEqualTo(1);

        h.now += 10 * probeTimeout;
        h.loss.onDutyCycle(h.now);
        assertThat(h.count(SoftCounter.TAIL_LOSS_PROBES)).as("one probe until something is delivered").isEqualTo(1);
        assertThat(h.count(Counter.TIMEOUTS)).isZero();
    }

    @Test
    void aProbeAfterAReceiverPausedCondemnsNothingWhenTheOriginalsArriveFirst() {
        h.send(10, 1_000);
        h.now += 2 * (long) h.loss.rtt().srtt() + OutboundHarness.ACK_DELAY + 20_000;
        h.loss.onDutyCycle(h.now);
        assertThat(h.sendRetransmits()).as("the probe").isEqualTo(1);
        h.now += 100_000;
        h.loss.onAck(h.ack(10), h.now, h.responses); // the receiver woke: everything, the probe a duplicate

        assertThat(h.count(SoftCounter.FAST_RETRANSMITS)).isZero();
        assertThat(h.stream.isEmpty()).isTrue();
    }

    @Test
    void aLostResendBelowASackedTailIsProbedBeforeTheRetransmitTimeout() {
        h.send(10, 1_000);
        h.now += 100_000;
        h.loss.onAck(h.ack(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), h.now, h.responses);
        assertThat(h.sendRetransmits()).as("0 lost").isEqualTo(1);
        SendSegment hole = h.stream.at(psn(0));
        h.now += Math.max(2 * (long) h.loss.rtt().srtt() + OutboundHarness.ACK_DELAY,
                LossRecovery.MIN_PROBE_TIMEOUT_NANOS) + 1; // its resend was lost too
        h.loss.onDutyCycle(h.now);

        assertThat(hole.queuedForRetransmit).as("probed: the last segment not known delivered").isTrue();
        assertThat(h.count(SoftCounter.TAIL_LOSS_PROBES)).isEqualTo(1);
        assertThat(h.count(Counter.TIMEOUTS)).isZero();
    }

    @Test
    void aHeadUnSackedByALaterAckGetsItsTimerBack() {
        h.send(3, 1_000);
        h.loss.onAck(h.ack(0, 1), h.now, h.responses);
        h.loss.onCumulativeAck(psn(1), h.now, h.responses); // 0 executed, 1 only SACKed: its timer cancelled
        h.loss.onAck(h.ack(1), h.now, h.responses); // the responder still waits for 1 after all
        SendSegment head = h.stream.at(psn(1));
        assertThat(head.sacked).isFalse();

        assertThat(head.isScheduled()).as("the ACK that un-SACKs it re-arms it").isTrue();
    }

    @Test
    void aSackedOldestSegmentKeepsATimerInCaseTheResponderRefusesItInOrder() {
        h.send(3, 1_000);
        h.loss.onAck(h.ack(0, 1, 2), h.now, h.responses);
        h.loss.onCumulativeAck(psn(1), h.now, h.responses); // piggy-backed: 0 executed, 1 only SACKed
        SendSegment head = h.stream.at(psn(1));
        assertThat(head.sacked).isTrue();
        assertThat(head.isScheduled()).as("SACK cancels the timer").isFalse();

        h.loss.onDutyCycle(h.now);
        assertThat(head.isScheduled()).as("the head guard re-arms it").isTrue();
    }

    @Test
    void roundTripsAreMeasuredOnlyOnSegmentsSentOnce() {
        h.send();
        double before = h.loss.rtt().srtt();
        h.now += 5_000_000;
        h.loss.onAck(h.ack(1), h.now, h.responses);
        assertThat(h.loss.rtt().srtt()).isGreaterThan(before);

        SendSegment again = h.send();
        again.retransmitted = true;
        double measured = h.loss.rtt().srtt();
        h.now += 50_000_000;
        h.loss.onAck(h.ack(2), h.now, h.responses);
        assertThat(h.loss.rtt().srtt()).as("Karn's rule").isEqualTo(measured);
    }
}
