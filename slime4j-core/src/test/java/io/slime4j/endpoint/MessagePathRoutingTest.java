package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The message path asks the selector only to trace and count (its queue pairs are on lane 0 whatever
 * the answer): a custom selector's out-of-range answer or exception for CONTROL or RENDEZVOUS_DATA is
 * counted as a misroute and never thrown — the message path asks after leasing a slot, and on the
 * dispatch thread (a send meeting its meta, a credit return), where a throw would leak the slot or
 * leave the op pending for good.
 */
@Timeout(120)
class MessagePathRoutingTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aSelectorsBadAnswersForMessageTrafficAreCountedAndTheMessagesFlow() throws Exception {
        QpSelector wild = (type, id, qps) -> switch (type) {
            case CONTROL -> 99;
            case RENDEZVOUS_DATA -> throw new IllegalStateException("selector bug");
            default -> 1;
        };
        EndpointConfig c = EndpointConfig.builder().qps(2).messageSlots(2).immWindow(4).slotTimeout(Duration.ofSeconds(5))
                .selector((q, cfg) -> wild).build();
        try (RailPair p = RailPair.inproc(1, c, 1 << 20)) {
            for (int i = 0; i < 6; i++) { // more than messageSlots: a leaked slot would show
                Patterns.fill(p.kvA, 0, 3000, 70 + i);
                TransferFuture r = p.b.recv("kv", 4096, 3000);
                success(p.a.send("kv", 0, 3000), WAIT);
                assertThat(success(r, WAIT).byteCount()).isEqualTo(3000);
                assertThat(Patterns.mismatch(p.kvB, 4096, 3000, 70 + i)).isEqualTo(-1);
            }
            for (int i = 0; i < 8; i++) { // imm credits come back over the meta queue pair (CONTROL)
                TransferFuture got = p.b.immRecv();
                success(p.a.writeWithImm(java.util.List.of(Assignment.local("kv", 0).remote("kv", 0).length(64)), i), WAIT);
                assertThat(success(got, WAIT).immediate()).isEqualTo(i);
            }
            assertThat(p.a.router().misroutes.sum() + p.b.router().misroutes.sum()).isPositive();
            assertThat(p.a.recvPool().free()).isEqualTo(p.a.recvPool().capacity());
            assertThat(p.b.recvPool().free()).isEqualTo(p.b.recvPool().capacity());
            assertThat(p.a.stats().dispatchErrors.sum() + p.b.stats().dispatchErrors.sum()).isZero();
        }
    }
}
