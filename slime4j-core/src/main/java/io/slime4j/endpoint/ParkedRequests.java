package io.slime4j.endpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

/**
 * Io requests flushed off a lane while no lane was live — every lane not failed for good being
 * re-established ({@link LaneRecovery}) — waiting for one to come back. Each is identified by its
 * wrId (its slot position and op tag) and holds its slot until it runs.
 *
 * <p><b>No missed wake-up.</b> A round ends in this order: the {@link Router} puts the lane back
 * ({@link Router#recovered}), then {@link #lanesChanged} drains. A request is parked in the
 * opposite order: added first, then the router is asked whether any lane is live now, and if one
 * is, it drains itself. So whichever of the two comes second sees the other: a request can never
 * wait while a lane is live, whatever lane that is (with three or more lanes, the one that came
 * back need be neither the request's lane nor the one it was first meant for), and whatever
 * thread (each rail's dispatch thread ends the rounds of its own lanes). A drain that puts an
 * entry back because no lane was live asks again after putting it back, for the same reason.
 *
 * <p>Thread-safe; any thread.
 */
final class ParkedRequests {
    /** What to do with a parked request once it may run. */
    interface Runner {
        /**
         * Runs the request {@code id} on {@code lane} now (re-issues it), or fails it when
         * {@code lane} is −1 (no lane left, or the endpoint is ending).
         */
        void run(long id, int lane);
    }

    private final Router router;
    private final BooleanSupplier ending;
    private final Runner runner;
    private final ConcurrentLinkedQueue<Long> parked = new ConcurrentLinkedQueue<>();

    ParkedRequests(Router router, BooleanSupplier ending, Runner runner) {
        this.router = router;
        this.ending = ending;
        this.runner = runner;
    }

    /** Parks request {@code id} until a lane is live again (or runs it at once if one already is). */
    void park(long id) {
        parked.add(id);
        if (mayRun()) {
            lanesChanged(); // a lane came back (or the last one went) after the caller looked: do not wait for the next change
        }
    }

    /**
     * A lane came back, or was given up, or the endpoint is ending: every parked request that may
     * run now runs on a live lane, or fails if none is left; the others wait on.
     */
    void lanesChanged() {
        while (true) {
            List<Long> still = null;
            int n = parked.size();
            for (int i = 0; i < n; i++) {
                Long id = parked.poll();
                if (id == null) {
                    break;
                }
                int lane = laneFor(id);
                if (lane == WAIT) {
                    (still == null ? still = new ArrayList<>() : still).add(id);
                } else {
                    runner.run(id, lane);
                }
            }
            if (still == null) {
                return;
            }
            parked.addAll(still);
            if (!mayRun()) {
                return; // put back while nothing may run: the next change drains them
            }
        }
    }

    /** Requests parked now. */
    int size() {
        return parked.size();
    }

    private static final int WAIT = -2;

    /** The live lane for a parked request, −1 to fail it, or {@link #WAIT}. */
    private int laneFor(long id) {
        int lane;
        try {
            lane = router.liveAfter(WrIds.qp(id));
        } catch (EndpointException e) {
            return -1; // every lane failed for good
        }
        boolean wait = router.isRecovering(lane);
        return ending.getAsBoolean() ? -1 : wait ? WAIT : lane;
    }

    /** Whether a parked request may run now: a lane is live, none is left, or the endpoint is ending. */
    private boolean mayRun() {
        return ending.getAsBoolean() || router.hasLiveLane() || router.liveLanes() == 0;
    }
}
