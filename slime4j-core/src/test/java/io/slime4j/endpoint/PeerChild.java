package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An {@link EndpointPeerMain} in a child JVM, connected to a local endpoint: commands on its stdin,
 * replies from its stdout ({@link PeerReplies}: none dropped), every wait bounded. {@link #kill()} ends it with SIGKILL; {@link #close()}
 * makes sure it is gone.
 */
final class PeerChild implements AutoCloseable {
    private static final Duration REPLY_BOUND = Duration.ofSeconds(60);
    private final Process process;
    private final PrintStream in;
    private final PeerReplies replies = new PeerReplies();
    final EndpointInfo info;

    /** Starts the peer with {@code args} (qps, then optional rails and selector) and reads its info. */
    PeerChild(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), EndpointPeerMain.class.getName()));
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread.ofPlatform().daemon().name("peer-child-" + process.pid())
                .start(() -> replies.readFrom(process));
        try {
            info = EndpointInfo.fromJson(expect("INFO "));
        } catch (RuntimeException | Error | InterruptedException e) {
            close();
            throw e;
        }
    }

    /** Connects {@code ep} and the peer to each other. */
    void connect(RdmaEndpoint ep) throws InterruptedException {
        ep.connect(info);
        call("PEER " + ep.info().toJson(), "OK");
    }

    /** Sends a command and returns the rest of the first reply line starting with {@code prefix}. */
    String call(String command, String prefix) throws InterruptedException {
        in.println(command);
        return expect(prefix);
    }

    /**
     * The rest of the oldest unread line starting with {@code prefix}; other lines are kept for later
     * calls, never dropped (an op's outcome may come before the reply to its command); 60 s bound.
     */
    String expect(String prefix) throws InterruptedException {
        return replies.expect(prefix, REPLY_BOUND);
    }

    /** SIGKILL, and waits (bounded) until the process is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("the killed peer exited").isTrue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            in.println("QUIT");
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
