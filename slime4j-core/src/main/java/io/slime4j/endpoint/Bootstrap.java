package io.slime4j.endpoint;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Brings two endpoints in two processes together over a TCP side channel, the way perftest and
 * UCX exchange queue pair numbers before the fast path starts.
 *
 * <p><b>In one call:</b> {@link #serve} on one side and {@link #connect(RdmaEndpoint, String, int, Duration)}
 * on the other exchange {@link EndpointInfo}, connect both endpoints, and return once both are
 * connected, with a {@link BootstrapSession} that keeps the channel open: regions registered later
 * reach the peer with {@link BootstrapSession#publish}, and the session carries the program's own
 * messages.
 * <pre>{@code
 * try (BootstrapSession s = Bootstrap.serve(endpoint, "0.0.0.0", Bootstrap.DEFAULT_PORT, Duration.ofMinutes(5))) { ... }
 * try (BootstrapSession s = Bootstrap.connect(endpoint, "server-host", Bootstrap.DEFAULT_PORT, Duration.ofSeconds(10))) { ... }
 * }</pre>
 *
 * <p><b>Step by step:</b> one side {@link #listen}s and {@link BootstrapListener#accept}s, the
 * other {@link #connect(String, int, Duration)}s (retrying until a deadline, so it may start
 * first); both then {@link BootstrapChannel#send} and {@link BootstrapChannel#receive}
 * {@link BootstrapMessage}s.
 *
 * <p>Frame: a 4-byte big-endian length (1..{@link #MAX_FRAME_BYTES}), then that many bytes of UTF-8
 * JSON {@code {"info":"<EndpointInfo JSON>","options":{"key":"value",...}}} ({@code info} may be
 * absent). Every wait is bounded by the timeout given; failures are {@link BootstrapException}s
 * whose {@link BootstrapException#reason()} tells unreachable peer, port in use, bad frame, closed
 * connection and timeout apart.
 */
public final class Bootstrap {
    /** The port servers listen on when none is given (perftest's). */
    public static final int DEFAULT_PORT = 18515;
    /** The largest frame sent or accepted: 1 MiB. */
    public static final int MAX_FRAME_BYTES = 1 << 20;
    private static final long RETRY_MILLIS = 100;

    private Bootstrap() {}

    /**
     * Listens on {@code bindAddress} (a host name or address; {@code 0.0.0.0} for all) and
     * {@code port} (0 picks a free one: see {@link BootstrapListener#port()}).
     *
     * @throws BootstrapException PORT_IN_USE if the port is taken, IO if the address is not local
     */
    public static BootstrapListener listen(String bindAddress, int port) {
        return listen(bindAddress, port, 4);
    }

    /**
     * As {@link #listen(String, int)}, with room for {@code backlog} connections not yet accepted
     * (a listener many peers dial at once, such as a transfer engine's, needs more than the default 4).
     */
    public static BootstrapListener listen(String bindAddress, int port, int backlog) {
        if (backlog < 1) {
            throw new IllegalArgumentException("backlog must be positive, was " + backlog);
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 0..65535, was " + port);
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(bindAddress);
        } catch (UnknownHostException e) {
            throw new BootstrapException(BootstrapException.Reason.IO, "cannot listen on unknown host " + bindAddress, e);
        }
        ServerSocket server = null;
        try {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(address, port), backlog);
            return new BootstrapListener(server);
        } catch (BindException e) {
            Transport.closeQuietly(server);
            String text = String.valueOf(e.getMessage());
            if (text.contains("in use")) {
                throw new BootstrapException(BootstrapException.Reason.PORT_IN_USE, "port " + port + " on "
                        + bindAddress + " is in use (another server is running there; pick another with a different port)", e);
            }
            throw new BootstrapException(BootstrapException.Reason.IO, "cannot listen on " + bindAddress + ":" + port
                    + " (" + text + "; is it an address of this host?)", e);
        } catch (IOException e) {
            Transport.closeQuietly(server);
            throw new BootstrapException(BootstrapException.Reason.IO, "cannot listen on " + bindAddress + ":" + port
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * Connects to a listener at {@code host:port}, retrying refused or unrouted attempts every
     * 100 ms until {@code timeout} has passed.
     *
     * @throws BootstrapException UNREACHABLE if no connection was made within the timeout
     */
    public static BootstrapChannel connect(String host, int port, Duration timeout) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 1..65535, was " + port);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no attempt";
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            InetSocketAddress target;
            try {
                target = new InetSocketAddress(InetAddress.getByName(host), port);
            } catch (UnknownHostException e) {
                throw new BootstrapException(BootstrapException.Reason.UNREACHABLE, "cannot reach " + host + ":" + port
                        + ": unknown host", e);
            }
            Socket socket = new Socket();
            try {
                socket.connect(target, (int) Math.max(1, Math.min(left, 2_000)));
                return new BootstrapChannel(socket);
            } catch (IOException e) {
                Transport.closeQuietly(socket);
                if (!(e instanceof SocketTimeoutException) || last.equals("no attempt")) {
                    last = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                }
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new BootstrapException(BootstrapException.Reason.UNREACHABLE, "cannot reach " + host + ":" + port
                        + " within " + seconds(timeout) + " (" + last.toLowerCase(Locale.ROOT) + "; is the server running?)");
            }
            try {
                Thread.sleep(Math.max(1, Math.min(RETRY_MILLIS, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BootstrapException(BootstrapException.Reason.UNREACHABLE, "interrupted while connecting to "
                        + host + ":" + port, e);
            }
        }
    }

    /**
     * The server side in one call: listens on {@code bindAddress:port}, accepts one peer within
     * {@code timeout}, exchanges endpoint info, connects {@code endpoint}, and returns once both
     * endpoints are connected. The listener is closed; the session keeps the channel.
     *
     * @throws BootstrapException for the reasons of {@link #listen}, {@link BootstrapListener#accept}
     *                            and the exchange (each step bounded by {@code timeout})
     */
    public static BootstrapSession serve(RdmaEndpoint endpoint, String bindAddress, int port, Duration timeout) {
        return serve(endpoint, bindAddress, port, timeout, Map.of());
    }

    /** As {@link #serve(RdmaEndpoint, String, int, Duration)}, sending {@code options} with the info. */
    public static BootstrapSession serve(RdmaEndpoint endpoint, String bindAddress, int port, Duration timeout,
                                         Map<String, String> options) {
        requireEndpoint(endpoint);
        try (BootstrapListener listener = listen(bindAddress, port)) {
            return BootstrapSession.open(endpoint, listener.accept(timeout), false, options, timeout);
        }
    }

    /**
     * The server side in one call on a listener already bound (e.g. to port 0, to learn the port
     * first): accepts one peer within {@code timeout}, then as {@link #serve(RdmaEndpoint, String, int, Duration)}.
     * The listener stays open.
     */
    public static BootstrapSession serve(RdmaEndpoint endpoint, BootstrapListener listener, Duration timeout,
                                         Map<String, String> options) {
        requireEndpoint(endpoint);
        return BootstrapSession.open(endpoint, listener.accept(timeout), false, options, timeout);
    }

    /**
     * The client side in one call: connects to a server at {@code host:port} (retrying until
     * {@code timeout}, so it may start first), exchanges endpoint info, connects {@code endpoint},
     * and returns once both endpoints are connected.
     *
     * @throws BootstrapException for the reasons of {@link #connect(String, int, Duration)} and the exchange
     */
    public static BootstrapSession connect(RdmaEndpoint endpoint, String host, int port, Duration timeout) {
        return connect(endpoint, host, port, timeout, Map.of());
    }

    /** As {@link #connect(RdmaEndpoint, String, int, Duration)}, sending {@code options} with the info. */
    public static BootstrapSession connect(RdmaEndpoint endpoint, String host, int port, Duration timeout,
                                           Map<String, String> options) {
        requireEndpoint(endpoint);
        return BootstrapSession.open(endpoint, connect(host, port, timeout), true, options, timeout);
    }

    private static void requireEndpoint(RdmaEndpoint endpoint) {
        if (endpoint == null) {
            throw new IllegalArgumentException("endpoint must not be null");
        }
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

}
