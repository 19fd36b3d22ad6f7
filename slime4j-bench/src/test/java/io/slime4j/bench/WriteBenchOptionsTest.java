package io.slime4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link WriteBench}'s options: which system's phase goes first, and a bad value named. */
class WriteBenchOptionsTest {

    @Test
    void slime4jGoesFirstUnlessToldOtherwise() {
        assertThat(Options.parse(new String[0]).first).isEqualTo("slime4j");
        assertThat(Options.parse(new String[] {"--first", "tcp"}).first).isEqualTo("tcp");
    }

    @Test
    void anUnknownFirstSystemIsAOneLineErrorNamingIt() {
        assertThatThrownBy(() -> Options.parse(new String[] {"--first", "udp"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--first must be slime4j or tcp, was udp");
    }
}
