package io.slime4j.soft;

/**
 * Whether a default device's waiter spins before it blocks ({@link WaiterBlock}): yes, unless the
 * last wait ended without what it waited for (its deadline passed, or the device closed). So a
 * thread that waits in short slices for what does not come (a caller helping in 100 µs slices
 * while it waits for credits, a waiter polling a quiet device with short timeouts) spins in the
 * first slice only, and the next wait that gets its completion arms the spin again.
 *
 * <p>A wait that gets its answer, even long after the spin, keeps the spin armed. A stricter rule
 * tried first (a spin that missed disarmed it until a wait's answer came within the spin's length,
 * or a run of misses with probes ever further apart, as Linux's halt-polling backs off) stuck both
 * ends of a round trip in blocking: once both block, each end's answer comes only after the other's
 * wake-up, later than the spin, so no probe catches one (a 64 B round trip's p50 back at 61 µs in
 * one run of two, docs/PERFORMANCE.md, sixteenth round). The price: a waiter whose answers all come
 * a little after the spin spends it on each wait.
 *
 * <p>The state of the waiter place: used by its holders only, one after another.
 */
final class WaiterSpin {
    private boolean armed = true;

    /** Whether the wait that begins now spins before it blocks. */
    boolean armed() {
        return armed;
    }

    /** A wait ended: {@code satisfied} when what it waited for came, false when its deadline passed or the device closed. */
    void waitEnded(boolean satisfied) {
        armed = satisfied;
    }
}
