package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftCounter;
import io.slime4j.soft.SoftDevice;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * In a round trip between default devices whose waiters drive them (UDP loopback), the credit
 * message a receiver returns while its agent rests ({@code WorkRequest.more}) leaves with the reply
 * that follows it, in one datagram, instead of in a system call of its own before the reply (which
 * also sent the ACK the reply would have carried): eager messages' credits and write-with-imm's.
 */
@Timeout(60)
class CreditReturnRideTest {
    private static final Duration BOUND = Duration.ofSeconds(20);

    /** One side's message to the other, and its wait for the other's. */
    private interface Leg {
        TransferFuture receive(RdmaEndpoint ep);

        TransferFuture send(RdmaEndpoint ep, int i);
    }

    @Test
    void aReceiversEagerCreditReturnsRideWithItsRepliesInARoundTrip() throws Exception {
        // a credit message per 8 messages (an eighth of the eager window); before, about 1.8 datagrams more per
        // credit message (690 for 375), now 0.5-0.9
        roundTrips(3_000, 1.25, new Leg() {
            @Override
            public TransferFuture receive(RdmaEndpoint ep) {
                return ep.recv("kv", 0, 64);
            }

            @Override
            public TransferFuture send(RdmaEndpoint ep, int i) {
                return ep.send("kv", 64, 64);
            }
        });
    }

    @Test
    void aReceiversWriteWithImmCreditReturnsRideWithItsRepliesInARoundTrip() throws Exception {
        List<Assignment> write = List.of(Assignment.local("kv", 64).remote("kv", 128).length(64));
        // a credit message per 64 (a quarter of the imm window); before, about 4 datagrams more per credit
        // message (746 for 187), now 1.0-1.6
        roundTrips(12_000, 2.5, new Leg() {
            @Override
            public TransferFuture receive(RdmaEndpoint ep) {
                return ep.immRecv();
            }

            @Override
            public TransferFuture send(RdmaEndpoint ep, int i) {
                return ep.writeWithImm(write, i);
            }
        });
    }

    /**
     * {@code trips} round trips of {@code leg}; the echo side's datagrams beyond one reply a trip stay
     * below {@code perCredit} for each credit message it returned.
     */
    private static void roundTrips(int trips, double perCredit, Leg leg) throws Exception {
        // the waiters drive the devices blocked on their sockets: epoll, which the native backend brings
        assertThat(UdpConfig.Backend.nativeUnavailability()).as("native udp backend unavailable").isNull();
        try (UdpWire wire = new UdpWire();
             Arena arena = Arena.ofShared();
             SoftDevice da = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("ride-a").build());
             SoftDevice db = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("ride-b").build());
             RdmaEndpoint a = RdmaEndpoint.open(da, EndpointConfig.builder().name("ride-a").build());
             RdmaEndpoint b = RdmaEndpoint.open(db, EndpointConfig.builder().name("ride-b").build());
             ExecutorService echo = Executors.newSingleThreadExecutor()) {
            EndpointPair.registerAndConnect(a, arena.allocate(4096, 4096), b, arena.allocate(4096, 4096));
            Future<?> echoing = echo.submit(() -> {
                for (int i = 0; i < trips; i++) {
                    assertThat(leg.receive(b).await(BOUND)).isEqualTo(TransferStatus.SUCCESS);
                    assertThat(leg.send(b, i).await(BOUND)).isEqualTo(TransferStatus.SUCCESS);
                }
                return null;
            });
            long before = db.protocolCounters().get(SoftCounter.DATAGRAMS_SENT);
            for (int i = 0; i < trips; i++) {
                TransferFuture r = leg.receive(a);
                TransferFuture s = leg.send(a, i);
                assertThat(r.await(BOUND)).isEqualTo(TransferStatus.SUCCESS);
                assertThat(s.await(BOUND)).isEqualTo(TransferStatus.SUCCESS);
            }
            echoing.get();
            long credits = b.stats().creditMessages.sum();
            long beyondReplies = db.protocolCounters().get(SoftCounter.DATAGRAMS_SENT) - before - trips;

            assertThat(credits).as("credit messages, batched").isGreaterThanOrEqualTo(trips / 128);
            // before, each credit message left alone, with the ACK its reply would have carried, before that
            // reply, and the peer's ACK of it followed; most now share the reply's datagram (some go alone, while
            // the agent is busy). The bound sits between the two, with room for a loaded machine's agent, which
            // rests less often
            assertThat(beyondReplies).as("datagrams beyond one reply per trip, against %d credit messages", credits)
                    .isLessThan((long) (credits * perCredit));
        }
    }
}
