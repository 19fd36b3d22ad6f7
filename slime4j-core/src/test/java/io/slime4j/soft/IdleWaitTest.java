package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.wire.WirePort;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How an idle agent blocks: an epoll wait (native sockets) and a selector wait (NIO channels) end
 * when a datagram arrives or a poster wakes them, long before their timeout, and otherwise last
 * their timeout.
 */
@Timeout(30)
class IdleWaitTest {
    private static final long LONG = TimeUnit.SECONDS.toNanos(10);

    private static UdpConfig config(UdpConfig.Backend backend) {
        return UdpConfig.defaults().toBuilder().backend(backend).build();
    }

    /** Sends one datagram to {@code to} from {@code from} after 50 ms, on another thread. */
    private static Thread sendLater(WirePort from, WirePort to) {
        return Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment packet = a.allocate(64);
                from.send(to.localAddress(), packet, 64, false);
            }
        });
    }

    private static long millisToAwait(IdleWait w, long timeoutNanos) {
        long t0 = System.nanoTime();
        w.await(timeoutNanos);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    @Test
    void anEpollWaitEndsWhenADatagramArrivesOnANativePort() throws Exception {
        try (UdpWire wire = new UdpWire(config(UdpConfig.Backend.NATIVE));
             WirePort a = wire.bind("udp:127.0.0.1:0");
             WirePort b = wire.bind("udp:127.0.0.1:0")) {
            assertThat(b.readableFds()).isNotEmpty();
            assertThat(b.readableChannels()).isEmpty();
            try (IdleWait w = IdleWait.forPorts(List.of(b), Thread.currentThread())) {
                assertThat(w).isInstanceOf(EpollWait.class);
                Thread sender = sendLater(a, b);
                assertThat(millisToAwait(w, LONG)).isLessThan(5_000);
                sender.join();
                assertThat(b.receive((s, from, len) -> { }, 16)).isEqualTo(1);
            }
        }
    }

    @Test
    void aSelectorWaitEndsWhenADatagramArrivesOnAnNioPort() throws Exception {
        try (UdpWire wire = new UdpWire(config(UdpConfig.Backend.NIO));
             WirePort a = wire.bind("udp:127.0.0.1:0");
             WirePort b = wire.bind("udp:127.0.0.1:0")) {
            assertThat(b.readableFds()).isEmpty();
            assertThat(b.readableChannels()).isNotEmpty();
            try (IdleWait w = IdleWait.forPorts(List.of(b), Thread.currentThread())) {
                assertThat(w).isInstanceOf(SelectorWait.class);
                Thread sender = sendLater(a, b);
                assertThat(millisToAwait(w, LONG)).isLessThan(5_000);
                sender.join();
            }
        }
    }

    @Test
    void aWakeFromAnotherThreadEndsAnEpollWaitAndIsRememberedWhenItComesFirst() throws Exception {
        try (IdleWait w = new EpollWait(new int[0])) {
            Thread waker = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
                w.wake();
            });
            assertThat(millisToAwait(w, LONG)).isLessThan(5_000);
            waker.join();
            w.wake(); // before the wait: the eventfd holds it
            assertThat(millisToAwait(w, LONG)).isLessThan(5_000);
        }
    }

    @Test
    void withNothingToWakeItAnEpollWaitLastsItsTimeout() {
        try (IdleWait w = new EpollWait(new int[0])) {
            assertThat(millisToAwait(w, TimeUnit.MILLISECONDS.toNanos(200))).isGreaterThanOrEqualTo(190);
        }
    }

    @Test
    void anEpollReadinessCheckSeesAQueuedDatagramAndAPendingWakeWithoutBlocking() throws Exception {
        try (UdpWire wire = new UdpWire(config(UdpConfig.Backend.NATIVE));
             WirePort a = wire.bind("udp:127.0.0.1:0");
             WirePort b = wire.bind("udp:127.0.0.1:0");
             IdleWait w = IdleWait.forPorts(List.of(b), Thread.currentThread())) {
            assertThat(w.readyNow()).isFalse();
            try (Arena arena = Arena.ofConfined()) {
                a.send(b.localAddress(), arena.allocate(64), 64, false);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!w.readyNow() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(w.readyNow()).isTrue(); // level-triggered: still there until received
            assertThat(b.receive((s, from, len) -> { }, 16)).isEqualTo(1);
            assertThat(w.readyNow()).isFalse();
            w.wake();
            assertThat(w.readyNow()).isTrue();
            assertThat(w.readyNow()).isFalse(); // the check consumed the wake-up
        }
    }
}
