package io.slime4j.endpoint;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connected pair of endpoints and the side channel that connected them, as
 * {@link Bootstrap#serve} and {@link Bootstrap#connect(RdmaEndpoint, String, int, Duration)} return
 * it: both endpoints are connected, and the channel stays open for
 * <ul>
 * <li>{@link #publish}: regions registered after connect reach the peer, which applies them with
 *     {@link RdmaEndpoint#updatePeer} before this returns;</li>
 * <li>{@link #send} / {@link #receive}: the program's own messages (commands, results, "done").</li>
 * </ul>
 *
 * <p>A virtual thread per session reads the channel: it applies the peer's updates, answers them,
 * and queues the peer's messages (at most {@value #INBOX} unread; a peer sending more closes the
 * session). Closing the session closes the channel, never the endpoint (it stays the caller's).
 * Methods may be called from any thread. Control frames carry the option {@value #KIND}, which the
 * program's own messages must not use.
 */
public final class BootstrapSession implements AutoCloseable {
    /** The option naming a control frame's kind (hello, info, ready, error, update, ack). */
    public static final String KIND = "slime4j.session";
    /** Unread messages of the peer kept at most. */
    public static final int INBOX = 1024;
    private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration READ_SLICE = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(BootstrapSession.class);

    private final RdmaEndpoint endpoint;
    private final BootstrapChannel channel;
    private final Map<String, String> peerOptions;
    private final Object writeLock = new Object();
    private final BlockingQueue<BootstrapMessage> inbox = new ArrayBlockingQueue<>(INBOX);
    private final ConcurrentHashMap<Long, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    private final Thread reader;
    private volatile EndpointInfo peer;
    private volatile BootstrapException ended;
    private volatile boolean closed;

    private BootstrapSession(RdmaEndpoint endpoint, BootstrapChannel channel, BootstrapMessage hello) {
        this.endpoint = endpoint;
        this.channel = channel;
        this.peer = hello.info();
        Map<String, String> options = new LinkedHashMap<>(hello.options());
        options.remove(KIND);
        this.peerOptions = Map.copyOf(options);
        this.reader = Thread.ofVirtual().name("slime4j-bootstrap-" + endpoint.name()).unstarted(this::readLoop);
    }

    /**
     * Exchanges info over {@code channel} and connects {@code endpoint}: the client sends first;
     * both connect, then tell each other they are ready. Closes the channel on any failure.
     */
    static BootstrapSession open(RdmaEndpoint endpoint, BootstrapChannel channel, boolean client,
                                 Map<String, String> options, Duration timeout) {
        try {
            BootstrapMessage mine = control(client ? "hello" : "info", endpoint.info(), options);
            BootstrapMessage theirs;
            if (client) {
                channel.send(mine, timeout);
                theirs = expect(channel.receive(timeout), client ? "info" : "hello", channel);
            } else {
                theirs = expect(channel.receive(timeout), "hello", channel);
                channel.send(mine, timeout);
            }
            if (theirs.info() == null) {
                throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "the peer at "
                        + channel.remoteAddress() + " sent no endpoint info");
            }
            try {
                endpoint.connect(theirs.info());
            } catch (RuntimeException e) {
                tell(channel, "error", "endpoint " + endpoint.name() + " could not connect: " + e.getMessage());
                throw e;
            }
            channel.send(control("ready", null, Map.of()), timeout);
            expect(channel.receive(timeout), "ready", channel);
            BootstrapSession session = new BootstrapSession(endpoint, channel, theirs);
            session.reader.start();
            return session;
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static BootstrapMessage control(String kind, EndpointInfo info, Map<String, String> options) {
        checkOwn(options);
        Map<String, String> o = new LinkedHashMap<>(options);
        o.put(KIND, kind);
        return new BootstrapMessage(info, o);
    }

    private static void checkOwn(Map<String, String> options) {
        if (options == null || options.containsKey(KIND)) {
            throw new IllegalArgumentException("options must not be null nor use the reserved key '" + KIND + "'");
        }
    }

    private static void tell(BootstrapChannel channel, String kind, String message) {
        try {
            channel.send(control(kind, null, Map.of("message", message)), CONTROL_TIMEOUT);
        } catch (BootstrapException ignored) {
            // the peer is gone: it learns nothing, and the caller's exception says what happened
        }
    }

    private static BootstrapMessage expect(BootstrapMessage m, String kind, BootstrapChannel channel) {
        String got = m.get(KIND, "(none)");
        if (got.equals("error")) {
            throw new BootstrapException(BootstrapException.Reason.REFUSED, "the peer at " + channel.remoteAddress()
                    + " refused: " + m.get("message", "no reason given"));
        }
        if (!got.equals(kind)) {
            throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "expected a '" + kind + "' frame from "
                    + channel.remoteAddress() + " but got '" + got + "' (is the peer a Bootstrap.serve/connect session?)");
        }
        return m;
    }

    /** The endpoint this session connected (still the caller's to close). */
    public RdmaEndpoint endpoint() {
        return endpoint;
    }

    /** The peer's endpoint info: from the handshake, or from its latest {@link #publish}. */
    public EndpointInfo peer() {
        return peer;
    }

    /** The options the peer sent with its info in the handshake. */
    public Map<String, String> peerOptions() {
        return peerOptions;
    }

    /**
     * Sends this endpoint's current {@link RdmaEndpoint#info()} to the peer and waits until the peer
     * has applied it ({@link RdmaEndpoint#updatePeer}): when this returns, the peer can address every
     * region registered here so far.
     *
     * @throws BootstrapException TIMEOUT if the peer did not confirm within {@code timeout}, REFUSED if
     *                            its endpoint rejected the info, CLOSED if the session ended
     */
    public void publish(Duration timeout) {
        long seq = sequence.incrementAndGet();
        CompletableFuture<Void> done = new CompletableFuture<>();
        pending.put(seq, done);
        try {
            checkAlive();
            write(control("update", endpoint.info(), Map.of("seq", Long.toString(seq))), timeout);
            done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new BootstrapException(BootstrapException.Reason.TIMEOUT, "the peer at " + channel.remoteAddress()
                    + " did not confirm the update within " + Bootstrap.seconds(timeout), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof BootstrapException b ? b
                    : new BootstrapException(BootstrapException.Reason.IO, String.valueOf(e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BootstrapException(BootstrapException.Reason.IO, "interrupted while publishing to "
                    + channel.remoteAddress(), e);
        } finally {
            pending.remove(seq);
        }
    }

    /**
     * Sends one of the program's own messages.
     *
     * @throws IllegalArgumentException if it uses the reserved option {@value #KIND}
     * @throws BootstrapException       as {@link BootstrapChannel#send}
     */
    public void send(BootstrapMessage message, Duration timeout) {
        checkOwn(message.options());
        checkAlive();
        write(message, timeout);
    }

    /**
     * The peer's next message (of the program's own), waiting up to {@code timeout}.
     *
     * @throws BootstrapException TIMEOUT if none came in time, CLOSED (or the reason the channel
     *                            failed) once the session has ended and nothing is left to read
     */
    public BootstrapMessage receive(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                BootstrapMessage m = inbox.poll(Math.min(20_000_000L, Math.max(0, deadline - System.nanoTime())),
                        TimeUnit.NANOSECONDS);
                if (m != null) {
                    return m;
                }
                if (ended != null && inbox.isEmpty()) {
                    throw ended;
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new BootstrapException(BootstrapException.Reason.TIMEOUT, "no message from the peer at "
                            + channel.remoteAddress() + " within " + Bootstrap.seconds(timeout));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BootstrapException(BootstrapException.Reason.IO, "interrupted while receiving from "
                    + channel.remoteAddress(), e);
        }
    }

    /** Whether the session has ended: the peer closed the channel, it failed, or {@link #close()} was called. */
    public boolean isEnded() {
        return closed || ended != null;
    }

    /** Closes the channel (the peer's session ends with CLOSED); the endpoint stays open. Idempotent. */
    @Override
    public void close() {
        closed = true;
        channel.close();
        try {
            reader.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void checkAlive() {
        BootstrapException e = ended;
        if (e != null) {
            throw new BootstrapException(e.reason(), "the bootstrap session has ended: " + e.getMessage(), e);
        }
    }

    private void write(BootstrapMessage m, Duration timeout) {
        synchronized (writeLock) {
            channel.send(m, timeout);
        }
    }

    /** The reader thread: applies updates, answers them, completes publishes, queues the program's messages. */
    private void readLoop() {
        try {
            while (!closed) {
                BootstrapMessage m;
                try {
                    m = channel.receive(READ_SLICE);
                } catch (BootstrapException e) {
                    if (e.reason() == BootstrapException.Reason.TIMEOUT && !closed && ended == null) {
                        continue; // nothing arrived in this slice (a half-read frame closes the channel)
                    }
                    throw e;
                }
                String kind = m.options().get(KIND);
                if (kind == null) {
                    if (!inbox.offer(m)) {
                        throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "the peer at "
                                + channel.remoteAddress() + " sent more than " + INBOX + " messages nobody received");
                    }
                } else {
                    onControl(kind, m);
                }
            }
            end(new BootstrapException(BootstrapException.Reason.CLOSED, "the bootstrap session was closed"));
        } catch (BootstrapException e) {
            end(closed ? new BootstrapException(BootstrapException.Reason.CLOSED, "the bootstrap session was closed") : e);
        } catch (RuntimeException e) {
            LOG.warn("bootstrap session of {} failed", endpoint.name(), e);
            end(new BootstrapException(BootstrapException.Reason.IO, "bootstrap session failed: " + e, e));
        } finally {
            channel.close();
        }
    }

    private void onControl(String kind, BootstrapMessage m) {
        switch (kind) {
            case "update" -> {
                String seq = m.get("seq", "0");
                String error = null;
                try {
                    if (m.info() == null) {
                        throw new IllegalArgumentException("an update without endpoint info");
                    }
                    endpoint.updatePeer(m.info());
                    peer = m.info();
                } catch (RuntimeException e) {
                    error = "endpoint " + endpoint.name() + " could not apply the update: " + e.getMessage();
                }
                Map<String, String> ack = new LinkedHashMap<>();
                ack.put("seq", seq);
                if (error != null) {
                    ack.put("message", error);
                }
                write(control("ack", null, ack), CONTROL_TIMEOUT);
            }
            case "ack" -> {
                CompletableFuture<Void> done = pending.get(parseSeq(m.get("seq", "0")));
                if (done != null) {
                    String error = m.options().get("message");
                    if (error == null) {
                        done.complete(null);
                    } else {
                        done.completeExceptionally(new BootstrapException(BootstrapException.Reason.REFUSED,
                                "the peer at " + channel.remoteAddress() + " refused: " + error));
                    }
                }
            }
            default -> LOG.debug("bootstrap session of {}: ignored a '{}' frame", endpoint.name(), kind);
        }
    }

    private static long parseSeq(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private void end(BootstrapException why) {
        ended = why;
        for (CompletableFuture<Void> done : pending.values()) {
            done.completeExceptionally(why);
        }
    }

    /** For logs. */
    @Override
    public String toString() {
        return "BootstrapSession{" + endpoint.name() + " <-> " + channel.remoteAddress() + (isEnded() ? ", ended" : "")
                + "}";
    }
}
