package io.slime4j.soft;

import io.slime4j.internal.ParkedThreads;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.CompletionQueueOverflowException;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion ring with one producer, the device's progress agent, and any number of pollers
 * (serialised by a lock; polling an empty queue takes no lock). A waiting poller parks; the
 * producer unparks it directly, only when one is blocked, and never takes a lock to do so. Entries are pre-allocated columns; producing and polling allocate
 * nothing. Polling a send-side completion retires its send-queue slots (and those of every
 * earlier unsignaled request), which is what makes room for new posts.
 */
final class SoftCompletionQueue implements CompletionQueue, CompletionWakeups.Wakeable {
    private static final VarHandle TAIL;
    private static final VarHandle WAITERS;
    private static final VarHandle DRIVERS;
    private static final VarHandle PASSIVE;
    private static final WcStatus[] STATUSES = WcStatus.values();
    private static final WcOpcode[] OPCODES = WcOpcode.values();

    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(SoftCompletionQueue.class, "tail", long.class);
            WAITERS = MethodHandles.lookup().findVarHandle(SoftCompletionQueue.class, "waiters", int.class);
            DRIVERS = MethodHandles.lookup().findVarHandle(SoftCompletionQueue.class, "drivers", int.class);
            PASSIVE = MethodHandles.lookup().findVarHandle(SoftCompletionQueue.class, "passiveWaiters", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final SoftDevice device;
    private final int capacity;
    private final int mask;
    private final long[] wrId;
    private final byte[] status;
    private final byte[] opcode;
    private final int[] byteLength;
    private final int[] immediate;
    private final boolean[] hasImmediate;
    private final SoftQueuePair[] qp;
    private final long[] ssn;

    @SuppressWarnings("unused") // accessed through TAIL
    private volatile long tail;
    private volatile long head;
    private volatile boolean overflowed;
    private volatile int waiters;
    /**
     * Threads that drive the device while they wait for this queue (busy-polling), or that said
     * they poll it next ({@link #beginPolling}: an endpoint's helping caller). Together with
     * the threads blocked in {@link #awaitReady} ({@link #waiters}) they are the active waiters:
     * while there is one, a push wakes the blocked active ones only and no passive waiter
     * ({@link #awaitReadyPassively}, an endpoint's dispatch thread), since an active waiter polls
     * what it waited for itself or hands it over (as the endpoint's helping caller wakes its
     * dispatch thread when it leaves completions behind). Woken with every completion, or looking
     * again every millisecond, the dispatch thread took a core from a spinning thread thousands of
     * times a second (docs/PERFORMANCE.md).
     */
    private volatile int drivers;
    /** Threads blocked in {@link #awaitReadyPassively}. */
    private volatile int passiveWaiters;
    private volatile boolean closed;
    private long lostCompletions;
    private final ReentrantLock lock = new ReentrantLock();
    private final java.util.function.BooleanSupplier readyOrClosed = () -> ready() || closed;
    /** How a waiter drives the device for this queue while it holds the {@link WaiterBlock}; null without one. */
    private final SoftDevice.BlockingDrive blockingDrive;
    /** The threads blocked in {@link #awaitReady}; {@link #waiters} counts them. */
    private final ParkedThreads sleepers = new ParkedThreads();
    /** The threads blocked in {@link #awaitReadyPassively}; {@link #passiveWaiters} counts them. */
    private final ParkedThreads passiveSleepers = new ParkedThreads();

    SoftCompletionQueue(SoftDevice device, int capacity) {
        if (capacity < 1 || capacity > (1 << 24)) {
            throw new IllegalArgumentException("completion queue capacity must be in 1..16777216, was " + capacity);
        }
        this.device = device;
        this.blockingDrive = device.blockingDrive(readyOrClosed);
        this.capacity = capacity;
        int size = Integer.highestOneBit(capacity - 1 == 0 ? 1 : capacity - 1) << 1;
        if (size < capacity) {
            size = capacity;
        }
        this.mask = size - 1;
        wrId = new long[size];
        status = new byte[size];
        opcode = new byte[size];
        byteLength = new int[size];
        immediate = new int[size];
        hasImmediate = new boolean[size];
        qp = new SoftQueuePair[size];
        ssn = new long[size];
    }

    SoftDevice device() {
        return device;
    }

    /**
     * Appends a completion (progress agent only). {@code sendSsn} is the send sequence number the
     * completion retires, or -1 for receive completions.
     *
     * @return false if the queue overflowed (the completion is counted as lost and the queue
     *         reports the overflow)
     */
    boolean push(SoftQueuePair owner, long sendSsn, long id, WcStatus st, WcOpcode op, int bytes, int imm, boolean withImm) {
        long t = tail;
        if (overflowed || t - head >= capacity) {
            // once overflowed, every later completion is refused too (counted as lost), even if a poll
            // made room meanwhile: what a poller gets is exactly what fitted before the overflow, with
            // no gap in the middle
            lostCompletions++;
            if (!overflowed) {
                overflowed = true;
                device.onCompletionQueueOverflow(this);
            }
            wakeEveryone();
            return false;
        }
        int i = (int) (t & mask);
        wrId[i] = id;
        status[i] = (byte) st.ordinal();
        opcode[i] = (byte) op.ordinal();
        byteLength[i] = bytes;
        immediate[i] = imm;
        hasImmediate[i] = withImm;
        qp[i] = owner;
        ssn[i] = sendSsn;
        owner.countersSet().increment(Counter.COMPLETIONS_GENERATED); // before it can be polled
        TAIL.setVolatile(this, t + 1); // volatile, then read waiters: a Dekker pair with awaitReady()
        if (drivers > 0) {
            device.wakeBlockedWaiter(); // a system call only while a waiter is blocked on the sockets
        }
        if (waiters > 0 || passiveWaiters > 0 && drivers == 0) {
            if (device.duty().heldByCurrentThread() && device.wakeups().isOpen()) {
                device.wakeups().owe(this); // woken at the cycle's end, once, before its held datagrams leave
            } else {
                wakeWaiters();
            }
        }
        return true;
    }

    @Override
    public void wakeNow() {
        wakeWaiters();
    }

    /**
     * Unparks the threads blocked in {@link #awaitReady}, or when there are none and no thread
     * drives the device for this queue, those blocked in {@link #awaitReadyPassively} (no lock: the
     * producer never blocks here).
     */
    private void wakeWaiters() {
        if (waiters > 0) {
            sleepers.wakeAll();
        } else if (drivers == 0) {
            passiveSleepers.wakeAll();
        }
    }

    /** Unparks every blocked thread, active or passive (the queue overflowed or closed). */
    private void wakeEveryone() {
        device.wakeBlockedWaiter();
        sleepers.wakeAll();
        passiveSleepers.wakeAll();
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(WorkCompletion[] into) {
        if ((long) TAIL.getAcquire(this) == head && !overflowed) {
            return 0; // empty: no lock (a poller's spin costs two volatile reads)
        }
        int n;
        lock.lock();
        try {
            n = drain(into);
        } finally {
            lock.unlock();
        }
        if (n == 0 && overflowed) {
            throw new CompletionQueueOverflowException("completion queue of device " + device.name()
                    + " overflowed (capacity " + capacity + ", " + lostCompletions
                    + " completions lost); its queue pairs were moved to ERR: poll more often or create a larger queue");
        }
        return n;
    }

    private int drain(WorkCompletion[] into) {
        long h = head;
        long t = (long) TAIL.getAcquire(this);
        int n = (int) Math.min(t - h, into.length);
        SoftQueuePair run = null; // COMPLETIONS_POLLED is added once per run of one queue pair's entries
        int runLength = 0;
        for (int k = 0; k < n; k++) {
            int i = (int) ((h + k) & mask);
            SoftQueuePair owner = qp[i];
            into[k].set(wrId[i], STATUSES[status[i]], OPCODES[opcode[i]], byteLength[i], immediate[i],
                    hasImmediate[i], owner.qpn());
            if (ssn[i] >= 0) {
                owner.retireSendsUpTo(ssn[i]);
            }
            if (owner != run) {
                if (run != null) {
                    run.countersSet().add(Counter.COMPLETIONS_POLLED, runLength);
                }
                run = owner;
                runLength = 0;
            }
            runLength++;
            qp[i] = null;
        }
        if (run != null) {
            run.countersSet().add(Counter.COMPLETIONS_POLLED, runLength);
        }
        head = h + n;
        return n;
    }

    @Override
    public int await(WorkCompletion[] into, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            int n = poll(into);
            if (n > 0) {
                return n;
            }
            if (!awaitReady(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                return 0;
            }
        }
    }

    @Override
    public boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitReady(timeout, unit, true);
    }

    @Override
    public boolean awaitReadyPassively(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitReady(timeout, unit, false);
    }

    private boolean awaitReady(long timeout, TimeUnit unit, boolean mayDrive) throws InterruptedException {
        if (ready()) {
            return true;
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (deadline - System.nanoTime() <= 0 || closed) {
            return false;
        }
        if (mayDrive && device.duty().waitersDrive() && !device.duty().heldByCurrentThread()) {
            // UCX's way: the waiting thread progresses the device itself, no hand-off from the agent
            DRIVERS.getAndAdd(this, 1);
            try {
                return device.duty().driveUntil(readyOrClosed, deadline) && ready();
            } finally {
                DRIVERS.getAndAdd(this, -1);
            }
        }
        WaiterBlock block = mayDrive ? device.waiterBlock() : null;
        if (block == null || device.duty().heldByCurrentThread()) {
            return park(deadline, mayDrive);
        }
        block.waitingOutside(); // then try the place: a Dekker pair with a leaving holder
        if (!device.waiterMayBlock() || !block.tryEnter()) {
            // a stream (the agent sends it together while this thread completes), or another waiter holds
            // the place: wait for the agent's or the holder's push, as before (a resting agent takes over now)
            device.waiterRefused();
            try {
                return park(deadline, true);
            } finally {
                block.stopWaitingOutside();
            }
        }
        block.stopWaitingOutside();
        // a default device whose agent is idle: the waiter runs the cycles and blocks on the device's sockets
        // itself, so the datagram that completes the wait wakes this thread, not the agent that would wake it
        DRIVERS.getAndAdd(this, 1); // then re-read the tail (ready): a Dekker pair with push()
        try {
            if (device.driveBlocking(blockingDrive, deadline) && (ready() || closed)) {
                return ready();
            }
        } finally {
            DRIVERS.getAndAdd(this, -1);
            boolean blocked = block.blockedSinceEnter(); // read while the place is still this thread's
            device.waiterLeft(block.leave(), blocked);
        }
        // the deadline passed, or the device closed under the drive: wait out the rest parked
        return !closed && deadline - System.nanoTime() > 0 ? park(deadline, true) : ready();
    }

    /** Parks until a completion is pushed (active: {@code mayDrive}; else passive), the queue closes or the deadline. */
    private boolean park(long deadline, boolean mayDrive) throws InterruptedException {
        ParkedThreads set = mayDrive ? sleepers : passiveSleepers;
        VarHandle count = mayDrive ? WAITERS : PASSIVE;
        Thread me = Thread.currentThread();
        int place = set.add(me); // before counting ourselves: the producer that sees the count finds us
        count.getAndAdd(this, 1); // then re-read the tail: a Dekker pair with push()
        try {
            while (!ready() && !closed) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, remaining);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
            return ready();
        } finally {
            count.getAndAdd(this, -1);
            set.remove(me, place);
        }
    }

    private boolean ready() {
        return (long) TAIL.getAcquire(this) != head || overflowed;
    }

    /**
     * On a device whose waiters drive it by busy-polling: a post that is not held for the next cycle
     * runs a duty cycle on the posting thread ({@link SoftDevice#onPosted}), and what that cycle takes
     * in (ACKs, messages) completes requests before the post returns. A default device's post
     * cycle, when it runs one, only sends: it completes nothing.
     */
    @Override
    public boolean completesOnPost() {
        return device.duty().waitersDrive();
    }

    /**
     * True on a device whose waiters drive it: busy-polling ({@link DutyCycle#waitersDrive}), or a
     * default device whose waiters block on its sockets while its agent is idle
     * ({@link SoftDevice#waiterBlock}), whose agent stands aside while they do.
     */
    @Override
    public boolean drivenByWaiters() {
        return device.waitersDrive();
    }

    /** Counted with the threads that drive the device ({@link #drivers}) until {@link #endPolling()}: a Dekker pair with push(). */
    @Override
    public void beginPolling() {
        DRIVERS.getAndAdd(this, 1);
    }

    @Override
    public void endPolling() {
        DRIVERS.getAndAdd(this, -1);
    }

    @Override
    public boolean isOverflowed() {
        return overflowed;
    }

    @Override
    public void close() {
        closed = true;
        wakeEveryone();
    }
}
