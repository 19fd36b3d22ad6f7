package io.slime4j.endpoint;

/**
 * What the lower parts of the endpoint see of a rail's {@link Dispatcher}, so that calls and types
 * point one way (down): a waiting caller may take the rail's completion queue over
 * ({@link OpState#awaitSignal}), and the I5 detector asks whether the current thread is handling
 * that rail's completions ({@link WindowWatch}).
 */
interface RailDrain {
    /**
     * Handles the rail's completions on the calling thread until {@code signal} fires (an op's, or
     * a resource come free: {@link ResourceWait}), until {@code deadline} (a {@link System#nanoTime}
     * reading); whether it fired, or null if this caller cannot help now and must wait on the signal
     * itself.
     */
    Boolean help(Awaited signal, long deadline) throws InterruptedException;

    /**
     * The calling thread is about to post a request of this rail that may complete inside the post
     * ({@link io.slime4j.verbs.CompletionQueue#completesOnPost}): it takes the helper's place, so that
     * the completion wakes no dispatch thread. False if it cannot (no such device, another caller
     * helps, or this thread handles completions already): then it posts as usual and must not call
     * {@link #endPosting}. The caller must not block before {@link #endPosting}.
     */
    boolean beginPosting();

    /** After {@link #beginPosting} returned true: handles what is there on this thread, then leaves the helper's place. */
    void endPosting();

    /**
     * Whether a caller for whom {@link #help} returned null (another caller helps or posts) should
     * look again soon instead of waiting on its op's signal alone: true where callers drive the
     * device (busy-polling), so that nobody might drive it for this caller otherwise.
     */
    boolean retriesHelp();

    /** Whether the current thread is handling this rail's completions (its dispatch thread or a helper). */
    boolean isDispatching();

    /**
     * Whether a caller's own posts may say more will follow ({@code WorkRequest.more}) on this rail:
     * where its device completes requests on the posting thread ({@link
     * io.slime4j.verbs.CompletionQueue#completesOnPost}: a busy-polling soft device, whose hold
     * lasts until the caller's next post or wait; shm, which ignores it). A default soft device
     * holds such a post (not behind others) while its agent rests, until the next post not held,
     * the poster's next wait or the rest's end: right for what nobody waits for (credit returns),
     * not for a caller's request, whose wait comes next and spins before it drives.
     */
    boolean callersPostMore();
}
