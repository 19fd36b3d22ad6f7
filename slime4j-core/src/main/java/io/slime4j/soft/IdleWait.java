package io.slime4j.soft;

import io.slime4j.wire.WirePort;
import java.nio.channels.SelectableChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an idle progress agent blocks until a datagram arrives on one of its ports, a poster wakes
 * it, or a timeout passes (the next timer deadline): epoll over the ports' sockets and an eventfd
 * ({@link EpollWait}), a {@link java.nio.channels.Selector} over NIO channels ({@link SelectorWait}),
 * or a park for wires that wake the agent themselves (the in-process wire) ({@link ParkWait}).
 * {@link #await} runs on the agent thread only; {@link #wake} from any thread, and only when the
 * agent announced that it is armed (so posters on the fast path make no system call).
 */
abstract class IdleWait implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IdleWait.class);

    /**
     * Blocks for up to {@code timeoutNanos}, or until woken or something is readable. Returns false
     * when it timed out with nothing readable and no wake; true otherwise, and where it cannot tell.
     */
    abstract boolean await(long timeoutNanos);

    /** Ends a current or the next {@link #await} early. */
    abstract void wake();

    /**
     * Whether a socket may be readable now, checked without blocking and at most one system call
     * for all the sockets; true when the wait cannot tell (a park, a selector): the caller then
     * polls the sockets themselves. A pending wake-up of this wait is consumed and reported as ready.
     */
    boolean readyNow() {
        return true;
    }

    /** Whether a datagram arriving wakes {@link #await} (else only posters and the timeout do). */
    abstract boolean wakesOnArrival();

    @Override
    public abstract void close();

    /**
     * The wait for an agent driving {@code ports}: epoll when every port that has something to
     * wait on offers descriptors, a selector when every one offers NIO channels; a park otherwise
     * (ports of both kinds in one group, or epoll unavailable), which then wakes on arrival only
     * for wires that call {@link WirePort#onReceivable}.
     */
    static IdleWait forPorts(List<WirePort> ports, Thread agent) {
        List<int[]> fds = new ArrayList<>();
        List<SelectableChannel> channels = new ArrayList<>();
        for (WirePort p : ports) {
            int[] f = p.readableFds();
            if (f.length > 0) {
                fds.add(f);
            } else {
                channels.addAll(List.of(p.readableChannels()));
            }
        }
        if (fds.isEmpty() && channels.isEmpty()) {
            return new ParkWait(agent, true);
        }
        if (channels.isEmpty()) {
            try {
                return new EpollWait(fds.stream().flatMapToInt(java.util.Arrays::stream).toArray());
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("epoll unavailable ({}); an idle agent parks for its timeout instead", e.toString());
                return new ParkWait(agent, false);
            }
        }
        if (fds.isEmpty()) {
            try {
                return new SelectorWait(channels);
            } catch (RuntimeException e) {
                LOG.warn("selector unavailable ({}); an idle agent parks for its timeout instead", e.toString());
                return new ParkWait(agent, false);
            }
        }
        return new ParkWait(agent, false);
    }

    /** Parks the agent thread; {@link #wake} unparks it. */
    static final class ParkWait extends IdleWait {
        private final Thread agent;
        private final boolean wakesOnArrival;

        ParkWait(Thread agent, boolean wakesOnArrival) {
            this.agent = agent;
            this.wakesOnArrival = wakesOnArrival;
        }

        @Override
        boolean await(long timeoutNanos) {
            LockSupport.parkNanos(timeoutNanos);
            return true; // cannot tell an unpark from the timeout
        }

        @Override
        void wake() {
            LockSupport.unpark(agent);
        }

        @Override
        boolean wakesOnArrival() {
            return wakesOnArrival;
        }

        @Override
        public void close() {
        }
    }
}
