package io.slime4j.cli;

import io.slime4j.endpoint.BootstrapChannel;
import io.slime4j.endpoint.BootstrapException;
import io.slime4j.endpoint.BootstrapMessage;
import java.time.Duration;

/**
 * The control messages of a {@code perf} run (the client's hello and per-row commands, the
 * server's replies): over the TCP side channel ({@code --connect}, the loopback run), or through
 * the transfer engines themselves ({@link EngineControl}, {@code --directory}).
 */
interface PerfControl {
    /**
     * Sends one message.
     *
     * @throws BootstrapException CLOSED if the peer is gone, TIMEOUT past {@code timeout}
     */
    void send(BootstrapMessage message, Duration timeout);

    /**
     * The next message.
     *
     * @throws BootstrapException CLOSED if the peer is gone, TIMEOUT past {@code wait}
     */
    BootstrapMessage receive(Duration wait);

    /** Whether the peer is known to be gone (its process ended or it dropped the connection). */
    boolean isPeerClosed();

    /**
     * Whether the messages arrive as immediates, like the data of a {@code write-imm} row: then the
     * server takes a row's immediates before it waits for the next command.
     */
    boolean usesImmediates();

    /**
     * Whether the server answers the client's bye before it closes: an engine's message completes
     * at the sender only when the peer acknowledged it, and a server that closed its engine as soon
     * as the bye arrived could cancel the client's bye before that acknowledgement.
     */
    default boolean answersBye() {
        return usesImmediates();
    }

    /** The control of a side channel. */
    static PerfControl of(BootstrapChannel channel) {
        return new PerfControl() {
            @Override
            public void send(BootstrapMessage message, Duration timeout) {
                channel.send(message, timeout);
            }

            @Override
            public BootstrapMessage receive(Duration wait) {
                return channel.receive(wait);
            }

            @Override
            public boolean isPeerClosed() {
                return channel.isPeerClosed();
            }

            @Override
            public boolean usesImmediates() {
                return false;
            }
        };
    }
}
