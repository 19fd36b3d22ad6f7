package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.endpoint.BootstrapException;
import io.slime4j.endpoint.BootstrapMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The server's answer to the client's bye: the client closes its engine as soon as the answer
 * arrives, so the answer's acknowledgement may be lost and its send end CLOSED; that is the end of
 * a finished run. A send that times out still fails. (Seen in a fresh-clone CI run: the directory
 * perf's server exited 1, "the client engine A went away mid-run", after the client had finished.)
 */
class ByeAnswerTest {

    /** A control whose every send ends with {@code failure} (null: succeeds), recording what was sent. */
    private static PerfControl control(BootstrapException.Reason failure, List<BootstrapMessage> sent) {
        return new PerfControl() {
            @Override
            public void send(BootstrapMessage message, Duration timeout) {
                sent.add(message);
                if (failure != null) {
                    throw new BootstrapException(failure, "the connection to engine A ended: endpoint B>A closed");
                }
            }

            @Override
            public BootstrapMessage receive(Duration wait) {
                throw new AssertionError("the bye answer receives nothing");
            }

            @Override
            public boolean isPeerClosed() {
                return false;
            }

            @Override
            public boolean usesImmediates() {
                return true;
            }
        };
    }

    @Test
    void aConnectionThatEndedUnderTheAnswerIsTheEndOfTheRun() {
        List<BootstrapMessage> sent = new ArrayList<>();
        PerfServer.answerBye(control(BootstrapException.Reason.CLOSED, sent), Duration.ofSeconds(1));
        assertThat(sent).singleElement().satisfies(m -> assertThat(m.require("cmd")).isEqualTo("bye"));
    }

    @Test
    void anAnswerThatTimesOutStillFails() {
        List<BootstrapMessage> sent = new ArrayList<>();
        assertThatThrownBy(() -> PerfServer.answerBye(control(BootstrapException.Reason.TIMEOUT, sent),
                Duration.ofSeconds(1)))
                .isInstanceOf(BootstrapException.class)
                .satisfies(e -> assertThat(((BootstrapException) e).reason()).isEqualTo(BootstrapException.Reason.TIMEOUT));
    }

    @Test
    void anAnswerThatArrivesIsSentOnce() {
        List<BootstrapMessage> sent = new ArrayList<>();
        PerfServer.answerBye(control(null, sent), Duration.ofSeconds(1));
        assertThat(sent).hasSize(1);
    }
}
