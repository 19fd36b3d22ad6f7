package io.slime4j.soft;

import io.slime4j.wire.WirePort;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
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
 *
 * <p>Before its first block of a wait the holder spins for up to {@code spinNanos}, polling the
 * same set without blocking ({@link IdleWait#readyNow}) and yielding the vCPU between polls, as
 * UCX's callers progress the worker before they arm it: a reply that comes within the spin is
 * taken in without the wake-up a block costs (the scheduler's, then epoll's return: most of a
 * default round trip on a 2-vCPU VM, docs/PERFORMANCE.md, sixteenth round). One spin a wait: the
 * wait's later blocks (after a cycle that found nothing for it, or a block that timed out) do not
 * spin. A wait in which nothing came at all, neither in the spin nor in its first block (which,
 * while something is unacknowledged, lasts the device's idle park: 50 µs by default), disarms the
 * spin for the next waits until one's first block is ended by something ({@link WaiterSpin}): a
 * thread that waits in short slices for what does not come spins once, not in every slice.
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
    private final long spinNanos;
    private final LongSupplier clock;
    private final CounterSet counters;
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
    /** The place's holder came to its first block since it entered (it spins there only); its holder only. */
    private boolean firstBlockPast;
    /** Whether a wait spins; the holders' only (one after another: {@link #leave}'s release, {@link #tryEnter}'s acquire). */
    private final WaiterSpin waiterSpin = new WaiterSpin();

    /** A place that blocks at once, with no spin first. */
    WaiterBlock(IdleWait wait) {
        this(wait, 0, System::nanoTime, new CounterSet());
    }

    /**
     * A place whose holder spins for up to {@code spinNanos} of {@code clock} before its first block
     * of a wait, counting in {@code counters} the spins that something readable ended
     * ({@link SoftCounter#WAITER_SPIN_HITS}), those that ran out ({@link SoftCounter#WAITER_SPIN_MISSES})
     * and the blocks ({@link SoftCounter#WAITER_BLOCKS}).
     */
    WaiterBlock(IdleWait wait, long spinNanos, LongSupplier clock, CounterSet counters) {
        if (spinNanos < 0) {
            throw new IllegalArgumentException("spinNanos must be >= 0, was " + spinNanos);
        }
        this.wait = wait;
        this.spinNanos = spinNanos;
        this.clock = clock;
        this.counters = counters;
    }

    /**
     * A block over {@code port}'s sockets whose holder spins for up to {@code spinNanos} first,
     * counting in {@code counters}, or null where the port has no descriptors or epoll fails.
     */
    static WaiterBlock forPort(WirePort port, long spinNanos, CounterSet counters) {
        int[] fds = port.readableFds();
        if (fds.length == 0) {
            return null;
        }
        try {
            return new WaiterBlock(new EpollWait(fds), spinNanos, System::nanoTime, counters);
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("epoll unavailable ({}); threads waiting for completions park instead", e.toString());
            return null;
        }
    }

    /** Takes the place of the blocking waiter; false when another thread holds it or the block closed. */
    boolean tryEnter() {
        if (!closed && OWNER.compareAndSet(this, null, Thread.currentThread())) {
            blockedSinceEnter = false;
            firstBlockPast = false;
            return true;
        }
        return false;
    }

    /**
     * Whether the place's holder blocked on the sockets since it entered, or spun and found them
     * empty at least once: it came before what it waits for, as a round trip's waiter does
     * ({@link StreamDetector}). Its holder only.
     */
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
     * ({@link #blockedLong}: a Dekker pair with the device's note of its last cycle). The first block
     * since the holder entered spins first when the spin is armed ({@link WaiterSpin}), within
     * the same timeout: the spin ends without a block when the set becomes readable (a datagram, a
     * wake, a nudge) or the thread is interrupted, and the caller's next cycle takes what came; a
     * spin that runs out announces the block again and reads {@code quiet} again, and blocks for
     * what is left of the timeout. After {@link #close} it parks instead.
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
                boolean first = !firstBlockPast && spinNanos > 0 && timeout > 0; // past the deadline: no spin, nothing learnt
                firstBlockPast = true;
                if (first && waiterSpin.armed()) {
                    long bound = Math.min(spinNanos, timeout);
                    longBlock = q && bound > busyNanos; // a spin within the idle park needs no wake when a cycle arms a timer
                    long spun = spin(bound);
                    if (spun == INTERRUPTED) {
                        return;
                    }
                    if (spun == READY) {
                        waiterSpin.caught();
                        counters.increment(SoftCounter.WAITER_SPIN_HITS);
                        return; // the next cycle takes what came, with no block
                    }
                    counters.increment(SoftCounter.WAITER_SPIN_MISSES);
                    longBlock = true; // the block proper: announced, then quiet read again (the cycles' note, as above)
                    q = quiet.getAsBoolean();
                    timeout = Math.max(0, Math.min(remainingNanos, q ? quietNanos : busyNanos) - spun);
                    longBlock = q && timeout > busyNanos;
                    if (timeout == 0) {
                        waiterSpin.firstBlockEnded(false); // the spin took the block's whole time, and nothing came
                        return;
                    }
                }
                blockedSinceEnter = true;
                counters.increment(SoftCounter.WAITER_BLOCKS);
                boolean woken = wait.await(timeout); // not interruptible: an interrupt is seen when it ends, within the timeout
                if (first) {
                    waiterSpin.firstBlockEnded(woken);
                }
            }
        } finally {
            blocked = false;
        }
    }

    /** {@link #spin}'s result: the epoll set is readable, or was woken. */
    private static final long READY = -1;
    /** {@link #spin}'s result: the thread was interrupted. */
    private static final long INTERRUPTED = -2;

    /**
     * Polls the epoll set without blocking for up to {@code nanos}, yielding the vCPU between polls:
     * {@link #READY} as soon as it is readable (a datagram, or a wake or nudge written to its eventfd
     * while {@link #blocked}), {@link #INTERRUPTED} when the thread is interrupted, else the
     * nanoseconds spent. A poll that finds nothing counts as a block for {@link #blockedSinceEnter}:
     * the waiter came first.
     */
    private long spin(long nanos) {
        long start = clock.getAsLong();
        while (true) {
            if (wait.readyNow()) {
                return READY;
            }
            blockedSinceEnter = true;
            long spent = clock.getAsLong() - start;
            if (Thread.currentThread().isInterrupted()) {
                return INTERRUPTED;
            }
            if (spent >= nanos) {
                return spent;
            }
            // yield, not onSpinWait: the answer may need a thread that is to run on this vCPU (the peer's agent
            // in this process or on this host, this device's agent sending the request); a spin that held the vCPU
            // made a one-sided write's round trip about 15 us slower than blocking at once (perf's latency row, 2 vCPUs)
            Thread.yield();
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
