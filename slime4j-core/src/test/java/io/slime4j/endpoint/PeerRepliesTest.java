package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The peer's reply stream keeps every line: an op's outcome that the peer printed before its
 * acknowledgement of the command (a send the peer's endpoint failed at once, REM_ABORT_ERR, whose
 * completion ran before the peer printed POSTED) is still there for the next {@code expect}. This
 * is the interleaving that made {@link CancelledRecvCrossProcessTest} wait 60 s for a reply it had
 * already skipped.
 */
@Timeout(10)
class PeerRepliesTest {

    @Test
    void anOutcomePrintedBeforeTheAcknowledgementIsFoundByTheNextExpect() throws Exception {
        PeerReplies replies = new PeerReplies();
        replies.add("SENT FAILED REM_ABORT_ERR");
        replies.add("POSTED");

        assertThat(replies.expect("POSTED", Duration.ofSeconds(1))).isEmpty();
        assertThat(replies.expect("SENT ", Duration.ofSeconds(1))).isEqualTo("FAILED REM_ABORT_ERR");
    }

    @Test
    void linesWithTheSamePrefixAreTakenOldestFirst_andEachOnce() throws Exception {
        PeerReplies replies = new PeerReplies();
        replies.add("SENT FAILED REM_ABORT_ERR");
        replies.add("NOTICES 1");
        replies.add("SENT SUCCESS SUCCESS");

        assertThat(replies.expect("NOTICES ", Duration.ofSeconds(1))).isEqualTo("1");
        assertThat(replies.expect("SENT ", Duration.ofSeconds(1))).isEqualTo("FAILED REM_ABORT_ERR");
        assertThat(replies.expect("SENT ", Duration.ofSeconds(1))).isEqualTo("SUCCESS SUCCESS");
        assertThatThrownBy(() -> replies.expect("SENT ", Duration.ofMillis(50))).isInstanceOf(AssertionError.class);
    }

    @Test
    void aReplyThatNeverComesFailsAtTheBound_namingTheLinesKept() throws Exception {
        PeerReplies replies = new PeerReplies();
        replies.add("WROTE SUCCESS SUCCESS");
        long began = System.nanoTime();

        assertThatThrownBy(() -> replies.expect("SENT ", Duration.ofMillis(200))).isInstanceOf(AssertionError.class)
                .hasMessageContaining("no line starting with 'SENT '").hasMessageContaining("WROTE SUCCESS SUCCESS");
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThanOrEqualTo(Duration.ofMillis(190))
                .isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aLineArrivingWhileWaitingIsTaken() throws Exception {
        PeerReplies replies = new PeerReplies();
        Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(50);
                replies.add("SENT SUCCESS SUCCESS");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        assertThat(replies.expect("SENT ", Duration.ofSeconds(5))).isEqualTo("SUCCESS SUCCESS");
    }
}
