package io.slime4j.endpoint;

/**
 * Test hooks that install the detectors a real endpoint leaves off its hot path (the I5
 * {@link WindowWatch}). {@link #KEEPING_ALL} keeps every invariant; {@link BrokenHooks} extend this
 * class and break one, so the same detectors watch both.
 */
class WatchedHooks extends EndpointHooks {
    static final WatchedHooks KEEPING_ALL = new WatchedHooks();

    @Override
    boolean watchWindowsAtRelease() {
        return true;
    }
}
