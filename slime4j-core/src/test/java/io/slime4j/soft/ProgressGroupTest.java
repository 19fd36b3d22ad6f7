package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.Wire;
import io.slime4j.wire.inproc.InprocWire;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Devices sharing one progress thread: traffic on every member, byte-exact, with one thread for
 * the group; a member closing while the others work; the thread ending with the last member and a
 * new one starting with the next.
 */
@Timeout(60)
class ProgressGroupTest {
    private static final int BYTES = 4 << 20;

    /** A device and one queue pair on it, with a registered buffer. */
    private record Side(SoftDevice device, CompletionQueue cq, QueuePair qp, MemoryRegion mr) {
        static Side open(Wire wire, String address, ProgressGroup group, Arena arena) {
            SoftDevice d = group == null ? SoftDevice.open(wire, address, SoftConfig.defaults())
                    : SoftDevice.open(wire, address, SoftConfig.defaults(), group);
            ProtectionDomain pd = d.allocateProtectionDomain();
            CompletionQueue cq = d.createCompletionQueue(1024);
            QueuePair qp = d.createQueuePair(pd, QpConfig.builder().mtu(16 << 10).build(), cq, cq);
            return new Side(d, cq, qp, pd.register(arena.allocate(BYTES, 4096), AccessFlags.ALL));
        }

        void connect(Side peer) {
            qp.connect(peer.qp.localInfo());
            peer.qp.connect(qp.localInfo());
        }

        /** Writes all of this side's buffer, filled from {@code seed}, into the peer's, in 256 KiB writes. */
        void post(Side peer, long seed) {
            for (long off = 0; off < BYTES; off += 8) {
                mr.segment().set(ValueLayout.JAVA_LONG, off, seed * 31 + off);
            }
            WorkRequest wr = new WorkRequest();
            for (int i = 0; i < BYTES / (256 << 10); i++) {
                long off = (long) i << 18;
                qp.postSend(wr.clear().wrId(i).opcode(Opcode.RDMA_WRITE).sge(mr, off, 256 << 10)
                        .remote(RemoteRegion.of(peer.mr), off));
            }
        }

        void awaitWritten(Side peer, long seed) throws InterruptedException {
            WorkCompletion[] wcs = WorkCompletion.array(64);
            int done = 0;
            while (done < BYTES / (256 << 10)) {
                int got = cq.await(wcs, 20, TimeUnit.SECONDS);
                assertThat(got).as("completions of %s after %d", device.name(), done).isPositive();
                for (int i = 0; i < got; i++) {
                    assertThat(wcs[i].status()).isEqualTo(WcStatus.SUCCESS);
                }
                done += got;
            }
            assertThat(peer.mr.segment().mismatch(mr.segment())).as("first differing byte at %s", peer.device.name())
                    .isEqualTo(-1);
        }
    }

    private static List<Thread> threadsNamed(String name) {
        List<Thread> out = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name) && t.isAlive()) {
                out.add(t);
            }
        }
        return out;
    }

    @Test
    void twoRailsOnOneThreadCarryTheirTrafficByteExactOverUdp() throws Exception {
        ProgressGroup g = ProgressGroup.create("pg-udp-a");
        ProgressGroup h = ProgressGroup.create("pg-udp-b");
        try (UdpWire wire = new UdpWire(); Arena arena = Arena.ofShared()) {
            Side a0 = Side.open(wire, "udp:127.0.0.1:0", g, arena);
            Side a1 = Side.open(wire, "udp:127.0.0.1:0", g, arena);
            Side b0 = Side.open(wire, "udp:127.0.0.1:0", h, arena);
            Side b1 = Side.open(wire, "udp:127.0.0.1:0", h, arena);
            try {
                a0.connect(b0);
                a1.connect(b1);
                assertThat(threadsNamed("slime4j-agent-pg-udp-a")).hasSize(1);
                assertThat(threadsNamed("slime4j-agent-pg-udp-b")).hasSize(1);
                assertThat(threadsNamed("slime4j-agent-" + a0.device.name())).as("no thread of its own").isEmpty();
                a0.post(b0, 1);
                a1.post(b1, 2);
                a0.awaitWritten(b0, 1);
                a1.awaitWritten(b1, 2);
                b1.post(a1, 3); // and the other way on the same threads
                b1.awaitWritten(a1, 3);
                for (Side s : List.of(a0, a1, b0, b1)) {
                    assertThat(s.device.counters().get(Counter.AGENT_ERRORS)).isZero();
                }
            } finally {
                for (Side s : List.of(b1, b0, a1, a0)) {
                    s.device.close();
                }
            }
            assertThat(threadsNamed("slime4j-agent-pg-udp-a")).as("the thread ends with its last device").isEmpty();
        }
    }

    @Test
    void aMemberClosesWhileTheOthersWorkAndTheNextMemberStartsANewThread() throws Exception {
        ProgressGroup g = ProgressGroup.create("pg-inproc", false, Duration.ofMillis(1));
        Wire wire = new InprocWire();
        try (Arena arena = Arena.ofShared()) {
            Side a0 = Side.open(wire, "pg-a0", g, arena);
            Side a1 = Side.open(wire, "pg-a1", g, arena);
            Side b0 = Side.open(wire, "pg-b0", null, arena);
            Side b1 = Side.open(wire, "pg-b1", null, arena);
            a0.connect(b0);
            a1.connect(b1);
            a1.post(b1, 5);
            a0.post(b0, 4);
            a0.device.close(); // flushes a0's requests on this thread while a1's run on the group's
            a1.awaitWritten(b1, 5);
            assertThat(threadsNamed("slime4j-agent-pg-inproc")).hasSize(1);
            WorkCompletion[] wcs = WorkCompletion.array(64);
            int flushedOrDone = 0;
            while (flushedOrDone < BYTES / (256 << 10)) {
                int got = a0.cq.await(wcs, 20, TimeUnit.SECONDS);
                assertThat(got).as("every request of the closed device completes").isPositive();
                for (int i = 0; i < got; i++) {
                    assertThat(wcs[i].status()).isIn(WcStatus.SUCCESS, WcStatus.WR_FLUSH_ERR);
                }
                flushedOrDone += got;
            }
            a1.device.close();
            assertThat(threadsNamed("slime4j-agent-pg-inproc")).as("the last member's close ends the thread").isEmpty();

            Side c = Side.open(wire, "pg-c", g, arena); // a new member: a new thread
            Side d = Side.open(wire, "pg-d", null, arena);
            try {
                c.connect(d);
                assertThat(threadsNamed("slime4j-agent-pg-inproc")).hasSize(1);
                c.post(d, 6);
                c.awaitWritten(d, 6);
            } finally {
                for (Side s : List.of(c, d, b0, b1)) {
                    s.device.close();
                }
            }
        }
    }

    @Test
    void anErrorEndsTheThreadAndFailsEveryMemberWhichALaterThreadDoesNotRevive() throws Exception {
        ProgressGroup g = ProgressGroup.create("pg-error");
        Wire wire = new InprocWire();
        try (Arena arena = Arena.ofShared()) {
            Side a0 = Side.open(wire, "pg-e-a0", g, arena);
            Side a1 = Side.open(wire, "pg-e-a1", g, arena);
            Side b0 = Side.open(wire, "pg-e-b0", null, arena);
            Side b1 = Side.open(wire, "pg-e-b1", null, arena);
            Side c = null;
            Side d = null;
            try {
                a0.connect(b0);
                a1.connect(b1);
                a0.device.runOnAgent(() -> {
                    throw new AssertionError("injected into the agent of " + g.name());
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!threadsNamed("slime4j-agent-pg-error").isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertThat(threadsNamed("slime4j-agent-pg-error")).as("the thread ends").isEmpty();
                assertThat(a0.device.counters().get(Counter.AGENT_ERRORS)).isOne();
                assertThat(a0.qp.state()).isEqualTo(QpState.ERR);
                assertThat(a1.qp.state()).as("every member fails, not only the one that threw").isEqualTo(QpState.ERR);

                c = Side.open(wire, "pg-e-c", g, arena); // a new member starts a new thread, for itself
                d = Side.open(wire, "pg-e-d", null, arena);
                c.connect(d);
                c.post(d, 7);
                c.awaitWritten(d, 7);
                Thread[] ran = new Thread[1];
                a1.device.runOnAgent(() -> ran[0] = Thread.currentThread());
                assertThat(ran[0]).as("a failed member is not driven by the new thread").isSameAs(Thread.currentThread());
            } finally {
                for (Side s : new Side[] {c, d, a0, a1, b0, b1}) {
                    if (s != null) {
                        s.device.close();
                    }
                }
            }
        }
    }

    @Test
    void badArgumentsAreRefusedClearly() {
        assertThatThrownBy(() -> ProgressGroup.create(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> ProgressGroup.create("x", false, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxIdlePark");
        assertThatThrownBy(() -> SoftDevice.open(new InprocWire(), "pg-null", SoftConfig.defaults(), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group");
    }
}
