package io.slime4j.wire.inproc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded, lock-free, multi-producer single-consumer queue over a power-of-two array, after
 * JCTools' {@code MpscArrayQueue}: producers claim a slot by CAS on the producer index and then
 * publish the element into it with a release store; the single consumer reads the slot with an
 * acquire load, clears it, and advances the consumer index with a release store. Producers cache
 * a limit (consumer index + capacity) so that they read the consumer's index only when the cached
 * limit is reached. The indices live in separate cache lines (class-hierarchy padding).
 *
 * <p>{@link #poll()} may return null while a producer that has claimed the head slot has not yet
 * published it; the element is then returned by a later poll.
 *
 * @param <E> element type
 */
final class MpscArrayQueue<E> extends MpscPad2 {

    private static final VarHandle PRODUCER_INDEX;
    private static final VarHandle PRODUCER_LIMIT;
    private static final VarHandle CONSUMER_INDEX;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PRODUCER_INDEX = lookup.findVarHandle(MpscProducerIndex.class, "producerIndex", long.class);
            PRODUCER_LIMIT = lookup.findVarHandle(MpscProducerIndex.class, "producerLimit", long.class);
            CONSUMER_INDEX = lookup.findVarHandle(MpscConsumerIndex.class, "consumerIndex", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] slots;
    private final int mask;

    /** A queue of {@code capacity} elements, a power of two of at least 2. */
    MpscArrayQueue(int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two >= 2, was " + capacity);
        }
        slots = new Object[capacity];
        mask = capacity - 1;
        PRODUCER_LIMIT.setRelease(this, (long) capacity);
    }

    /** Capacity in elements. */
    int capacity() {
        return mask + 1;
    }

    /**
     * Appends {@code element}; safe from any number of threads.
     *
     * @return false if the queue is full
     */
    boolean offer(E element) {
        if (element == null) {
            throw new NullPointerException("element");
        }
        long limit = (long) PRODUCER_LIMIT.getVolatile(this);
        long index;
        do {
            index = (long) PRODUCER_INDEX.getVolatile(this);
            if (index >= limit) {
                limit = (long) CONSUMER_INDEX.getAcquire(this) + mask + 1;
                if (index >= limit) {
                    return false;
                }
                PRODUCER_LIMIT.setRelease(this, limit);
            }
        } while (!PRODUCER_INDEX.compareAndSet(this, index, index + 1));
        SLOT.setRelease(slots, (int) (index & mask), element);
        return true;
    }

    /**
     * Removes the oldest published element; the single consumer thread only.
     *
     * @return the element, or null if none is published yet
     */
    @SuppressWarnings("unchecked")
    E poll() {
        long index = consumerIndex;
        int offset = (int) (index & mask);
        Object element = SLOT.getAcquire(slots, offset);
        if (element == null) {
            return null;
        }
        slots[offset] = null;
        CONSUMER_INDEX.setRelease(this, index + 1);
        return (E) element;
    }

    /** Elements claimed but not yet consumed; a moving estimate when called concurrently. */
    int size() {
        long consumer = (long) CONSUMER_INDEX.getVolatile(this);
        long producer = (long) PRODUCER_INDEX.getVolatile(this);
        return (int) Math.max(0, Math.min(producer - consumer, mask + 1));
    }
}

/** Padding ahead of the producer fields. */
abstract class MpscPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The producers' fields: the claim index and the cached limit. */
abstract class MpscProducerIndex extends MpscPad0 {
    volatile long producerIndex;
    volatile long producerLimit;
}

/** Padding between the producer and consumer fields. */
abstract class MpscPad1 extends MpscProducerIndex {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p28, p29, p30, p31, p32, p33, p34, p35;
}

/** The consumer's index, written only by the consumer thread. */
abstract class MpscConsumerIndex extends MpscPad1 {
    long consumerIndex;
}

/** Padding after the consumer index, ahead of the read-mostly array fields. */
abstract class MpscPad2 extends MpscConsumerIndex {
    long p40, p41, p42, p43, p44, p45, p46, p47;
    long p48, p49, p50, p51, p52, p53, p54, p55;
}
