package io.slime4j.endpoint;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One {@link Bootstrap} connection between the two sides, carrying length-prefixed
 * {@link BootstrapMessage} frames. Used by one thread at a time.
 */
public final class BootstrapChannel implements AutoCloseable {
    private final Socket socket;
    private final PushbackInputStream in;
    private final OutputStream out;

    BootstrapChannel(Socket socket) throws IOException {
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
    public void send(BootstrapMessage message, Duration timeout) {
        byte[] body = message.encode();
        if (body.length > Bootstrap.MAX_FRAME_BYTES) {
            throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "bootstrap message of " + body.length
                    + " bytes exceeds the limit of " + Bootstrap.MAX_FRAME_BYTES);
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
                        + " did not take a message within " + Bootstrap.seconds(timeout), e);
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
    public BootstrapMessage receive(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        byte[] header = new byte[4];
        boolean started = false;
        try {
            readFully(header, deadline, timeout);
            started = true;
            int length = ByteBuffer.wrap(header).getInt();
            if (length < 1 || length > Bootstrap.MAX_FRAME_BYTES) {
                close();
                throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "bad bootstrap frame from "
                        + remoteAddress() + ": length " + length + " is outside 1.." + Bootstrap.MAX_FRAME_BYTES);
            }
            byte[] body = new byte[length];
            readFully(body, deadline, timeout);
            try {
                return BootstrapMessage.decode(body);
            } catch (BootstrapException e) {
                close();
                throw e;
            }
        } catch (SocketTimeoutException e) {
            if (started) {
                close(); // the stream is inside a frame now: unusable
            }
            throw new BootstrapException(BootstrapException.Reason.TIMEOUT, "no message from the peer at "
                    + remoteAddress() + " within " + Bootstrap.seconds(timeout), e);
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
                throw new SocketTimeoutException("timed out after " + Bootstrap.seconds(timeout));
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
    public BootstrapMessage exchange(BootstrapMessage message, Duration timeout) {
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
