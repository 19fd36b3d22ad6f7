package io.slime4j.engine.directory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real directory server for tests — Debian's {@code redis-server} or {@code etcd} — on loopback
 * ports of its own, started, stopped (SIGKILL) and restarted on the same ports; its log goes to a
 * file in a temporary folder. Fails clearly when the binary is missing (.ci/run installs it).
 */
public final class ServerProcess implements AutoCloseable {
    private final String kind;
    private final Path dir;
    private final int port;
    private final int peerPort;
    private Process process;

    private ServerProcess(String kind) throws IOException {
        this.kind = kind;
        this.dir = Files.createTempDirectory("slime4j-" + kind);
        this.port = freePort();
        this.peerPort = freePort();
    }

    /** Starts a redis-server without persistence (a restart loses every key). */
    public static ServerProcess redis() throws Exception {
        ServerProcess s = new ServerProcess("redis");
        s.start();
        return s;
    }

    /** Starts a single-member etcd with its data in a temporary folder. */
    public static ServerProcess etcd() throws Exception {
        ServerProcess s = new ServerProcess("etcd");
        s.start();
        return s;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The client port. */
    public int port() {
        return port;
    }

    /** The directory URL of this server. */
    public String url() {
        return kind + "://127.0.0.1:" + port;
    }

    private List<String> command() {
        String loop = "http://127.0.0.1:";
        return switch (kind) {
            case "redis" -> List.of(binary("redis-server"), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString());
            default -> List.of(binary("etcd"), "--name", "t", "--data-dir", dir.resolve("data").toString(),
                    "--listen-client-urls", loop + port, "--advertise-client-urls", loop + port,
                    "--listen-peer-urls", loop + peerPort, "--initial-advertise-peer-urls", loop + peerPort,
                    "--initial-cluster", "t=" + loop + peerPort, "--log-outputs", "stderr");
        };
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

    /** Starts the server and waits (bounded) until it accepts connections. */
    public synchronized void start() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile()));
        process = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(kind + " exited at start: " + Files.readString(dir.resolve("server.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                if (kind.equals("etcd")) {
                    Thread.sleep(300); // the gateway answers once the member is ready; the client retries anyway
                }
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException(kind + " did not listen on " + port + " within 20 s");
    }

    /** Kills the server (SIGKILL) and waits for it to end. */
    public synchronized void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            process = null;
        }
    }

    @Override
    public void close() throws Exception {
        kill();
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
