package io.slime4j.soft;

/**
 * Who sends a request just posted to a soft device's send queue, and when ({@link
 * SoftDevice#onPosted}): the decision on its own, from what the post says of itself and what the
 * device's threads are doing.
 *
 * <ul>
 *   <li>{@link #AGENT}: the agent is running, or blocked and now woken, and no waiter drives the
 *       device: its next cycle sends it.</li>
 *   <li>{@link #AGENT_TAKES_STREAM}: posted behind requests of its queue pair not yet retired (a
 *       stream) on a default device whose agent rests and no waiter drives: the agent ends its rest
 *       and takes the stream over, sending it together while the posting thread goes on.</li>
 *   <li>{@link #HOLD}: the poster said more will follow ({@code WorkRequest.more}) where a cycle
 *       will come soon anyway ({@link DutyCycle#holdForPoster}): on a busy-polling device behind
 *       requests not yet retired (a burst between two waits leaves together); on a default device
 *       whose agent rests while no waiter drives, unless it is behind others (a stream, above): it
 *       leaves with the next post, the poster's next wait, or the agent's send-only cycle when its
 *       rest ends (at most a millisecond).</li>
 *   <li>{@link #RUN}: the posting thread runs a cycle that sends it now (or the cycle's holder runs
 *       one more for it).</li>
 * </ul>
 */
enum PostRoute {
    AGENT,
    AGENT_TAKES_STREAM,
    HOLD,
    RUN;

    /**
     * @param busyPolls    whether the device busy-polls ({@link DutyCycle#waitersDrive})
     * @param more         the request says more will follow (and its queue pair is in RTS)
     * @param behind       earlier requests of its queue pair are not yet retired (in RTS)
     * @param driven       a waiter drives the device now ({@link DutyCycle#drivenByWaiter}),
     *                     read after the agent was woken
     * @param resting      the agent rests while waiters drive ({@link ProgressAgent#resting})
     */
    static PostRoute of(boolean busyPolls, boolean more, boolean behind, boolean driven, boolean resting) {
        if (busyPolls) {
            return more && behind ? HOLD : RUN;
        }
        if (driven) {
            return RUN;
        }
        if (!resting) {
            return AGENT;
        }
        if (behind) {
            return AGENT_TAKES_STREAM;
        }
        return more ? HOLD : RUN;
    }
}
