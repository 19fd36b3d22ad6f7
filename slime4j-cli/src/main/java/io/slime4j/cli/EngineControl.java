package io.slime4j.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.BootstrapException;
import io.slime4j.endpoint.BootstrapMessage;
import io.slime4j.endpoint.EndpointException;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.engine.TransferEngine;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * {@code perf}'s control messages between two {@link TransferEngine}s, so that a
 * {@code --directory} run needs no channel but the engines': a message is JSON written from this
 * side's {@value #OUTBOX} region into the peer's {@value #INBOX} with write-with-immediate, the
 * immediate being its length; the peer takes it with {@code immRecv}. Client and server take
 * turns (each message answers the previous one, "bye" ends), so one inbox per side suffices.
 */
final class EngineControl implements PerfControl {
    static final String INBOX = "perf-inbox";
    static final String OUTBOX = "perf-outbox";
    /** The largest message in bytes. */
    static final int MAX_MESSAGE = 64 << 10;
    private static final long POLL_MILLIS = 50;

    private final TransferEngine engine;
    private final MemorySegment inbox;
    private final MemorySegment outbox;
    private volatile String peer;
    private TransferFuture pending;

    private EngineControl(TransferEngine engine, MemorySegment inbox, MemorySegment outbox) {
        this.engine = engine;
        this.inbox = inbox;
        this.outbox = outbox;
    }

    /** Registers the inbox and outbox with {@code engine} (before any peer connects); memory from {@code arena}. */
    static EngineControl register(TransferEngine engine, Arena arena) {
        EngineControl c = new EngineControl(engine, arena.allocate(MAX_MESSAGE, 64), arena.allocate(MAX_MESSAGE, 64));
        engine.register(INBOX, c.inbox);
        engine.register(OUTBOX, c.outbox);
        return c;
    }

    /** Talks to the engine named {@code name} from now on. */
    EngineControl peer(String name) {
        this.peer = name;
        return this;
    }

    /** The peer's name (null until known). */
    String peer() {
        return peer;
    }

    /**
     * The server's wait for a client: the first engine that connects to this one, within
     * {@code wait}, becomes the peer.
     *
     * @throws CliException naming the bound if none connected
     */
    String awaitClient(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<String> connected = engine.connectedPeers();
            if (!connected.isEmpty()) {
                peer = connected.getFirst();
                return peer;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new CliException("no client engine connected within " + wait.toMinutes() + " min");
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    @Override
    public void send(BootstrapMessage message, Duration timeout) {
        byte[] json;
        try {
            json = JSON.std.asString(message.options()).getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        if (json.length > MAX_MESSAGE) {
            throw new IllegalArgumentException("a perf control message is at most " + MAX_MESSAGE + " bytes, was "
                    + json.length);
        }
        MemorySegment.copy(json, 0, outbox, ValueLayout.JAVA_BYTE, 0, json.length);
        TransferFuture f;
        try {
            f = engine.writeWithImm(peer, List.of(new Assignment(OUTBOX, 0, INBOX, 0, json.length)), json.length);
        } catch (EndpointException e) {
            throw new CliException("cannot reach engine " + peer + ": " + e.getMessage(), e);
        }
        if (await(f, timeout, "sending to") != TransferStatus.SUCCESS) {
            throw new BootstrapException(BootstrapException.Reason.CLOSED, "the connection to engine " + peer
                    + " ended: " + f.failureMessage());
        }
    }

    @Override
    public BootstrapMessage receive(Duration wait) {
        if (pending == null) {
            try {
                pending = engine.immRecv(peer);
            } catch (EndpointException e) {
                throw new BootstrapException(BootstrapException.Reason.CLOSED, "the connection to engine " + peer
                        + " ended: " + e.getMessage(), e);
            }
        }
        TransferFuture f = pending;
        TransferStatus status = await(f, wait, "a message from");
        pending = null;
        if (status != TransferStatus.SUCCESS) {
            throw new BootstrapException(BootstrapException.Reason.CLOSED, "the connection to engine " + peer
                    + " ended: " + f.failureMessage());
        }
        int length = f.immediate();
        if (length < 2 || length > MAX_MESSAGE) {
            throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "engine " + peer
                    + " sent a control message of " + Integer.toUnsignedString(length) + " bytes (2.." + MAX_MESSAGE + ")");
        }
        String json = new String(inbox.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        Map<String, String> options = new LinkedHashMap<>();
        try {
            JSON.std.mapFrom(json).forEach((k, v) -> {
                if (!(v instanceof String text)) {
                    throw new IllegalArgumentException("option '" + k + "' is not a string");
                }
                options.put(k, text);
            });
        } catch (IOException | RuntimeException e) {
            throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "engine " + peer
                    + " sent a control message that is not a JSON object: " + e.getMessage(), e);
        }
        return BootstrapMessage.of(options);
    }

    private TransferStatus await(TransferFuture f, Duration wait, String what) {
        try {
            return f.await(wait);
        } catch (TimeoutException e) {
            throw new BootstrapException(BootstrapException.Reason.TIMEOUT, "no completion of " + what + " engine "
                    + peer + " within " + wait.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while waiting for " + what + " engine " + peer, e);
        }
    }

    @Override
    public boolean isPeerClosed() {
        return peer != null && !engine.connectedPeers().contains(peer);
    }

    @Override
    public boolean usesImmediates() {
        return true;
    }
}
