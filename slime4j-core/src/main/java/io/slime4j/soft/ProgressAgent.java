package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that drives one or more devices: calls {@link SoftDevice#doWork(long)} of each in a
 * loop and, when a cycle did no work, idles by spinning, then yielding, then arming and blocking
 * in an {@link IdleWait} (epoll on the ports' sockets and an eventfd, a selector, or a park) until
 * a datagram arrives, a poster wakes it, or the timeout passes: {@code maxIdlePark} while any
 * device has a timer or an ACK pending, {@link #QUIET_WAIT_NANOS} when none has (so an idle
 * connection costs nothing). While it spins and yields, an idle turn runs a cycle only when the
 * wait's one readiness check finds a socket readable, work was posted, or a timer may be due
 * ({@link ReadinessGate}), instead of polling every socket. With {@code busySpin} it only spins, and rests while threads that wait
 * for completions drive every one of its devices themselves ({@link DutyCycle}); without it, it rests
 * too while waiters blocked on the sockets drive them ({@link WaiterBlock}), in parks of at most
 * {@link #BLOCKING_STAND_ASIDE_MAX_NANOS}, and answers wake-ups that came meanwhile with a cycle that
 * only sends ({@link #sendOnly}). Posting threads and the wire
 * wake it with {@link #wakeup()}, which makes a system call only while the agent is armed; a
 * wake-up that races with the agent arming is never lost (the agent re-checks a pending flag after
 * announcing that it is armed). Catches and counts every exception of a
 * device's cycle on that device; an {@link Error} stops it, and every device it drove leaves it
 * and fails its queue pairs (work for them then runs on the calling threads).
 *
 * <p>A device has an agent of its own, or shares one through a {@link ProgressGroup}. The thread
 * starts when the first device attaches and stops when the last one detaches; a later attach
 * starts a new one.
 */
final class ProgressAgent implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ProgressAgent.class);
    /**
     * Idle cycles spent spinning before the agent starts yielding. Few: every idle cycle polls the
     * sockets (a system call each), and on a machine with as many busy threads as cores a spinning
     * agent takes the core from the thread that would give it work (the application, the peer's
     * agent). Yielding cycles poll as often but hand the core over between polls. A trade: against
     * the 200 spins and 20 yields of before, 8..128 KiB writes gain 1.3-2x, while 1 MiB writes and a
     * lone 64 B round trip lose some (docs/PERFORMANCE.md, "Profiled and fixed: the idle agent's spin").
     */
    private static final int SPINS = 5;
    private static final int YIELDS = 50;
    private static final long MIN_PARK_NANOS = 1_000;
    /**
     * How long a busy-spinning agent first rests while waiters drive its devices before it looks
     * again; each further rest in a row doubles, up to {@link #STAND_ASIDE_MAX_NANOS} (10 ms: each
     * look is a wake-up that preempts a spinning waiter on a 2-core machine, and against 1 ms it
     * took the busy 64 B round trip's p99 from 62-86 to 50-59 µs and its p99.9 from 0.7-1.1 ms to
     * 0.13-0.58 ms; far below the peer's 100 ms retransmission timeout). It takes the
     * cycles back only after a whole rest in which no waiter ran one: a waiter leaves its wait
     * after every operation and comes back within microseconds, and an agent that spun up in such
     * a gap would hold a core beside the waiter (on 2 cores, beside both processes' waiters) and
     * each look costs a wake-up that preempts one. So twice the longest rest (20 ms) bounds how long
     * datagrams that arrive after the application stopped waiting wait for the agent; work posted
     * meanwhile does not wait for it (the posting thread runs a cycle itself, or the holder of the
     * cycle runs one more, {@link SoftDevice#onPosted}), except a post held for the next cycle
     * ({@link DutyCycle#holdForPoster}), which waits at most for the end of the rest under way.
     */
    static final long STAND_ASIDE_NANOS = 50_000;
    /**
     * The longest rest that begins while an ACK asked for at once is owed (busy-polling defers it
     * to the next cycle, for a reply to carry it): if the application neither replies nor waits
     * again, the agent sends it within this, or within the rest under way when it became owed.
     */
    static final long ACK_OWED_REST_NANOS = 1_000_000;
    /**
     * The same for a default agent: a waiter that took a request in and left owes its ACK, and the
     * peer's tail-loss probe fires 1 ms after its last unacknowledged packet; resting as long as
     * that resent about 2% of the messages of a receiver that did not reply.
     */
    static final long BLOCKING_ACK_OWED_REST_NANOS = 100_000;
    static final long STAND_ASIDE_MAX_NANOS = 10_000_000;
    /**
     * The longest rest of a default (backing-off) agent while waiters blocked on the sockets drive
     * its devices ({@link WaiterBlock}): datagrams that arrive after the application stopped waiting
     * wait at most about twice this for the agent. A wake-up at most every millisecond while a
     * waiter drives costs next to nothing.
     */
    static final long BLOCKING_STAND_ASIDE_MAX_NANOS = 1_000_000;
    private final long restMaxNanos;
    private long restNanos = STAND_ASIDE_NANOS;
    /** The agent rests while waiters drive ({@link #rest}); {@link #restCut} asks it to stop. */
    private volatile boolean resting;
    private volatile boolean restCut;
    /**
     * The agent rests while waiters drive (agent thread only): back from a rest, it
     * runs no cycle while waiters ran any during the rest (a cycle of its own in a waiter's gap
     * took the datagram the waiter waited for, and handed its completion over through the
     * dispatch thread: a round trip's p99), unless the rest was cut short ({@link #restWasCut}).
     */
    private boolean standingAside;
    private boolean restWasCut;
    private static final long DETACH_POLL_NANOS = 10_000;
    private static final long STOP_WAIT_MILLIS = 5_000;
    /** Longest block of an agent whose devices owe nothing timed: a bound, not a period. */
    static final long QUIET_WAIT_NANOS = 1_000_000_000L;

    private final String name;
    private final boolean busySpin;
    private final long maxParkNanos;
    /** The devices driven, replaced whole under {@code this} (read by the agent every cycle). */
    private volatile SoftDevice[] devices = new SoftDevice[0];
    private volatile Thread thread;
    private volatile boolean running;
    private volatile boolean parked;
    /** The agent's last cycle did no work ({@link #standsIdle}). */
    private volatile boolean lastCycleIdle;
    /** Set by {@link #wakeup()}, cleared by the agent before each cycle: a Dekker pair with {@link #parked}. */
    private volatile boolean wakePending;
    private volatile long cycles;
    private int idleCount;
    private long parkNanos = MIN_PARK_NANOS;
    /** How the agent blocks; built on the agent thread for {@link #waitFor}, the devices it covers. */
    private volatile IdleWait waiter;
    private SoftDevice[] waitFor;
    /** Skips idle turns' cycles when no socket is readable and nothing was posted (agent thread only). */
    private final ReadinessGate gate = ReadinessGate.standard();
    /** The agent came back from a block: its next turn runs the cycle without asking the gate. */
    private boolean justWoke;

    ProgressAgent(String name, boolean busySpin, Duration maxIdlePark) {
        this.name = name;
        this.busySpin = busySpin;
        this.maxParkNanos = maxIdlePark.toNanos();
        this.restMaxNanos = busySpin ? STAND_ASIDE_MAX_NANOS : BLOCKING_STAND_ASIDE_MAX_NANOS;
    }

    /**
     * Whether the agent rests now, standing aside while waiters drive its devices: a poster on a
     * default device then runs the cycle itself, or holds its post for the next one ({@link
     * SoftDevice#onPosted}, {@link PostRoute}). Read after
     * {@link #wakeup()}: a Dekker pair with the rest's start.
     */
    boolean resting() {
        return resting;
    }

    /**
     * Whether the agent is idle now: its last cycle found nothing to do (it spins, yields or blocks
     * on its devices' sockets), or it rests while waiters drive them. A waiter of a default device
     * drives it only then ({@link WaiterBlock}); while the agent's cycles find work (a stream),
     * the waiter leaves the device to it.
     */
    boolean standsIdle() {
        return lastCycleIdle || parked || resting;
    }

    /**
     * The send-only cycle of each device no waiter drives now, as a poster runs it
     * ({@link DutyCycle#runForPoster}: if another thread holds the cycle, it runs one more), for
     * wake-ups that came while the agent stood aside for waiters.
     */
    private void sendOnly() {
        for (SoftDevice d : devices) {
            if (!d.duty().drivenByWaiter()) {
                d.duty().runForPoster();
            }
        }
    }

    String name() {
        return name;
    }

    /** Whether the agent spins when idle instead of blocking. */
    boolean busySpin() {
        return busySpin;
    }

    /** Adds {@code device} to the devices driven, starting the thread if none runs. */
    synchronized void attach(SoftDevice device) {
        Thread t = thread;
        if (t != null && t.isAlive() && !running) { // the last device just left: let that thread end
            try {
                t.join(STOP_WAIT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                throw new IllegalStateException("progress agent " + name + " did not stop within "
                        + STOP_WAIT_MILLIS + " ms; cannot attach " + device.name());
            }
        }
        devices = CopyOnWrite.with(devices, device);
        if (t != null && t.isAlive() && running) {
            nudge();
            return;
        }
        running = true;
        t = Thread.ofPlatform().daemon(true).name("slime4j-agent-" + name).unstarted(this);
        thread = t;
        t.start();
    }

    /**
     * Stops driving {@code device}: returns once no cycle of the agent can still be inside it (the
     * thread stopped, or two cycles ended since), or after {@code timeoutMillis}. Returns whether
     * that point was reached; on the agent thread itself it is at once.
     */
    boolean detach(SoftDevice device, long timeoutMillis) throws InterruptedException {
        boolean last;
        Thread t;
        synchronized (this) { // the thread read with the list: a later attach may start another one
            devices = CopyOnWrite.without(devices, device);
            last = devices.length == 0;
            if (last) {
                running = false;
            }
            t = thread;
        }
        if (t == null || Thread.currentThread() == t) {
            return true;
        }
        if (last) {
            nudge();
            t.join(timeoutMillis);
            return !t.isAlive();
        }
        return awaitCycles(2, TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
    }

    /** Waits until {@code n} more cycles have ended, the thread stopped, or {@code timeoutNanos} passed. */
    boolean awaitCycles(int n, long timeoutNanos) {
        long target = cycles + n;
        long deadline = System.nanoTime() + timeoutNanos;
        while (cycles < target && isRunning()) {
            nudge();
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(DETACH_POLL_NANOS);
        }
        return true;
    }

    Thread thread() {
        return thread;
    }

    /** Whether the thread is alive: it may still be finishing its last cycle after it was told to stop. */
    boolean isRunning() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /** Completed duty cycles; used to wait until accesses begun before a point have ended. */
    long cycles() {
        return cycles;
    }

    void wakeup() {
        wakePending = true; // then read parked: if the agent is about to park, it sees this flag
        if (parked) {
            IdleWait w = waiter;
            if (w != null) {
                w.wake();
            }
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    @Override
    public void run() {
        while (running) {
            if (standingAside && !restWasCut) {
                // a default agent woken while it stood aside answers with the send-only cycle below, which
                // also sends a post held for the next cycle (its poster woke the agent before holding it,
                // SoftDevice.onPosted), and rests again
                boolean wokenAside = !busySpin && wakePending;
                if (waitersServeAll() & !staleAckOwed() & (wokenAside || !postsHeld())) { // a waiter ran a cycle during the rest: rest again
                    if (wokenAside) {
                        // a default device's wake-ups while it stood aside (a post before the poster saw it resting,
                        // a post held for the next cycle, a leaving waiter's owed ACK, a receive posted in ERR): send what
                        // they need, but take nothing in, which would take a datagram a waiter is about to read and
                        // hand it over (the p99)
                        wakePending = false;
                        sendOnly();
                    }
                    rest();
                    cycles++;
                    continue;
                }
            }
            standingAside = false;
            restWasCut = false;
            boolean posted = wakePending;
            if (posted) {
                wakePending = false; // before the cycle: work posted after this is seen by it or wakes us
            }
            if (skipIdleTurn(posted)) {
                cycles++; // a turn that touched no device
                idle(0);
                continue;
            }
            gate.ran();
            int work = 0;
            for (SoftDevice d : devices) {
                if (d.duty().drivenByWaiter()) {
                    continue; // a thread waiting for its completions runs its cycles (busy-poll)
                }
                try {
                    // each device reads its own clock (earlier ones took time); -1: a waiter runs its cycles now
                    work += Math.max(0, d.duty().tryRun());
                } catch (Throwable t) {
                    d.countersSet().increment(Counter.AGENT_ERRORS);
                    if (t instanceof Error e) {
                        die(d, e);
                        throw e;
                    }
                    LOG.warn("progress agent {} caught an exception in {}; continuing", name, d.name(), t);
                }
            }
            cycles++;
            idle(work);
        }
        closeWaiter();
    }

    /**
     * Whether this idle turn may skip the duty cycle ({@link ReadinessGate}): only between a cycle
     * that found nothing to do and the next block, never right after a block (what woke the agent
     * is there to be handled), and not when spinning for busy-polling.
     */
    private boolean skipIdleTurn(boolean posted) {
        if (idleCount == 0 || justWoke || busySpin) {
            justWoke = false;
            return false;
        }
        return !gate.mustRun(posted, waiter());
    }

    /**
     * Whether waiters drive every device of this agent, or did since the agent last looked
     * ({@link DutyCycle#waitersActiveSinceLastLook}): then it rests. Every device is asked, so
     * that each one's mark moves on.
     */
    private boolean waitersServeAll() {
        SoftDevice[] now = devices;
        boolean all = now.length > 0;
        for (SoftDevice d : now) {
            all &= d.duty().waitersActiveSinceLastLook();
        }
        return all;
    }

    /**
     * Whether a thread parks on a device's completion queues with no waiter driving it
     * ({@link SoftDevice#waitsForAgent}): read after announcing a rest, a Dekker pair with
     * {@link SoftDevice#waiterRefused}; then the agent does not rest.
     */
    private boolean waitedFor() {
        return anyDevice(SoftDevice::waitsForAgent);
    }

    /**
     * Whether a waiter drives every device of this agent at this moment (a default agent begins to
     * stand aside only then; once resting, it goes on while waiters ran cycles since it looked,
     * {@link #waitersServeAll}).
     */
    private boolean waitersDriveAllNow() {
        return devices.length > 0 && !anyDevice(d -> !d.duty().drivenByWaiter());
    }

    /**
     * Whether a device holds posted requests for its next cycle ({@link DutyCycle#holdForPoster}):
     * the poster may not wait for them, so a busy-spinning agent runs the cycle instead of resting
     * again (a default agent was woken by such a post and sends it in its send-only cycle).
     */
    private boolean postsHeld() {
        return anyDevice(d -> d.duty().postsHeld());
    }

    /** Whether {@code test} holds for a device driven now (non-capturing tests: nothing allocated). */
    private boolean anyDevice(java.util.function.Predicate<SoftDevice> test) {
        for (SoftDevice d : devices) {
            if (test.test(d)) {
                return true;
            }
        }
        return false;
    }

    private void closeWaiter() {
        IdleWait w = waiter;
        waiter = null;
        waitFor = null;
        if (w != null) {
            w.close();
        }
    }

    /** The wait for the devices driven now, rebuilt when they changed. */
    private IdleWait waiter() {
        SoftDevice[] now = devices;
        if (now != waitFor) {
            closeWaiter();
            java.util.List<io.slime4j.wire.WirePort> ports = new java.util.ArrayList<>();
            for (SoftDevice d : now) {
                ports.add(d.port());
            }
            waiter = IdleWait.forPorts(ports, Thread.currentThread());
            waitFor = now;
        }
        return waiter;
    }

    /** How long an armed agent may block: until the next timed duty of any device, or the quiet bound. */
    private long waitNanos(IdleWait w) {
        if (!w.wakesOnArrival()) {
            return parkNanos;
        }
        for (SoftDevice d : devices) {
            if (!d.quietAfterCycle()) { // whoever ran the last cycle: a waiter, a poster or this agent
                return maxParkNanos;
            }
        }
        return QUIET_WAIT_NANOS;
    }

    /**
     * An {@link Error} ends the thread: every device it drove leaves the group and fails its queue
     * pairs, so nothing waits for ever and a later attach starts a thread for the new device only.
     */
    private void die(SoftDevice culprit, Error e) {
        SoftDevice[] failed;
        synchronized (this) {
            running = false;
            failed = devices;
            devices = new SoftDevice[0];
        }
        LOG.error("progress agent {} stopped by an error in {}; failing the queue pairs of {} device(s)",
                name, culprit.name(), failed.length, e);
        for (SoftDevice d : failed) {
            d.onAgentDeath();
        }
        closeWaiter();
        cycles++;
    }

    /**
     * The agent's rest while waiters drive, each one in a row twice the last (up to
     * {@link #STAND_ASIDE_MAX_NANOS} when busy-spinning, {@link #BLOCKING_STAND_ASIDE_MAX_NANOS}
     * otherwise); {@link #endRest} cuts it short.
     */
    private void rest() {
        standingAside = true;
        staleAckOwed(); // marks where each device's cycles stand as the rest begins
        resting = true; // then read restCut (and wakePending): Dekker pairs with endRest() and a default device's posts
        // a default agent's rest does not begin after a wake-up that came before its sender could see it resting
        // (the loop's next turn sends for it); later posters see it resting and run their own cycles (or hold
        // their posts for the next one, which the rest's end sends at the latest)
        // and a default agent takes the cycles back instead when a thread parks for one with no waiter driving
        boolean takeOver = !busySpin && waitedFor();
        if (!restCut && !takeOver && (busySpin || !wakePending)) {
            LockSupport.parkNanos(this, requestedAckOwed()
                    ? Math.min(restNanos, busySpin ? ACK_OWED_REST_NANOS : BLOCKING_ACK_OWED_REST_NANOS) : restNanos);
        }
        resting = false;
        restWasCut = restCut || takeOver;
        restCut = false;
        restNanos = Math.min(restNanos * 2, restMaxNanos);
    }

    /**
     * {@link #wakeup}, and also ends the agent's rest: for what must run soon whether or
     * not waiters drive (commands, quiescence, detaching, a queue pair entering ERR), not for
     * arrivals, which the waiters handle.
     */
    void nudge() {
        wakeup();
        endRest();
    }

    /**
     * Whether a device owes an ACK its peer asked for at once that waits for the next cycle (a
     * reply did not carry it): then the agent's next rest is short.
     */
    private boolean requestedAckOwed() {
        return anyDevice(SoftDevice::requestedAckOwed);
    }

    /**
     * Whether a device owes such an ACK and no cycle ran on it since the agent last looked (the
     * rest's start): nobody is about to send it, so the agent runs the cycle. Every device is asked,
     * so that each one's mark moves on. While waiters and posters keep running cycles, an owed ACK is
     * theirs to send (in the next cycle, or carried by a reply), and the agent does not take a core
     * or a waiter's datagram for it.
     */
    private boolean staleAckOwed() {
        boolean stale = false;
        for (SoftDevice d : devices) {
            boolean idle = d.duty().noCycleSinceLastLook();
            stale |= idle && d.requestedAckOwed();
        }
        return stale;
    }

    /**
     * Ends the agent's rest now: work was posted that no cycle may send soon (a post
     * came during the extra cycle a holder ran for an earlier one, {@link DutyCycle}), or something
     * must run soon ({@link #nudge}). A system call only while the agent rests.
     */
    void endRest() {
        restCut = true;
        if (resting) {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    private void idle(int work) {
        boolean nothingDone = work == 0;
        if (nothingDone != lastCycleIdle) {
            lastCycleIdle = nothingDone; // a volatile write only when it changes
        }
        if (!busySpin && work == 0 && idleCount >= SPINS && waitersDriveAllNow()) {
            // waiters blocked on the sockets drive every device (WaiterBlock): they are woken by the
            // datagrams, and an agent blocked on the same sockets would be woken by each one too
            idleCount = 0;
            rest();
            return;
        }
        if (work > 0 || busySpin) {
            idleCount = 0;
            parkNanos = MIN_PARK_NANOS;
            if (busySpin) {
                if (work == 0 && waitersServeAll()) {
                    rest(); // waiters drive the devices: one spinning thread is enough
                } else {
                    restNanos = STAND_ASIDE_NANOS;
                    Thread.onSpinWait();
                }
            } else {
                restNanos = STAND_ASIDE_NANOS;
            }
            return;
        }
        idleCount++;
        if (idleCount <= SPINS) {
            Thread.onSpinWait();
        } else if (idleCount <= SPINS + YIELDS) {
            Thread.yield();
        } else {
            IdleWait w = waiter();
            parked = true;
            if (wakePending) {
                // posted since this cycle began: run again at once, and spin again before parking
                parked = false;
                idleCount = 0;
                parkNanos = MIN_PARK_NANOS;
                return;
            }
            if (running) {
                w.await(waitNanos(w));
            }
            justWoke = true;
            parked = false;
            parkNanos = Math.min(parkNanos * 2, maxParkNanos);
        }
    }
}
