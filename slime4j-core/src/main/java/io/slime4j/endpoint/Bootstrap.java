package io.slime4j.endpoint;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Exchanges {@link EndpointInfo} (and a few string options) between two processes over a TCP side
 * channel, the way perftest and UCX exchange queue pair numbers before the fast path starts. One
 * side {@link #listen}s and {@link Listener#accept}s, the other {@link #connect}s (retrying until a
 * deadline, so it may start first); both then {@link Channel#send} and {@link Channel#receive}
 * {@link Message}s.
 *
 * <pre>{@code
 * // server side
 * try (Bootstrap.Listener listener = Bootstrap.listen("0.0.0.0", Bootstrap.DEFAULT_PORT);
 *      Bootstrap.Channel channel = listener.accept(Duration.ofMinutes(5))) {
 *     Bootstrap.Message hello = channel.receive(Duration.ofSeconds(10));
 *     channel.send(Bootstrap.Message.of(endpoint.info(), Map.of()), Duration.ofSeconds(10));
 *     endpoint.connect(hello.info());
 * }
 * // client side
 * try (Bootstrap.Channel channel = Bootstrap.connect("server-host", Bootstrap.DEFAULT_PORT, Duration.ofSeconds(10))) {
 *     Bootstrap.Message reply = channel.exchange(Bootstrap.Message.of(endpoint.info(), Map.of("qps", "1")),
 *             Duration.ofSeconds(10));
 *     endpoint.connect(reply.info());
 * }
 * }</pre>
 *
 * <p>Frame: a 4-byte big-endian length (1..{@link #MAX_FRAME_BYTES}), then that many bytes of UTF-8
 * JSON {@code {"info":"<EndpointInfo JSON>","options":{"key":"value",...}}} ({@code info} may be
 * absent). Every wait is bounded by the timeout given; failures are {@link BootstrapException}s
 * whose {@link BootstrapException#reason()} tells unreachable peer, port in use, bad frame, closed
 * connection and timeout apart. A channel is used by one thread at a time.
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
     * {@code port} (0 picks a free one: see {@link Listener#port()}).
     *
     * @throws BootstrapException PORT_IN_USE if the port is taken, IO if the address is not local
     */
    public static Listener listen(String bindAddress, int port) {
        return listen(bindAddress, port, 4);
    }

    /**
     * As {@link #listen(String, int)}, with room for {@code backlog} connections not yet accepted
     * (a listener many peers dial at once, such as a transfer engine's, needs more than the default 4).
     */
    public static Listener listen(String bindAddress, int port, int backlog) {
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
            return new Listener(server);
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
    public static Channel connect(String host, int port, Duration timeout) {
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
                return new Channel(socket);
            } catch (IOException e) {
                Transport.closeQuietly(socket);
                if (!(e instanceof SocketTimeoutException) || last.equals("no attempt")) {
                    last = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                }
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new BootstrapException(BootstrapException.Reason.UNREACHABLE, "cannot reach " + host + ":" + port
                        + " within " + seconds(timeout) + " (" + last.toLowerCase() + "; is the server running?)");
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

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /**
     * One bootstrap message: an optional {@link EndpointInfo} and string options (run parameters,
     * results, commands; insertion order kept).
     *
     * @param info    the sender's endpoint info, or null
     * @param options string keys and values, never null
     */
    public record Message(EndpointInfo info, Map<String, String> options) {
        /** Copies the options; rejects null keys or values. */
        public Message {
            LinkedHashMap<String, String> copy = new LinkedHashMap<>();
            if (options != null) {
                options.forEach((k, v) -> {
                    if (k == null || v == null) {
                        throw new IllegalArgumentException("bootstrap options must not hold null keys or values");
                    }
                    copy.put(k, v);
                });
            }
            options = Collections.unmodifiableMap(copy);
        }

        /** A message with options only. */
        public static Message of(Map<String, String> options) {
            return new Message(null, options);
        }

        /** A message with endpoint info and options. */
        public static Message of(EndpointInfo info, Map<String, String> options) {
            return new Message(info, options);
        }

        /** The option's value, or {@code fallback} if it is absent. */
        public String get(String key, String fallback) {
            return options.getOrDefault(key, fallback);
        }

        /**
         * The option's value.
         *
         * @throws BootstrapException BAD_FRAME if it is absent
         */
        public String require(String key) {
            String v = options.get(key);
            if (v == null) {
                throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "bootstrap message without '"
                        + key + "': " + options);
            }
            return v;
        }

        byte[] encode() {
            StringBuilder sb = new StringBuilder(512).append('{');
            if (info != null) {
                Json.quote(sb.append("\"info\":"), info.toJson()).append(',');
            }
            sb.append("\"options\":{");
            boolean first = true;
            for (Map.Entry<String, String> e : options.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                Json.quote(sb, e.getKey()).append(':');
                Json.quote(sb, e.getValue());
            }
            return sb.append("}}").toString().getBytes(StandardCharsets.UTF_8);
        }

        static Message decode(byte[] frame) {
            String text;
            try {
                text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(frame)).toString();
            } catch (CharacterCodingException e) {
                throw bad("not UTF-8", e);
            }
            Object parsed;
            try {
                parsed = Json.parse(text);
            } catch (IllegalArgumentException e) {
                throw bad("not JSON: " + e.getMessage(), e);
            }
            if (!(parsed instanceof Map<?, ?> o) || !(o.get("options") instanceof Map<?, ?> opts)) {
                throw bad("not a bootstrap message (no 'options' object)", null);
            }
            Map<String, String> options = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : opts.entrySet()) {
                if (!(e.getValue() instanceof String v)) {
                    throw bad("option '" + e.getKey() + "' is not a string", null);
                }
                options.put((String) e.getKey(), v);
            }
            EndpointInfo info = null;
            Object i = o.get("info");
            if (i != null) {
                if (!(i instanceof String json)) {
                    throw bad("'info' is not a string", null);
                }
                try {
                    info = EndpointInfo.fromJson(json);
                } catch (IllegalArgumentException e) {
                    throw bad(e.getMessage(), e);
                }
            }
            return new Message(info, options);
        }

        private static BootstrapException bad(String what, Throwable cause) {
            return new BootstrapException(BootstrapException.Reason.BAD_FRAME, "bad bootstrap frame: " + what, cause);
        }
    }

    /** A listening TCP socket of the server side. */
    public static final class Listener implements AutoCloseable {
        private final ServerSocket server;

        private Listener(ServerSocket server) {
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
        public Channel accept(Duration timeout) {
            try {
                server.setSoTimeout((int) Math.clamp(timeout.toMillis(), 1, Integer.MAX_VALUE));
                return new Channel(server.accept());
            } catch (SocketTimeoutException e) {
                throw new BootstrapException(BootstrapException.Reason.TIMEOUT, "no peer connected to port " + port()
                        + " within " + seconds(timeout), e);
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

    /** One connection between the two sides, carrying length-prefixed {@link Message} frames. */
    public static final class Channel implements AutoCloseable {
        private final Socket socket;
        private final PushbackInputStream in;
        private final OutputStream out;

        private Channel(Socket socket) throws IOException {
            this.socket = socket;
            try {
                socket.setTcpNoDelay(true);
                this.in = new PushbackInputStream(socket.getInputStream(), 1);
                this.out = socket.getOutputStream();
            } catch (IOException | RuntimeException e) {
                socket.close(); // not handed out: nobody else would close it
                throw e;
            }
        }

        /** This side's address of the connection: the address the peer reached us by. */
        public InetAddress localAddress() {
            return socket.getLocalAddress();
        }

        /** The peer's address. */
        public InetSocketAddress remoteAddress() {
            return (InetSocketAddress) socket.getRemoteSocketAddress();
        }

        /**
         * Sends one message; if the peer does not take it within {@code timeout}, the channel is
         * closed and this throws.
         *
         * @throws BootstrapException TIMEOUT, CLOSED, or BAD_FRAME if the message exceeds the limit
         */
        public void send(Message message, Duration timeout) {
            byte[] body = message.encode();
            if (body.length > MAX_FRAME_BYTES) {
                throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "bootstrap message of " + body.length
                        + " bytes exceeds the limit of " + MAX_FRAME_BYTES);
            }
            ByteArrayOutputStream frame = new ByteArrayOutputStream(body.length + 4);
            try (DataOutputStream data = new DataOutputStream(frame)) {
                data.writeInt(body.length);
                data.write(body);
            } catch (IOException e) {
                throw new AssertionError(e); // in memory
            }
            AtomicBoolean finished = new AtomicBoolean();
            AtomicBoolean expired = new AtomicBoolean();
            CompletableFuture.delayedExecutor(timeout.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
                if (!finished.get()) {
                    expired.set(true);
                    close();
                }
            });
            try {
                out.write(frame.toByteArray());
                out.flush();
            } catch (IOException e) {
                if (expired.get()) {
                    throw new BootstrapException(BootstrapException.Reason.TIMEOUT, "the peer at " + remoteAddress()
                            + " did not take a message within " + seconds(timeout), e);
                }
                close();
                throw new BootstrapException(BootstrapException.Reason.CLOSED, "the peer at " + remoteAddress()
                        + " closed the connection (" + e.getMessage() + ")", e);
            } finally {
                finished.set(true);
            }
        }

        /**
         * Waits up to {@code timeout} for the next message.
         *
         * @throws BootstrapException TIMEOUT, CLOSED or BAD_FRAME (the last two close the channel)
         */
        public Message receive(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            byte[] header = new byte[4];
            boolean started = false;
            try {
                readFully(header, deadline, timeout);
                started = true;
                int length = ByteBuffer.wrap(header).getInt();
                if (length < 1 || length > MAX_FRAME_BYTES) {
                    close();
                    throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "bad bootstrap frame from "
                            + remoteAddress() + ": length " + length + " is outside 1.." + MAX_FRAME_BYTES);
                }
                byte[] body = new byte[length];
                readFully(body, deadline, timeout);
                try {
                    return Message.decode(body);
                } catch (BootstrapException e) {
                    close();
                    throw e;
                }
            } catch (SocketTimeoutException e) {
                if (started) {
                    close(); // the stream is inside a frame now: unusable
                }
                throw new BootstrapException(BootstrapException.Reason.TIMEOUT, "no message from the peer at "
                        + remoteAddress() + " within " + seconds(timeout), e);
            } catch (EOFException | SocketException e) {
                close();
                throw new BootstrapException(BootstrapException.Reason.CLOSED, "the peer at " + remoteAddress()
                        + " closed the connection", e);
            } catch (IOException e) {
                close();
                throw new BootstrapException(BootstrapException.Reason.IO, "receiving from " + remoteAddress()
                        + " failed: " + e.getMessage(), e);
            }
        }

        private void readFully(byte[] buffer, long deadline, Duration timeout) throws IOException {
            int n = 0;
            while (n < buffer.length) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new SocketTimeoutException("timed out after " + seconds(timeout));
                }
                socket.setSoTimeout((int) Math.min(left, Integer.MAX_VALUE));
                int r;
                try {
                    r = in.read(buffer, n, buffer.length - n);
                } catch (SocketTimeoutException e) {
                    if (n > 0) {
                        close(); // part of a frame was read: the stream is unusable
                    }
                    throw e;
                }
                if (r < 0) {
                    throw new EOFException("end of stream");
                }
                n += r;
            }
        }

        /** Sends {@code message}, then waits for the peer's; the timeout bounds each. */
        public Message exchange(Message message, Duration timeout) {
            send(message, timeout);
            return receive(timeout);
        }

        /**
         * Whether the peer has closed the connection (its process ended), checked without
         * blocking longer than a millisecond and without losing data that has arrived.
         */
        public boolean isPeerClosed() {
            if (socket.isClosed()) {
                return true;
            }
            try {
                socket.setSoTimeout(1);
                int b = in.read();
                if (b < 0) {
                    return true;
                }
                in.unread(b);
                return false;
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true;
            }
        }

        /** Closes the connection. */
        @Override
        public void close() {
            Transport.closeQuietly(socket);
        }
    }
}
