package io.slime4j.bench;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Aeron configured fairly for two cores: each side its own embedded media driver (as two hosts
 * would have) in SHARED threading mode with a yielding idle strategy, the application polling with
 * a yielding idle strategy too ({@code --aeron-idle backoff}: Agrona's backoff, spin-yield-park up
 * to 100 µs, for both instead; slower here); an exclusive publication to the peer's subscription over UDP on
 * loopback, default term length, 2 MiB socket buffers and receiver window (set by the harness). Needs {@code --add-exports
 * java.base/jdk.internal.misc=ALL-UNNAMED} (the harness adds it). No one-sided transfer: the
 * bandwidth rows stay empty for Aeron.
 */
final class AeronSide extends Side {
    private static final int STREAM = 1001;
    private MediaDriver driver;
    private Aeron aeron;
    private ExclusivePublication pub;
    private Subscription sub;
    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64 << 10));
    private final IdleStrategy idle;
    private long fragments;

    private AeronSide(CompareOptions options, Link link, boolean isA) {
        super(options, link, isA);
        this.idle = idle();
    }

    static Side create(CompareOptions o, Link link, boolean isA) throws Unavailable {
        try {
            return new AeronSide(o, link, isA);
        } catch (LinkageError e) {
            throw new Unavailable("Aeron classes not loadable: " + e, e);
        }
    }

    private IdleStrategy idle() {
        if (options.aeronIdle.equals("yield")) {
            return new YieldingIdleStrategy();
        }
        return new BackoffIdleStrategy(100, 10, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(100));
    }

    @Override
    void open() throws Exception {
        Path dir = Files.createTempDirectory(Path.of(Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" : System.getProperty("java.io.tmpdir")),
                "aeron-compare-");
        try {
            driver = MediaDriver.launch(new MediaDriver.Context()
                    .aeronDirectoryName(dir.toString())
                    .threadingMode(ThreadingMode.SHARED)
                    .sharedIdleStrategy(idle())
                    .dirDeleteOnStart(true)
                    .dirDeleteOnShutdown(true));
        } catch (RuntimeException | LinkageError e) {
            throw new Unavailable("Aeron media driver did not start: " + e, e);
        }
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
        int port;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort(); // a free port for this side's subscription
        }
        sub = aeron.addSubscription("aeron:udp?endpoint=127.0.0.1:" + port, STREAM);
        link.toPeer("PORT " + port);
        pub = aeron.addExclusivePublication("aeron:udp?endpoint=127.0.0.1:" + link.fromPeer("PORT"), STREAM);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.timeoutSeconds);
        while (!pub.isConnected() || !sub.isConnected()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("Aeron publication/subscription not connected within " + options.timeoutSeconds + " s");
            }
            Thread.sleep(1);
        }
        link.barrier("connected");
    }

    private void offer(int size, long deadline) throws IOException {
        idle.reset();
        long r;
        while ((r = pub.offer(message, 0, size)) < 0) {
            if (r == Publication.CLOSED || r == Publication.MAX_POSITION_EXCEEDED) {
                throw new IOException("Aeron offer failed: " + Publication.errorString(r));
            }
            check(deadline);
            idle.idle();
        }
    }

    /** Polls until {@code target} fragments have arrived in total. */
    private void pollUntil(FragmentHandler handler, long target, long deadline) throws IOException {
        idle.reset();
        while (fragments < target) {
            int n = sub.poll(handler, 256);
            if (n == 0) {
                check(deadline);
            }
            idle.idle(n);
        }
    }

    private static void check(long deadline) throws IOException {
        if (System.nanoTime() > deadline) {
            throw new IOException("Aeron: no progress before the deadline");
        }
    }

    private long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(options.timeoutSeconds);
    }

    @Override
    void rate(String variant, int size) throws IOException {
        int count = rateCount();
        long deadline = deadline();
        if (isA) {
            long base = fragments;
            long[] first = new long[1];
            int warm = warm();
            FragmentHandler h = (buffer, offset, length, header) -> {
                if (fragments++ - base == warm) {
                    first[0] = System.nanoTime();
                }
            };
            pollUntil(h, base + count, deadline);
            link.result("rate." + size, perSecond(count - 1 - warm, System.nanoTime() - first[0]));
        } else {
            for (int i = 0; i < count; i++) {
                offer(size, deadline);
            }
        }
    }

    @Override
    void rtt(int size) throws IOException {
        int n = options.roundTrips;
        int total = n + options.rttWarmup;
        long deadline = deadline();
        long[] samples = new long[n];
        FragmentHandler h = (buffer, offset, length, header) -> fragments++;
        for (int i = 0; i < total; i++) {
            if (isA) {
                pollUntil(h, fragments + 1, deadline);
                offer(size, deadline);
            } else {
                long start = System.nanoTime();
                offer(size, deadline);
                pollUntil(h, fragments + 1, deadline);
                if (i >= total - n) {
                    samples[i - (total - n)] = System.nanoTime() - start;
                }
            }
        }
        if (!isA) {
            reportRtt(samples);
        }
    }

    @Override
    boolean bandwidth(int size) {
        return false;
    }

    @Override
    void close() {
        if (aeron != null) {
            aeron.close();
        }
        if (driver != null) {
            driver.close();
        }
    }
}
