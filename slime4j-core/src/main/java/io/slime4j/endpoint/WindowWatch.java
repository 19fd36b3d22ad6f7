package io.slime4j.endpoint;

/**
 * The detector of I5 (test only): at each slot release on a dispatch thread, counts a release
 * while a receive window of that rail is short ({@link Stats#windowShortAtRelease}). Scanning the
 * windows costs a pass over all of them per release, so it is not on the release path of a real
 * endpoint: only {@link EndpointHooks#watchWindowsAtRelease()} installs it, which the tests' hooks
 * do (those that keep I5 and those that break it).
 */
final class WindowWatch {
    private final Transport transport;
    private final Lifecycle lifecycle;
    private final Stats stats;
    private volatile RailDrain[] dispatchers = new RailDrain[0];

    WindowWatch(Transport transport, Lifecycle lifecycle, Stats stats) {
        this.transport = transport;
        this.lifecycle = lifecycle;
        this.stats = stats;
    }

    /** The dispatchers by rail, once they exist (a caller helping one counts as on its rail). */
    void dispatchers(RailDrain[] ds) {
        dispatchers = ds.clone();
    }

    /** A slot lease just ended: counts it if a window of the current rail is short. */
    void onRelease() {
        if (lifecycle.isClosing() || lifecycle.failure() != null) {
            return; // flushing: windows drain
        }
        int rail = currentRail();
        if (rail >= 0 && transport.windowsMissing(rail) > 0) {
            stats.windowShortAtRelease.increment();
        }
    }

    /** The rail the current thread handles completions of (its dispatch thread, or a helper), or -1. */
    private int currentRail() {
        RailDrain[] ds = dispatchers;
        for (int i = 0; i < ds.length; i++) {
            if (ds[i].isDispatching()) {
                return i;
            }
        }
        return -1;
    }
}
