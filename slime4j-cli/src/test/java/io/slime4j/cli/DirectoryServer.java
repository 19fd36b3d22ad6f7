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
 * A real directory server for the {@code perf --directory} tests — Debian's {@code redis-server}
 * (no persistence) or {@code etcd} (one member, data in a temporary folder) — on loopback ports
 * of its own; killed on close. Fails clearly when the binary is missing (.ci/run installs it). The
 * engine module's tests have a fuller one (restart on the same ports).
 */
final class DirectoryServer implements AutoCloseable {
    private final String kind;
    private final Path dir;
    private final int port;
    private Process process;

    private DirectoryServer(String kind) throws IOException {
        this.kind = kind;
        this.dir = Files.createTempDirectory("slime4j-cli-" + kind);
        this.port = freePort();
    }

    /** Starts {@code redis} or {@code etcd} and waits (bounded, 20 s) until it accepts connections. */
    static DirectoryServer start(String kind) throws Exception {
        DirectoryServer s = new DirectoryServer(kind);
        try {
            s.run();
            return s;
        } catch (Exception | Error e) {
            s.close();
            throw e;
        }
    }

    private void run() throws Exception {
        String loop = "http://127.0.0.1:";
        int peerPort = freePort();
        List<String> command = switch (kind) {
            case "redis" -> List.of(binary("redis-server"), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString());
            case "etcd" -> List.of(binary("etcd"), "--name", "t", "--data-dir", dir.resolve("data").toString(),
                    "--listen-client-urls", loop + port, "--advertise-client-urls", loop + port,
                    "--listen-peer-urls", loop + peerPort, "--initial-advertise-peer-urls", loop + peerPort,
                    "--initial-cluster", "t=" + loop + peerPort);
            default -> throw new IllegalArgumentException(kind);
        };
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(kind + " exited at start: " + Files.readString(dir.resolve("server.log")));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                if (kind.equals("etcd")) {
                    Thread.sleep(300); // the gateway answers once the member is ready
                }
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException(kind + " did not listen on " + port + " within 20 s");
    }

    private static String binary(String name) {
        for (String d : List.of("/usr/bin/", "/usr/local/bin/", "/usr/sbin/")) {
            if (Files.isExecutable(Path.of(d + name))) {
                return d + name;
            }
        }
        throw new IllegalStateException(name + " is not installed (apt-get install "
                + (name.equals("etcd") ? "etcd-server" : "redis-server") + "; .ci/run does it)");
    }

    /** A loopback port free now. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Its directory URL. */
    String url() {
        return kind + "://127.0.0.1:" + port;
    }

    @Override
    public void close() throws Exception {
        if (process != null) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
