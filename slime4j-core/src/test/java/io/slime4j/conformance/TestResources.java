package io.slime4j.conformance;

import io.slime4j.verbs.VerbsDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * Everything one test opened: verbs objects (closed in reverse order of creation: queue pairs
 * before their completion queues, regions before their domains, everything before its device) and
 * one shared arena for buffers, closed last so that no device thread can still reach freed
 * memory. Buffers come from a shared arena: a device's progress thread must be able to reach them.
 */
final class TestResources implements AutoCloseable {
    private record Entry(AutoCloseable resource, VerbsDevice owner) {}

    private final Deque<Entry> entries = new ArrayDeque<>();
    private final Arena arena = Arena.ofShared();

    /** Tracks a resource that belongs to no device (a device itself, an arena). */
    synchronized <T extends AutoCloseable> T track(T resource) {
        entries.push(new Entry(resource, null));
        return resource;
    }

    /** Tracks a resource created by {@code owner}. */
    synchronized <T extends AutoCloseable> T track(VerbsDevice owner, T resource) {
        entries.push(new Entry(resource, owner));
        return resource;
    }

    /** Closes a device now and forgets it and every resource created by it. */
    void closeDevice(VerbsDevice device) {
        synchronized (this) {
            for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (e.owner() == device || e.resource() == device) {
                    it.remove();
                }
            }
        }
        device.close();
    }

    /** Zeroed off-heap memory from the shared arena, page aligned. */
    MemorySegment allocate(long size) {
        return arena.allocate(size, 4096);
    }

    @Override
    public void close() {
        Throwable failure = null;
        while (true) {
            Entry e;
            synchronized (this) {
                e = entries.poll();
            }
            if (e == null) {
                break;
            }
            try {
                e.resource().close();
            } catch (Throwable t) {
                if (failure == null) {
                    failure = new AssertionError("closing " + e.resource() + " failed", t);
                } else {
                    failure.addSuppressed(t);
                }
            }
        }
        try {
            arena.close();
        } catch (Throwable t) {
            if (failure == null) {
                failure = new AssertionError("closing the buffer arena failed", t);
            } else {
                failure.addSuppressed(t);
            }
        }
        if (failure instanceof Error error) {
            throw error;
        }
    }
}
