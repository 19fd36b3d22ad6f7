package io.slime4j.endpoint;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Notices ({@link EagerPath}) waiting for an eager credit, and the one way a credit comes back:
 * returned by the peer or taken and not spent, a credit goes to the oldest waiting notice first and
 * only what they do not take is freed for senders ({@link EagerCredits#free}). Both under one lock,
 * so no sender can take a credit a waiting notice needs: a notice that starved would hang its
 * rendezvous send and the small recv it is paired with. Notices are posted outside the lock.
 */
final class NoticeQueue {
    private final EagerCredits credits;
    private final Consumer<Slot> post;
    private final ArrayDeque<Slot> waiting = new ArrayDeque<>();

    /** {@code post} sends one notice whose credit is already taken. */
    NoticeQueue(EagerCredits credits, Consumer<Slot> post) {
        this.credits = credits;
        this.post = post;
    }

    /** A notice for {@code slot}: goes now if a credit is free, else waits for one to come back. */
    void add(Slot slot) {
        synchronized (waiting) {
            if (!waiting.isEmpty() || !credits.tryAcquire()) {
                waiting.add(slot);
                return;
            }
        }
        post.accept(slot);
    }

    /** {@code n} credits came back: waiting notices take them first, the rest are freed. */
    void back(int n) {
        while (n > 0) {
            Slot s;
            synchronized (waiting) {
                s = waiting.poll();
                if (s == null) {
                    credits.free(n);
                    return;
                }
                n--;
                credits.handOff();
            }
            post.accept(s);
        }
    }

    /** Ending: removes every waiting notice, giving each slot to {@code each}. */
    void clear(Consumer<Slot> each) {
        for (;;) {
            Slot s;
            synchronized (waiting) {
                s = waiting.poll();
            }
            if (s == null) {
                return;
            }
            each.accept(s);
        }
    }

    int waiting() {
        synchronized (waiting) {
            return waiting.size();
        }
    }
}
