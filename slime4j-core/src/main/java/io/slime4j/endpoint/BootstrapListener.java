package io.slime4j.endpoint;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;

/** A listening TCP socket of the server side of a {@link Bootstrap} exchange ({@link Bootstrap#listen}). */
public final class BootstrapListener implements AutoCloseable {
    private final ServerSocket server;

    BootstrapListener(ServerSocket server) {
        this.server = server;
    }

    /** The bound port (the chosen one when 0 was asked for). */
    public int port() {
        return server.getLocalPort();
    }

    /** The bound address and port. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    /**
     * Waits up to {@code timeout} for a peer to connect.
     *
     * @throws BootstrapException TIMEOUT if none did
     */
    public BootstrapChannel accept(Duration timeout) {
        try {
            server.setSoTimeout((int) Math.clamp(timeout.toMillis(), 1, Integer.MAX_VALUE));
            return new BootstrapChannel(server.accept());
        } catch (SocketTimeoutException e) {
            throw new BootstrapException(BootstrapException.Reason.TIMEOUT, "no peer connected to port " + port()
                    + " within " + Bootstrap.seconds(timeout), e);
        } catch (IOException e) {
            throw new BootstrapException(BootstrapException.Reason.IO, "accept on port " + port() + " failed: "
                    + e.getMessage(), e);
        }
    }

    /** Stops listening; a channel already accepted stays open. */
    @Override
    public void close() {
        Transport.closeQuietly(server);
    }
}
