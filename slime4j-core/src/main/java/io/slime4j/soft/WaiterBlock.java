package io.slime4j.soft;

import io.slime4j.wire.WirePort;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a thread that waits for one of a default (not busy-polling) device's completions block on
 * the device's own sockets, as UCX's {@code ucp_worker_arm}/{@code ucp_worker_wait} lets a caller
 * block on a worker's descriptor: the datagram that completes the wait wakes the waiter itself,
 * which then runs the duty cycle ({@link DutyCycle#driveUntil}) and reaps its completion, instead
 * of waking the progress agent, which wakes the waiter (two wake-ups and a hand-off per trip).
 *
 * <p>One thread at a time holds the place ({@link #tryEnter}); others wait on their completion
 * queue as before and are woken by what its cycles push, and the holder, leaving, has the agent
 * take over for them ({@link #leave}). {@link #wake} ends a block early and
 * makes a system call only while a thread is blocked: a completion pushed by another thread's
 * cycle, a command, a post that armed a timer, or closing. Epoll over the port's descriptors and
 * an eventfd ({@link EpollWait}); ports without descriptors (NIO, in-process) have none
 * ({@link #forPort} returns null) and their waiters park as before.
 */
final class WaiterBlock implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WaiterBlock.class);
    private static final VarHandle OWNER;
    private static final VarHandle OUTSIDE;
    private static final long CLOSE_WAIT_NANOS = 1_000_000_000L;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(WaiterBlock.class, "owner", Thread.class);
            OUTSIDE = MethodHandles.lookup().findVarHandle(WaiterBlock.class, "outside", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final IdleWait wait;
    @SuppressWarnings("unused") // accessed through OWNER
    private volatile Thread owner;
    /** Threads waiting on the device's completion queues while another holds the place ({@link #waitingOutside}). */
    @SuppressWarnings("unused") // accessed through OUTSIDE
    private volatile int outside;
    /** A thread is in {@link #block} (or about to be): a Dekker pair with {@link #wake} and {@link #close}. */
    private volatile boolean blocked;
    /** The block under way may last longer than the device's idle park (its device was quiet). */
    private volatile boolean longBlock;
    private volatile boolean closed;
    /** {@link #nudge}d since the last block consumed it. */
    private volatile boolean nudged;
    /** The place's holder blocked since it entered ({@link #blockedSinceEnter}); its holder only. */
    private boolean blockedSinceEnter;

    WaiterBlock(IdleWait wait) {
        this.wait = wait;
    }

    /** A block over {@code port}'s sockets, or null where the port has no descriptors or epoll fails. */
    static WaiterBlock forPort(WirePort port) {
        int[] fds = port.readableFds();
        if (fds.length == 0) {
            return null;
        }
        try {
            return new WaiterBlock(new EpollWait(fds));
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("epoll unavailable ({}); threads waiting for completions park instead", e.toString());
            return null;
        }
    }

    /** Takes the place of the blocking waiter; false when another thread holds it or the block closed. */
    boolean tryEnter() {
        if (!closed && OWNER.compareAndSet(this, null, Thread.currentThread())) {
            blockedSinceEnter = false;
            return true;
        }
        return false;
    }

    /** Whether the place's holder blocked on the sockets since it entered (its holder only). */
    boolean blockedSinceEnter() {
        return blockedSinceEnter;
    }

    /**
     * Gives the place back (its holder only); returns whether other threads wait outside it, whom
     * nobody now drives the device for until the agent takes over ({@link #waitingOutside}).
     */
    boolean leave() {
        OWNER.setVolatile(this, null); // then read outside: a Dekker pair with a waiter that counted itself, then tried to enter
        return outside > 0;
    }

    /**
     * Blocks the place's holder until a datagram arrives, {@link #wake} is called, or the timeout
     * passes, unless {@code ready} holds or the thread is interrupted once it announced the block.
     * The timeout is read after the announcement: {@code quietNanos} (at most {@code remainingNanos})
     * if {@code quiet} holds then (the device's last cycle left nothing timed), else
     * {@code busyNanos}; a cycle that makes the device busy during a long block ends it
     * ({@link #blockedLong}: a Dekker pair with the device's note of its last cycle). After
     * {@link #close} it parks instead.
     */
    void block(long remainingNanos, BooleanSupplier quiet, long quietNanos, long busyNanos, BooleanSupplier ready) {
        longBlock = true; // until the timeout is known: a wake it did not need costs a turn, a missed one a timer
        blocked = true; // then read closed, nudged, quiet and ready: Dekker pairs with close(), nudge(), the cycles' note and wake()
        try {
            boolean q = quiet.getAsBoolean();
            long timeout = Math.max(0, Math.min(remainingNanos, q ? quietNanos : busyNanos));
            longBlock = q && timeout > busyNanos;
            if (closed) {
                blocked = false; // close() waits for no thread that only parks
                LockSupport.parkNanos(this, Math.min(timeout, 1_000_000));
            } else if (nudged) {
                nudged = false; // a command or a queue pair's error came since the last cycle: run one now
            } else if (!ready.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
                blockedSinceEnter = true;
                wait.await(timeout); // not interruptible: an interrupt is seen when it ends, within the timeout
            }
        } finally {
            blocked = false;
        }
    }

    /**
     * A thread that may drive the device waits elsewhere because the place is taken (it parks on
     * its completion queue): counted until {@link #stopWaitingOutside}, so that the holder, leaving,
     * has the agent take over for it ({@link #leave}).
     */
    void waitingOutside() {
        OUTSIDE.getAndAdd(this, 1);
    }

    void stopWaitingOutside() {
        OUTSIDE.getAndAdd(this, -1);
    }

    /** Whether threads wait outside the place now ({@link #waitingOutside}). Any thread. */
    boolean anyOutside() {
        return outside > 0;
    }

    /**
     * Ends a block under way early; a system call only while a thread is blocked. For what the
     * block's own checks would see (a completion pushed: its {@code ready}), so not kept for a
     * block that begins later.
     */
    void wake() {
        if (blocked) {
            wait.wake();
        }
    }

    /**
     * Ends a block under way early, or the next one before it waits: something that only a cycle
     * sees needs one soon (a command queued for the device, a queue pair moved to ERR). A system
     * call only while a thread is blocked.
     */
    void nudge() {
        nudged = true; // then read blocked: a Dekker pair with block()
        if (blocked) {
            wait.wake();
        }
    }

    /** Whether {@link #close} began (a driving waiter then stops driving and parks). */
    boolean isClosed() {
        return closed;
    }

    /** Whether a thread is blocked for longer than the device's idle park (see {@link #block}). */
    boolean blockedLong() {
        return blocked && longBlock;
    }

    /** Whether a thread holds the place now; for tests. */
    boolean occupied() {
        return owner != null;
    }

    /**
     * Closes the epoll set once no thread is blocked in it (waking one that is, and waiting for it
     * at most a second); later blocks park for their timeout instead, and no thread enters.
     */
    @Override
    public void close() {
        closed = true; // then read blocked: a Dekker pair with block()
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        while (blocked) {
            wait.wake();
            if (System.nanoTime() - deadline > 0) {
                LOG.warn("a thread stayed blocked on a closing device's sockets for 1 s; its epoll set is left open");
                return;
            }
            LockSupport.parkNanos(this, 100_000);
        }
        wait.close();
    }
}
