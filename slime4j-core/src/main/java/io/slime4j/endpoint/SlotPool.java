package io.slime4j.endpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed pool of {@link Slot}s and its free ring (Layer 3). Every slot starts in the ring; an op
 * leases one with {@link #acquire} (waiting, with a bound, when the ring is empty: back-pressure)
 * and it comes back only through {@link #release}, which refuses a slot that is not leased. No
 * slot is ever picked by {@code counter % depth}. Thread-safe; waits are bounded.
 */
final class SlotPool {
    private final String name;
    private final Slot[] slots;
    private final int[] ring;
    private long head;
    private long tail;
    private boolean closed;
    private String failure;
    private long leases;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();

    /** A pool of {@code size} slots, each with room for {@code requests} request records. */
    SlotPool(String name, int size, int requests, long metaBase) {
        this.name = name;
        this.slots = new Slot[size];
        this.ring = new int[size];
        for (int i = 0; i < size; i++) {
            slots[i] = new Slot(i, requests, metaBase + (long) i * Wire32.META_BYTES);
            ring[i] = i;
        }
        tail = size;
    }

    String name() {
        return name;
    }

    Slot slot(int index) {
        return slots[index];
    }

    int capacity() {
        return slots.length;
    }

    /** Leases a free slot, waiting up to {@code timeoutNanos}; null on timeout. */
    Slot acquire(long timeoutNanos) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long remaining = timeoutNanos;
            while (head == tail) {
                checkOpen();
                if (remaining <= 0) {
                    return null;
                }
                remaining = notEmpty.awaitNanos(remaining);
            }
            return take();
        } finally {
            lock.unlock();
        }
    }

    /** Leases a free slot if there is one now; null otherwise. */
    Slot tryAcquire() {
        lock.lock();
        try {
            if (head == tail) {
                checkOpen();
                return null;
            }
            return take();
        } finally {
            lock.unlock();
        }
    }

    /** Takes the next free slot: the lock held, one free; throws if the pool was closed or failed. */
    private Slot take() {
        checkOpen();
        Slot s = slots[ring[(int) (head++ % ring.length)]];
        s.leased = true;
        leases++;
        return s;
    }

    /** Returns a leased slot to the free ring. */
    void release(Slot s) {
        lock.lock();
        try {
            if (!s.leased) {
                throw new IllegalStateException(name + " slot " + s.index + " released but not leased");
            }
            s.leased = false;
            ring[(int) (tail++ % ring.length)] = s.index;
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Slots in the free ring. */
    int free() {
        lock.lock();
        try {
            return (int) (tail - head);
        } finally {
            lock.unlock();
        }
    }

    long leases() {
        lock.lock();
        try {
            return leases;
        } finally {
            lock.unlock();
        }
    }

    /** The slots currently leased (closing only: to end leases whose completions will never come). */
    List<Slot> leased() {
        lock.lock();
        try {
            List<Slot> out = new ArrayList<>();
            for (Slot s : slots) {
                if (s.leased) {
                    out.add(s);
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The endpoint failed: wakes every waiter, which throws an {@link EndpointException} with
     * {@code why}, as do later acquires. Leased slots may still be released.
     */
    void fail(String why) {
        lock.lock();
        try {
            failure = why;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes and fails every waiter; later acquires fail. Leased slots may still be released. */
    void close() {
        lock.lock();
        try {
            closed = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new EndpointClosedException(name + " pool is closed: the endpoint is closing");
        }
        if (failure != null) {
            throw new EndpointException(failure);
        }
    }
}
