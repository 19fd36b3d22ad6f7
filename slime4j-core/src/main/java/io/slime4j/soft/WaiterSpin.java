package io.slime4j.soft;

/**
 * Whether a default device's waiter spins before its first block of a wait ({@link WaiterBlock}):
 * yes, unless the last wait that came to a block found nothing at all, neither in its spin nor in
 * its first block, which timed out. So a thread that waits in short slices for what does not come
 * (a caller helping in 100 µs slices while it waits for credits, a waiter on a quiet device) spins
 * once, not in every slice, and the next wait whose first block something ends arms it again.
 *
 * <p>"Nothing came" is judged by the spin and the wait's first block, which lasts the device's idle
 * park (50 µs by default) while something is unacknowledged: a round trip slower than that (across
 * hosts, under load) disarms the spin on one wait and arms it on the next. Judging by the whole wait
 * instead (disarmed when its deadline passed without the answer) kept stream receivers spinning:
 * the 32 B send rate was lower in three alternated rounds of three (docs/PERFORMANCE.md, sixteenth
 * round).
 *
 * <p>A wait whose answer comes, but after the spin, keeps the spin armed. A stricter rule tried
 * first (a spin that missed disarmed it until a wait's answer came within the spin's length, or
 * after a run of misses with probes ever further apart, as Linux's halt-polling backs off) stuck
 * both ends of a round trip in blocking: once both block, each end's answer comes only after the
 * other's wake-up, later than the spin, so neither end's probe ever catches one (a 64 B round
 * trip's p50 back at 61 µs in one run of two, docs/PERFORMANCE.md, sixteenth round). The price:
 * a receiver whose waits are all a little longer than the spin spends it on each.
 *
 * <p>The state of the waiter place: used by its holders only, one after another.
 */
final class WaiterSpin {
    private boolean armed = true;

    /** Whether this wait spins before its first block. */
    boolean armed() {
        return armed;
    }

    /** The spin caught something (a datagram, a wake): the next wait spins too. */
    void caught() {
        armed = true;
    }

    /**
     * A wait's first block ended, after a spin that ran out or with none: {@code woken} when
     * something readable or a wake ended it, false when it timed out. Also a spin that took the
     * block's whole time ({@code woken} false).
     */
    void firstBlockEnded(boolean woken) {
        armed = woken;
    }
}
