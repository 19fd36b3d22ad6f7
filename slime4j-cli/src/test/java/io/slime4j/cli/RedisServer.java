package io.slime4j.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code redis-server} on a loopback port of its own, without persistence, for the
 * {@code perf --directory redis://} tests; killed on close. Fails clearly when the binary is
 * missing (.ci/run installs it). The engine module's tests have a fuller one (restart, etcd).
 */
final class RedisServer implements AutoCloseable {
    private final Path dir;
    private final int port;
    private final Process process;

    private RedisServer(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /** Starts it and waits (bounded, 20 s) until it accepts connections. */
    static RedisServer start() throws Exception {
        Path binary = Path.of("/usr/bin/redis-server");
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException("redis-server is not installed (apt-get install redis-server; .ci/run does it)");
        }
        Path dir = Files.createTempDirectory("slime4j-cli-redis");
        int port = freePort();
        Process p = new ProcessBuilder(List.of(binary.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
        RedisServer s = new RedisServer(dir, port, p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                String log = Files.readString(dir.resolve("server.log"));
                s.close();
                throw new IllegalStateException("redis-server exited at start: " + log);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return s;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        s.close();
        throw new IllegalStateException("redis-server did not listen on " + port + " within 20 s");
    }

    /** A loopback port free now. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Its directory URL. */
    String url() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public void close() throws Exception {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
