package io.slime4j.soft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An {@link IdleWait} over NIO channels (the UDP wire's NIO backend): a {@link Selector} with the
 * channels registered for reading; {@link #wake} is {@link Selector#wakeup()}. The selector's
 * timeout has millisecond resolution, so a timeout under a millisecond becomes one millisecond
 * (the agent only waits this long when no timer is due sooner than that; see ProgressAgent).
 */
final class SelectorWait extends IdleWait {
    private final Selector selector;

    SelectorWait(List<SelectableChannel> channels) {
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (SelectableChannel c : channels) {
            try {
                c.register(selector, SelectionKey.OP_READ);
            } catch (ClosedChannelException e) {
                // a closed port receives nothing: nothing to wait for on it
            }
        }
    }

    @Override
    boolean await(long timeoutNanos) {
        try {
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos + 999_999)));
            selector.selectedKeys().clear(); // the duty cycle receives; only the wake-up mattered
        } catch (IOException | RuntimeException e) {
            // a closing port: the next cycle finds out
        }
        return true; // a wakeup() and a timeout both select nothing: cannot tell
    }

    @Override
    void wake() {
        selector.wakeup();
    }

    @Override
    boolean wakesOnArrival() {
        return true;
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
