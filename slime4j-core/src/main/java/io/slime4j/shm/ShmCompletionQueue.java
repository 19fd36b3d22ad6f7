package io.slime4j.shm;

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
 * A completion ring in this process (completions never cross processes): one producer at a time,
 * the holder of the device's progress lock (or the closing thread once the agent stopped), pollers
 * serialised by a lock, waiters parked and unparked directly by the producer only when one is
 * blocked; the producer wakes them once per queue pair's turn, not once per completion (a woken
 * waiter preempts the agent on its core). A poll or wait that finds the ring empty runs a duty
 * cycle of the device itself (when no other thread does): it takes the peer's answers and executes
 * the peer's requests without waiting for the agent. With a busy-polling device a waiter spins so,
 * and the agent stays out of its way. Polling a send completion retires its request and every
 * earlier unsignaled one of the queue pair.
 */
final class ShmCompletionQueue implements CompletionQueue {
    private static final VarHandle TAIL;
    private static final VarHandle WAITERS;
    private static final VarHandle PASSIVE;
    private static final VarHandle SPINNING;
    private static final WcStatus[] STATUSES = WcStatus.values();
    private static final WcOpcode[] OPCODES = WcOpcode.values();

    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(ShmCompletionQueue.class, "tail", long.class);
            WAITERS = MethodHandles.lookup().findVarHandle(ShmCompletionQueue.class, "waiters", int.class);
            PASSIVE = MethodHandles.lookup().findVarHandle(ShmCompletionQueue.class, "passiveWaiters", int.class);
            SPINNING = MethodHandles.lookup().findVarHandle(ShmCompletionQueue.class, "spinning", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ShmDevice device;
    private final int capacity;
    private final int mask;
    private final long[] wrId;
    private final byte[] status;
    private final byte[] opcode;
    private final int[] byteLength;
    private final int[] immediate;
    private final boolean[] hasImmediate;
    private final ShmQueuePair[] qp;
    private final long[] ssn;

    @SuppressWarnings("unused") // through TAIL
    private volatile long tail;
    private volatile long head;
    private volatile boolean overflowed;
    private volatile int waiters;
    /** Threads blocked in {@link #awaitReadyPassively}, woken only while no thread waits actively. */
    private volatile int passiveWaiters;
    /**
     * Threads running the device's progress in {@link #awaitReady} for this queue (busy-polling, or
     * the one turn a waiter helps with before it sleeps), and posters between {@link #beginPolling()}
     * and {@link #endPolling()}: active waiters, which poll what they push.
     */
    private volatile int spinning;
    private volatile boolean closed;
    private long lost;
    /** A wake-up is owed to the waiters (holder of the progress lock only). */
    private boolean wakePending;
    private final ReentrantLock lock = new ReentrantLock();
    private final ParkedThreads sleepers = new ParkedThreads();
    private final ParkedThreads passiveSleepers = new ParkedThreads();

    ShmCompletionQueue(ShmDevice device, int capacity) {
        if (capacity < 1 || capacity > (1 << 24)) {
            throw new IllegalArgumentException("completion queue capacity must be in 1..16777216, was " + capacity);
        }
        this.device = device;
        this.capacity = capacity;
        int size = capacity == 1 ? 1 : Integer.highestOneBit(capacity - 1) << 1;
        mask = size - 1;
        wrId = new long[size];
        status = new byte[size];
        opcode = new byte[size];
        byteLength = new int[size];
        immediate = new int[size];
        hasImmediate = new boolean[size];
        qp = new ShmQueuePair[size];
        ssn = new long[size];
    }

    /** Appends a completion (the agent only); {@code sendSsn} -1 for receives. False if it overflowed. */
    boolean push(ShmQueuePair owner, long sendSsn, long id, WcStatus st, WcOpcode op, int bytes, int imm, boolean withImm) {
        long t = tail;
        if (overflowed || t - head >= capacity) {
            lost++;
            if (!overflowed) {
                overflowed = true;
                device.onOverflow(this);
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
        owner.counters().increment(Counter.COMPLETIONS_GENERATED);
        TAIL.setVolatile(this, t + 1);
        if (waiters > 0 || passiveWaiters > 0 && spinning == 0) {
            if (device.progressing()) {
                if (!wakePending) { // woken once, when the producer has pushed what this turn brought
                    wakePending = true;
                    device.wakeLater(this);
                }
            } else {
                wake();
            }
        }
        return true;
    }

    /** Wakes the waiters a {@link #push} under the progress lock left for the end of its queue pair's turn. */
    void wakeDeferred() {
        wakePending = false;
        wake();
    }

    /**
     * Unparks the threads blocked in {@link #awaitReady}, or when there are none and no thread
     * busy-polls for this queue, those blocked in {@link #awaitReadyPassively} (as the soft
     * device's queue does: an active waiter takes what it waited for, or hands it over).
     */
    private void wake() {
        if (waiters > 0) {
            sleepers.wakeAll();
        } else if (spinning == 0) {
            passiveSleepers.wakeAll();
        }
    }

    /** Unparks every blocked thread, active or passive (the queue overflowed or closed). */
    private void wakeEveryone() {
        sleepers.wakeAll();
        passiveSleepers.wakeAll();
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(WorkCompletion[] into) {
        if (!ready()) {
            device.help(); // nothing here yet: take the peer's answers now rather than wait for the agent
            if (!ready()) {
                return 0;
            }
        }
        int n;
        lock.lock();
        try {
            long h = head;
            long t = (long) TAIL.getAcquire(this);
            n = (int) Math.min(t - h, into.length);
            for (int k = 0; k < n; k++) {
                int i = (int) ((h + k) & mask);
                ShmQueuePair owner = qp[i];
                into[k].set(wrId[i], STATUSES[status[i]], OPCODES[opcode[i]], byteLength[i], immediate[i],
                        hasImmediate[i], owner.qpn());
                if (ssn[i] >= 0) {
                    owner.retireSendsUpTo(ssn[i]);
                }
                owner.counters().increment(Counter.COMPLETIONS_POLLED);
                qp[i] = null;
            }
            head = h + n;
        } finally {
            lock.unlock();
        }
        if (n == 0 && overflowed) {
            throw new CompletionQueueOverflowException("completion queue of shm device " + device.name()
                    + " overflowed (capacity " + capacity + ", " + lost
                    + " completions lost); its queue pairs were moved to ERR: poll more often or create a larger queue");
        }
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

    /** True on a busy-polling device ({@link ShmConfig#busyPoll()}): its waiters spin its progress. */
    @Override
    public boolean drivenByWaiters() {
        return device.config().busyPoll();
    }

    /** True: a write or read into memory the peer exports is copied and completed inside the post. */
    @Override
    public boolean completesOnPost() {
        return true;
    }

    /** Counted as an active waiter ({@link #spinning}) until {@link #endPolling()}: a Dekker pair with push(). */
    @Override
    public void beginPolling() {
        SPINNING.getAndAdd(this, 1);
    }

    @Override
    public void endPolling() {
        SPINNING.getAndAdd(this, -1);
    }

    @Override
    public boolean awaitReadyPassively(long timeout, TimeUnit unit) throws InterruptedException {
        if (ready()) {
            return true;
        }
        if (timeout <= 0) {
            return false; // a look (no clock read: posters look after every post)
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (deadline - System.nanoTime() <= 0 || closed) {
            return false;
        }
        return sleepUntilReady(deadline, passiveSleepers, PASSIVE);
    }

    @Override
    public boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
        if (ready()) {
            return true;
        }
        beginPolling(); // an active waiter while it helps: what its turn pushes is its own to poll
        try {
            device.help();
        } finally {
            endPolling();
        }
        if (ready()) {
            return true;
        }
        if (timeout <= 0) {
            return false; // a look that drove the device once (no deadline: a helper's spin makes many)
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (deadline - System.nanoTime() <= 0 || closed) {
            return false;
        }
        if (device.config().busyPoll()) {
            return spinUntilReady(deadline);
        }
        long spin = device.config().spin().toNanos();
        if (spin > 0) {
            // a brief spin first, driving the device, as its agent spins before it sleeps: most answers come
            // within it, and a park and its wake-up cost more than the spin (a futex each, and on a VM the
            // wake-up of an idle vCPU; the default 32 B message rate 516 -> 954 k msg/s: docs/PERFORMANCE.md)
            long spinUntil = System.nanoTime() + spin;
            if (spinUntilReady(deadline - spinUntil < 0 ? deadline : spinUntil)) {
                return true;
            }
        }
        return sleepUntilReady(deadline, sleepers, WAITERS);
    }

    /** Parks among {@code set}, counted in {@code count}, until a completion, the close or {@code deadline}. */
    private boolean sleepUntilReady(long deadline, ParkedThreads set, VarHandle count) throws InterruptedException {
        Thread me = Thread.currentThread();
        int place = set.add(me);
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

    /**
     * Runs the device's duty cycles on this thread until a completion or {@code deadline}: a
     * busy-polling waiter's whole wait, another waiter's brief spin before it parks.
     */
    private boolean spinUntilReady(long deadline) throws InterruptedException {
        device.spinning(1);
        beginPolling(); // then re-read the tail (ready) in the loop
        try {
            int turns = 0;
            long now = System.nanoTime();
            while (!closed) {
                int did = device.help(now);
                if (ready()) {
                    return true;
                }
                // the clock every fourth empty turn, for the deadline and the next cycles' timers, and after
                // a turn that worked (perf: clock reads were a tenth of a busy 32 B message rate's samples)
                turns++;
                if (did != 0 || (turns & 3) == 0) {
                    now = System.nanoTime();
                    if (deadline - now <= 0) {
                        return false;
                    }
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (turns % 64 == 0) {
                    Thread.yield(); // fewer cores than runnable threads: let the thread this one waits for run
                    now = System.nanoTime(); // the yield may have lasted: the next cycles' timers need the time
                } else {
                    Thread.onSpinWait();
                }
            }
            return ready();
        } finally {
            endPolling();
            device.spinning(-1);
        }
    }

    private boolean ready() {
        return (long) TAIL.getAcquire(this) != head || overflowed;
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
