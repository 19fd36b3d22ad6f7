package io.slime4j.soft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The right to run one device's duty cycle: held by one thread at a time, usually the device's
 * progress agent, and, on a device that busy-polls, also by a thread that waits for one of its
 * completions ({@link #driveUntil}): UCX's model, where the caller's thread progresses the worker.
 * The waiting thread then receives the datagram, completes the request and reaps the completion
 * itself, with no hand-off from the agent, and the agent stands aside while it does
 * ({@link #drivenByWaiter}), so a process that busy-polls spins one thread, not two.
 *
 * <p>Whoever holds the right owns every piece of protocol state of the device for that cycle:
 * taking it is an acquire and giving it back a release, so one holder's writes are seen by the
 * next. It also counts the cycles that ended ({@link #completed}), which is what
 * {@link #awaitCycles} waits on when memory must no longer be touched by any earlier cycle.
 */
final class DutyCycle {
    /** The work of one cycle: {@link SoftDevice#doWork}. */
    @FunctionalInterface
    interface Work {
        int run(long nowNanos);
    }

    private static final VarHandle HOLDER;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HOLDER = l.findVarHandle(DutyCycle.class, "holder", Thread.class);
            WAITERS = l.findVarHandle(DutyCycle.class, "waiters", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final long POLL_NANOS = 10_000;
    private static final long SEIZE_TIMEOUT_NANOS = 5_000_000_000L;

    private final Work work;
    private final Work postWork;
    private final Runnable missedPost;
    /**
     * A poster asked for a cycle ({@link #runForPoster}): set before it tries to take the right,
     * cleared by each holder before its cycle reads the queues, and read again by the holder after
     * it gave the right back. A post whose poster found the right held is thus either seen by the
     * holder's cycle or makes the holder run one more (a Dekker pair of volatile accesses).
     */
    private volatile boolean postPending;
    /** Posted requests that wait for the next cycle ({@link #holdForPoster}, {@link PostRoute#HOLD}). */
    private final HeldPosts held;
    private final boolean waitersDrive;
    /** Posts that waited for the cycles run since {@link #takeHeldPosts} last asked (the holder's only). */
    private int heldPosts;
    private final java.util.function.Consumer<RuntimeException> waiterError;
    private volatile Thread holder;
    private volatile long completed;
    private volatile int waiters;
    /** Cycles run by waiters ({@link #driveUntil}); written by the holder only. */
    private volatile long byWaiters;
    /** What the waiter that runs the cycle under way waits for, or null (not a waiter's cycle); the holder's only. */
    private BooleanSupplier runFor;
    /** {@link #byWaiters} when the agent last asked {@link #waitersActiveSinceLastLook} (agent thread only). */
    private long byWaitersSeen;
    /** {@link #completed} when the agent last asked {@link #noCycleSinceLastLook} (agent thread only). */
    private long completedSeen;

    /**
     * {@code waitersDrive}: the device busy-polls, so a thread waiting for its completions drives
     * it. {@code waiterError} takes an exception of a cycle a waiter ran (counted and logged as the
     * agent does with its own, so the waiter goes on waiting); an {@link Error} propagates.
     */
    DutyCycle(Work work, boolean waitersDrive, java.util.function.Consumer<RuntimeException> waiterError) {
        this(work, work, waitersDrive, waiterError, () -> { });
    }

    /**
     * As above; {@code postWork} is the cycle a posting thread runs ({@link #runForPoster}), and
     * {@code missedPost} is called when a post may have been passed over by every cycle so far
     * (the agent must run one; {@link #runForPoster}).
     */
    DutyCycle(Work work, Work postWork, boolean waitersDrive, java.util.function.Consumer<RuntimeException> waiterError,
              Runnable missedPost) {
        this(work, postWork, waitersDrive, waiterError, missedPost, System::nanoTime);
    }

    /** As above; {@code clock} times how long posts are held ({@link HeldPosts}). */
    DutyCycle(Work work, Work postWork, boolean waitersDrive, java.util.function.Consumer<RuntimeException> waiterError,
              Runnable missedPost, java.util.function.LongSupplier clock) {
        this.held = new HeldPosts(clock);
        this.work = work;
        this.postWork = postWork;
        this.missedPost = missedPost;
        this.waitersDrive = waitersDrive;
        this.waiterError = waiterError;
    }

    /** Whether a thread waiting for one of the device's completions runs its cycles ({@link #driveUntil}). */
    boolean waitersDrive() {
        return waitersDrive;
    }

    /**
     * Runs one cycle unless another thread is running one: the work it did (0 or more), or -1
     * when the right was held elsewhere. An exception of the cycle propagates, the right given back.
     * The cycle's clock is read once the right is held, so the device never sees time go back
     * when its cycles move from one thread to another.
     */
    int tryRun() {
        return tryRun(null);
    }

    /**
     * A posting thread runs a cycle on a device whose waiters drive it, unless another thread runs
     * one ({@link SoftDevice#onPosted}): as {@link #tryRun}, the poster's work (a cycle that only
     * sends, then a whole one), but a cycle's exception goes to the
     * handler given at construction (the post itself succeeded), and the cycle does not count as a
     * waiter's (the agent takes over from a thread that only posts). An {@link Error} propagates out
     * of {@code postSend}, although the request was posted.
     */
    int runForPoster() {
        postPending = true; // then try to take the right: a Dekker pair with the holder's release
        try {
            return tryRun(postWork, null);
        } catch (RuntimeException e) {
            waiterError.accept(e);
            return 0;
        }
    }

    /**
     * A request was posted by a poster that said more will follow ({@link
     * io.slime4j.verbs.WorkRequest#more}) where a cycle comes soon anyway ({@link PostRoute#HOLD}: on
     * a busy-polling device behind earlier requests of its queue pair still outstanding, on a default
     * device not behind others while its agent rests and no waiter drives): it waits for the next
     * cycle anyone runs, with whatever else is posted meanwhile ({@link HeldPosts}), unless enough
     * are held that the poster runs the cycle now ({@link #runForPoster}). A cycle under way runs one
     * more for it when it ends ({@link #tryRun}); the agent, back from a rest, runs one ({@link
     * #postsHeld}; a default agent, woken by the post, its send-only cycle). Returns whether the
     * post was held; false when this poster ran the cycle (or, if another thread held the right,
     * left the post to that holder's next cycle, as {@link #runForPoster} does).
     */
    boolean holdForPoster() {
        postPending = true; // seen by the next cycle anyone begins: a Dekker pair with the holder's release
        if (held.holdOrRing()) {
            runForPoster();
            return false;
        }
        return true;
    }

    /**
     * How many held posts the cycles run since the last call sent ({@link HeldPosts}), then none:
     * the holder's, from inside its cycle, to count them once a cycle.
     */
    int takeHeldPosts() {
        int n = heldPosts;
        heldPosts = 0;
        return n;
    }

    /**
     * Whether a post waits for a cycle: held ({@link #holdForPoster}) or made while another thread
     * ran one. Any thread; the agent asks it when a rest ends.
     */
    boolean postsHeld() {
        return postPending;
    }

    /**
     * A waiter's or the agent's cycle: one that sends first when requests wait for it ({@link #postWork}).
     * {@code waiter} is what a waiter that runs it waits for ({@link #waiterSatisfied}), null for the agent.
     */
    private int tryRun(BooleanSupplier waiter) {
        return tryRun(postPending ? postWork : work, waiter);
    }

    private int tryRun(Work cycle, BooleanSupplier waiter) {
        if (!HOLDER.compareAndSet(this, null, Thread.currentThread())) {
            return -1;
        }
        int done = runHeld(cycle, waiter);
        if (postPending) {
            // a thread posted during the cycle and could not take the right: the cycle may have passed its
            // queue pair already, so run one more (or, if another thread took the right, that one's covers it)
            if (HOLDER.compareAndSet(this, null, Thread.currentThread())) {
                done += runHeld(postWork, waiter);
            }
            if (postPending) {
                missedPost.run();
            }
        }
        return done;
    }

    /** Runs {@code cycle} with the right held, then gives it back (a volatile write: see {@link #postPending}). */
    private int runHeld(Work cycle, BooleanSupplier waiter) {
        postPending = false; // before the cycle reads the queues: a post after this is seen, or sets it again
        heldPosts += held.cycleBegan();
        runFor = waiter;
        try {
            return cycle.run(System.nanoTime());
        } finally {
            runFor = null;
            completed = completed + 1; // one writer: the holder
            if (waiter != null) {
                byWaiters = byWaiters + 1;
            }
            HOLDER.setVolatile(this, null);
        }
    }

    /**
     * Whether the cycle under way is a waiting thread's ({@link #driveUntil}) and what that thread
     * waits for has come: one of the conditions under which a busy-polling device's receive ends
     * early ({@code SoftDevice.receiveMayEnd}), leaving what else is queued to the next cycle, so the
     * waiter returns without first polling the sockets again (on the UDP wire, a system call per
     * empty socket). The holder's, from inside its cycle.
     */
    boolean waiterSatisfied() {
        BooleanSupplier w = runFor;
        return w != null && w.getAsBoolean();
    }

    /**
     * Takes the right for good (the device closes: from now on only the closing thread touches its
     * state), once a cycle running elsewhere has ended; gives up after 5 s, returning false.
     */
    boolean seize() {
        long deadline = System.nanoTime() + SEIZE_TIMEOUT_NANOS;
        while (!HOLDER.compareAndSet(this, null, Thread.currentThread())) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return true;
    }

    /** Whether the calling thread is inside a cycle now (or seized the right). */
    boolean heldByCurrentThread() {
        return holder == Thread.currentThread();
    }

    /** Cycles that ended, whoever ran them. */
    long completed() {
        return completed;
    }

    /** Cycles that threads waiting for a completion ran (the rest: the agent's). */
    long byWaiters() {
        return byWaiters;
    }

    /**
     * For the agent only: whether a waiter drives the cycles now or ran one since the agent last
     * asked. A waiter leaves between two operations for a few microseconds; the agent should not
     * take over in such a gap.
     */
    boolean waitersActiveSinceLastLook() {
        long n = byWaiters;
        boolean active = n != byWaitersSeen || waiters > 0;
        byWaitersSeen = n;
        return active;
    }

    /** For the agent only: whether no cycle ended since the agent last asked (whoever would have run it). */
    boolean noCycleSinceLastLook() {
        long n = completed;
        boolean none = n == completedSeen;
        completedSeen = n;
        return none;
    }

    /** Whether a thread waiting for a completion drives the cycles now (the agent need not). */
    boolean drivenByWaiter() {
        return waiters > 0;
    }

    /**
     * Runs cycles on the calling thread, spinning, until {@code ready} holds or {@code deadline}
     * ({@link System#nanoTime()}) passes; while another thread holds the right it only spins.
     * Returns whether {@code ready} held. Interruptible; a cycle's exception goes to the handler
     * given at construction, an {@link Error} propagates.
     */
    boolean driveUntil(BooleanSupplier ready, long deadline) throws InterruptedException {
        return driveUntil(ready, deadline, SPIN);
    }

    /** What a driving waiter does after a cycle that did no work, given the time left to its deadline. */
    @FunctionalInterface
    interface Idle {
        void idle(long remainingNanos);
    }

    private static final Idle SPIN = remaining -> Thread.onSpinWait();

    /**
     * As {@link #driveUntil(BooleanSupplier, long)}, but after a cycle that did no work (or while
     * another thread holds the right, which on a default device then runs one more when it gives
     * the right back) it calls {@code idle} instead of spinning: a default device's waiter blocks on
     * the device's sockets there ({@link WaiterBlock}).
     */
    boolean driveUntil(BooleanSupplier ready, long deadline, Idle idle) throws InterruptedException {
        WAITERS.getAndAdd(this, 1);
        try {
            while (!ready.getAsBoolean()) {
                if (System.nanoTime() - deadline >= 0) {
                    return false;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                int done;
                try {
                    done = tryRun(ready);
                    if (done < 0 && !waitersDrive) {
                        // another thread's cycle is under way and may have passed a request posted just before
                        // this wait (a default device's poster leaves it to the agent, which skips a device a
                        // waiter drives): ask that holder for one more cycle, as a poster does (a Dekker pair
                        // with its release), so that this waiter may block (a busy-polling waiter only spins
                        // and runs its own cycle after the holder's)
                        postPending = true;
                        done = tryRun(work, ready); // if it wins the right after all: a whole cycle, which sends too
                    }
                } catch (RuntimeException e) {
                    waiterError.accept(e);
                    done = 0;
                }
                if (done <= 0 && !ready.getAsBoolean()) {
                    idle.idle(deadline - System.nanoTime());
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
            return true;
        } finally {
            WAITERS.getAndAdd(this, -1);
        }
    }

    /**
     * Waits until {@code n} more cycles have ended (every cycle begun before the call has then
     * ended), calling {@code nudge} while it waits so that a resting agent runs them, or until
     * {@code timeoutNanos} passed or {@code stillDriven} turns false. Returns whether they ended.
     */
    boolean awaitCycles(int n, long timeoutNanos, Runnable nudge, BooleanSupplier stillDriven) {
        long target = completed + n;
        long deadline = System.nanoTime() + timeoutNanos;
        while (completed < target && stillDriven.getAsBoolean()) {
            nudge.run();
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return true;
    }
}
