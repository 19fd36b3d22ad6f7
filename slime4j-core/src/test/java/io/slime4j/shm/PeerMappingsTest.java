package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * Shared memory and how a peer maps it: the same bytes through both mappings; a wrong inode (a
 * reused descriptor) or a descriptor that does not exist is refused; nothing is left in any file
 * system.
 */
class PeerMappingsTest {

    @Test
    void aPeerMappingSeesAndChangesTheSameBytes() {
        try (Arena arena = Arena.ofShared(); PeerMappings mappings = new PeerMappings()) {
            MemorySegment mine = SharedMemory.allocate(1 << 20, arena);
            SharedMemory.Allocation a = SharedMemory.find(mine.address(), mine.byteSize());
            assertThat(a).isNotNull();
            assertThat(SharedMemory.isShared(mine)).isTrue();
            MemorySegment theirs = mappings.map(ShmNative.pid(), a.fd(), a.inode());
            assertThat(theirs.address()).as("a second mapping").isNotEqualTo(mine.address());
            mine.set(ValueLayout.JAVA_LONG, 4096, 0x1234_5678_9ABC_DEF0L);
            assertThat(theirs.get(ValueLayout.JAVA_LONG, 4096)).isEqualTo(0x1234_5678_9ABC_DEF0L);
            theirs.set(ValueLayout.JAVA_LONG, 8, 42);
            assertThat(mine.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(42);
        }
    }

    @Test
    void aDescriptorWhoseInodeIsNotTheAnnouncedOneIsRefused() {
        try (Arena arena = Arena.ofShared(); PeerMappings mappings = new PeerMappings()) {
            MemorySegment mine = SharedMemory.allocate(4096, arena);
            SharedMemory.Allocation a = SharedMemory.find(mine.address(), mine.byteSize());
            assertThatThrownBy(() -> mappings.map(ShmNative.pid(), a.fd(), a.inode() + 1))
                    .isInstanceOf(ShmException.class).hasMessageContaining("reused");
        }
    }

    @Test
    void aDescriptorThatDoesNotExistIsRefusedWithAClearMessage() {
        try (PeerMappings mappings = new PeerMappings()) {
            assertThatThrownBy(() -> mappings.map(ShmNative.pid(), 999_999, 1))
                    .isInstanceOf(ShmException.class).hasMessageContaining("/proc/");
        }
    }

    @Test
    void privateMemoryIsNotShared() {
        try (Arena arena = Arena.ofShared()) {
            assertThat(SharedMemory.isShared(arena.allocate(4096))).isFalse();
        }
    }

    @Test
    void sharedMemoryIsNamedInNoFileSystemSoACrashLeavesNothingBehind() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mine = SharedMemory.allocate(4096, arena);
            SharedMemory.Allocation a = SharedMemory.find(mine.address(), mine.byteSize());
            String target = java.nio.file.Files.readSymbolicLink(
                    java.nio.file.Path.of("/proc/self/fd/" + a.fd())).toString();
            assertThat(target).as("what the descriptor refers to").startsWith("/memfd:").endsWith("(deleted)");
        }
    }

    @Test
    void aNonPositiveSizeIsRefused() {
        try (Arena arena = Arena.ofShared()) {
            assertThatThrownBy(() -> SharedMemory.allocate(0, arena)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
