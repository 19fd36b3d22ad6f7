package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Host identity and the transport setting. */
class HostIdentityTest {
    private static final HostIdentity HERE = new HostIdentity("382ae195-a967-4a33-a235-857e7eb8600e", 4026531836L,
            4026531832L);

    @Test
    void thisProcessHasTheBootIdAndNamespacesOfProc() throws Exception {
        HostIdentity me = HostIdentity.current();
        assertThat(me.bootId()).isEqualTo(Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip());
        assertThat(Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString()).contains("[" + me.pidNamespace() + "]");
        assertThat(me.sameHostAs(HostIdentity.parse(me.toText()))).isTrue();
    }

    @Test
    void aFakeProcTreeIsReadTheSameWay(@TempDir Path proc) throws Exception {
        Files.createDirectories(proc.resolve("sys/kernel/random"));
        Files.writeString(proc.resolve("sys/kernel/random/boot_id"), "abc-def\n");
        Files.createDirectories(proc.resolve("self/ns"));
        Files.createSymbolicLink(proc.resolve("self/ns/pid"), Path.of("pid:[17]"));
        Files.createSymbolicLink(proc.resolve("self/ns/mnt"), Path.of("mnt:[23]"));
        assertThat(HostIdentity.read(proc)).isEqualTo(new HostIdentity("abc-def", 17, 23));
    }

    @Test
    void anotherBootOrAnotherNamespaceIsAnotherHost() {
        assertThat(HERE.sameHostAs(new HostIdentity("other-boot", 4026531836L, 4026531832L))).isFalse();
        assertThat(HERE.sameHostAs(new HostIdentity(HERE.bootId(), 1, 4026531832L))).isFalse();
        assertThat(HERE.sameHostAs(new HostIdentity(HERE.bootId(), 4026531836L, 2))).isFalse();
    }

    @Test
    void theTransportSettingIsReadFromTheSystemPropertyAndAMalformedOneIsNamed() {
        try {
            System.clearProperty("slime4j.transport");
            if (System.getenv("SLIME4J_TRANSPORT") == null) {
                assertThat(TransportChoice.fromEnvironment()).isEqualTo(TransportChoice.AUTO);
            }
            System.setProperty("slime4j.transport", " Network ");
            assertThat(TransportChoice.fromEnvironment()).isEqualTo(TransportChoice.NETWORK);
            System.setProperty("slime4j.transport", "shm");
            assertThat(TransportChoice.fromEnvironment()).isEqualTo(TransportChoice.SHM);
            System.setProperty("slime4j.transport", "fast");
            assertThatThrownBy(TransportChoice::fromEnvironment).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("auto, shm or network, was 'fast'");
        } finally {
            System.clearProperty("slime4j.transport");
        }
    }

    @Test
    void malformedTextIsRefusedNamingIt() {
        assertThatThrownBy(() -> HostIdentity.parse("abc/1")).hasMessageContaining("abc/1");
        assertThatThrownBy(() -> HostIdentity.parse("abc/x/2")).hasMessageContaining("abc/x/2");
        assertThatThrownBy(() -> HostIdentity.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
