package io.slime4j.endpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Dispatch threads shared by many endpoints: one thread per rail index serves the completion
 * queues of that rail of every endpoint opened with the group
 * ({@link RdmaEndpoint#open(List, EndpointConfig, DispatchGroup)}), instead of one thread per
 * rail per endpoint. A process talking to hundreds of peers through one endpoint each (a transfer
 * engine) keeps its thread count independent of the number of peers.
 *
 * <p>The thread sweeps its members' queues and handles what each holds, exactly as an endpoint's
 * own dispatch thread does (same lock, same order). When a sweep finds nothing it waits on the
 * queue that last had completions (woken by its producer at once, unless a caller waits on that
 * queue, which then takes what arrives) for a slice that starts at
 * {@value #MIN_IDLE_NANOS} ns and doubles up to {@value #MAX_IDLE_NANOS} ns, then sweeps again: a
 * completion of another member waits at most that long when no caller is helping (a caller
 * blocked in {@code await} takes its op's rail's queue over and is not delayed).
 * Threads start with the first member of their rail and end with {@link #close()}.
 */
public final class DispatchGroup implements AutoCloseable {
    static final long MIN_IDLE_NANOS = 50_000;
    static final long MAX_IDLE_NANOS = 10_000_000;

    private final String name;
    private final List<Lane> lanes = new ArrayList<>();
    private boolean closed;

    private DispatchGroup(String name) {
        this.name = name;
    }

    /** A group whose threads are named {@code slime4j-<name>-dispatch[-railN]}. */
    public static DispatchGroup create(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a dispatch group needs a name");
        }
        return new DispatchGroup(name);
    }

    /** The group's name. */
    public String name() {
        return name;
    }

    /** How many endpoint rails the group serves now. */
    public synchronized int members() {
        int n = 0;
        for (Lane l : lanes) {
            n += l.members.length;
        }
        return n;
    }

    /** The thread serving rail {@code rail}, started on first use. */
    synchronized Thread thread(int rail) {
        if (closed) {
            throw new EndpointClosedException("dispatch group " + name + " is closed");
        }
        while (lanes.size() <= rail) {
            Lane l = new Lane(lanes.size());
            lanes.add(l);
            l.thread.start();
        }
        return lanes.get(rail).thread;
    }

    synchronized void add(int rail, Dispatcher d) {
        thread(rail);
        Lane l = lanes.get(rail);
        Dispatcher[] next = java.util.Arrays.copyOf(l.members, l.members.length + 1);
        next[next.length - 1] = d;
        l.members = next;
        LockSupport.unpark(l.thread);
    }

    synchronized void remove(int rail, Dispatcher d) {
        if (rail >= lanes.size()) {
            return;
        }
        Lane l = lanes.get(rail);
        l.members = java.util.Arrays.stream(l.members).filter(m -> m != d).toArray(Dispatcher[]::new);
    }

    /** Stops the threads (bounded wait); endpoints still in the group stop being served: close them first. */
    @Override
    public void close() {
        List<Lane> ls;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            ls = List.copyOf(lanes);
        }
        for (Lane l : ls) {
            l.running = false;
            l.thread.interrupt();
        }
        for (Lane l : ls) {
            try {
                l.thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "DispatchGroup{" + name + ", " + members() + " members}";
    }

    /** One rail index: its members and its thread. */
    private final class Lane implements Runnable {
        final Thread thread;
        volatile Dispatcher[] members = new Dispatcher[0];
        volatile boolean running = true;

        Lane(int rail) {
            this.thread = Thread.ofPlatform().daemon().name("slime4j-" + name + "-dispatch"
                    + (rail == 0 ? "" : "-rail" + rail)).unstarted(this);
        }

        @Override
        public void run() {
            Dispatcher last = null;
            long idle = MIN_IDLE_NANOS;
            while (running) {
                Dispatcher[] ms = members;
                int handled = 0;
                for (Dispatcher d : ms) {
                    int n = d.drainShared();
                    if (n > 0) {
                        handled += n;
                        last = d;
                    }
                }
                if (handled > 0) {
                    idle = MIN_IDLE_NANOS;
                    continue;
                }
                try {
                    if (last == null || !last.isMember()) {
                        last = ms.length > 0 ? ms[0] : null;
                    }
                    if (last == null) {
                        LockSupport.parkNanos(this, MAX_IDLE_NANOS);
                    } else {
                        last.awaitReady(idle);
                    }
                } catch (InterruptedException e) {
                    // close() interrupts; the loop condition decides
                }
                idle = Math.min(idle * 2, MAX_IDLE_NANOS);
            }
        }
    }

    /** For tests: the wait bound of an idle sweep. */
    static long maxIdle(TimeUnit unit) {
        return unit.convert(MAX_IDLE_NANOS, TimeUnit.NANOSECONDS);
    }
}
