package io.slime4j.wire.inproc;

import io.slime4j.wire.WirePort;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.net.BindException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InprocAddressTest {

    private final InprocWire wire = new InprocWire();

    @AfterEach
    void closeWire() {
        wire.close();
    }

    @Test
    void parsesTheSchemeFormAndTheBareName() {
        assertThat(InprocAddress.parse("inproc:alice")).isEqualTo(new InprocAddress("alice"));
        assertThat(InprocAddress.parse("alice")).isEqualTo(new InprocAddress("alice"));
        assertThat(new InprocAddress("alice").text()).isEqualTo("inproc:alice");
        assertThat(new InprocAddress("alice")).hasSameHashCodeAs(InprocAddress.parse("inproc:alice"));
    }

    @Test
    void resolveRejectsOtherSchemesAndEmptyNamesNamingTheText() {
        WirePort port = wire.bind("a");

        assertThat(port.resolve("inproc:b")).isEqualTo(new InprocAddress("b"));
        assertThat(port.resolve(port.localAddress().text())).isEqualTo(port.localAddress());
        assertThatThrownBy(() -> port.resolve("udp:1.2.3.4:5"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("udp:1.2.3.4:5");
        assertThatThrownBy(() -> port.resolve("inproc:")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> port.resolve("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> port.resolve("inproc:a b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void bindsTheGivenNameInEitherForm() {
        assertThat(wire.name()).isEqualTo("inproc");
        assertThat(wire.bind("inproc:x").localAddress().text()).isEqualTo("inproc:x");
        assertThat(wire.bind("y").localAddress().text()).isEqualTo("inproc:y");
    }

    @Test
    void picksFreshUniqueNamesForEmptyAddresses() {
        wire.bind("port-2");

        WirePort first = wire.bind("");
        WirePort second = wire.bind("inproc:");

        assertThat(first.localAddress().text()).isEqualTo("inproc:port-1");
        assertThat(second.localAddress().text()).isEqualTo("inproc:port-3");
    }

    @Test
    void refusesToBindANameInUseWithABindException() {
        wire.bind("inproc:taken");

        assertThatThrownBy(() -> wire.bind("taken"))
                .isInstanceOf(UncheckedIOException.class)
                .hasCauseInstanceOf(BindException.class)
                .cause().hasMessage("inproc address inproc:taken is in use");
    }

    @Test
    void refusesToBindOtherSchemes() {
        assertThatThrownBy(() -> wire.bind("udp:127.0.0.1:0")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSameNameOnAnotherWireIsFree() {
        try (InprocWire other = new InprocWire()) {
            wire.bind("shared");
            assertThat(other.bind("shared").localAddress()).isEqualTo(new InprocAddress("shared"));
        }
    }
}
