package io.slime4j.conformance;

import static io.slime4j.conformance.Requests.read;
import static io.slime4j.conformance.Requests.write;
import static io.slime4j.verbs.WcStatus.LOC_PROT_ERR;
import static io.slime4j.verbs.WcStatus.REM_ACCESS_ERR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WorkCompletion;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory registration: which segments may be registered, regions beyond 4 GiB, keys that differ
 * between registrations and devices, stale keys, and keys of another protection domain.
 *
 * <p>Each device runs it through a subclass in its own package (see {@link DeviceFixture}).
 */
public abstract class MemoryRegistrationConformance extends ConformanceSuite {
    protected MemoryRegistrationConformance(DeviceFixture fixture) {
        super(fixture);
    }

    // --------------------------------------------------------------------- memory registration

    @Test
    @Timeout(30)
    public void registeringAHeapSegmentIsRefusedWithAClearMessage() {
        ProtectionDomain pd = domain(device());

        assertThatThrownBy(() -> pd.register(MemorySegment.ofArray(new byte[4096]), AccessFlags.ALL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageMatching("(?is).*(heap|native).*");
    }

    @Test
    @Timeout(30)
    public void registeringAThreadConfinedSegmentIsRefusedWithAClearMessage() {
        ProtectionDomain pd = domain(device());

        try (Arena confined = Arena.ofConfined()) {
            MemorySegment segment = confined.allocate(4096);
            assertThatThrownBy(() -> pd.register(segment, AccessFlags.ALL))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageMatching("(?is).*(confined|thread|shared).*");
        }
    }

    @Test
    @Timeout(30)
    public void registeringRemoteWriteWithoutLocalWriteIsRefused() {
        ProtectionDomain pd = domain(device());

        assertThatThrownBy(() -> pd.register(allocate(4096), AccessFlags.REMOTE_WRITE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pd.register(allocate(4096), AccessFlags.REMOTE_ATOMIC | AccessFlags.REMOTE_READ))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Timeout(60)
    public void regionsLargerThan4GiBRegisterAndAccessesBeyond4GiBLandThere(@TempDir Path dir) throws IOException {
        QpPair p = pair();
        long size = 5L << 30;
        long seed = 1501;
        Arena mapping = closeAfterTest(Arena.ofShared());
        MemorySegment big;
        try (FileChannel channel = FileChannel.open(dir.resolve("sparse-5GiB.bin"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.SPARSE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            big = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, mapping);
        }
        MemoryRegion target = p.b.register(big, AccessFlags.ALL);
        assertThat(target.length()).as("length of the registered region").isEqualTo(size);
        RemoteRegion remote = RemoteRegion.of(target);
        long chunk = 64 * KIB;
        MemoryRegion src = p.a.region(chunk);
        MemoryRegion back = p.a.region(chunk);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(back.segment(), seed + 1);

        long far = (4L << 30) + 12_345; // truncated to 32 bits: 12 345
        p.a.runOk(write(1, src, 0, chunk, remote, far));
        Patterns.assertPattern(big, far, chunk, seed, 0, "write beyond 4 GiB");
        Patterns.assertZero(big, 12_345, chunk, "the offset the write would reach if truncated to 32 bits");

        long farther = size - chunk - 8; // near the end of the 5 GiB
        Patterns.fill(big.asSlice(farther, chunk), seed + 1);
        p.a.runOk(read(2, back, 0, chunk, remote, farther));
        Patterns.assertPattern(back.segment(), 0, chunk, seed + 1, "read from beyond 4 GiB");
    }

    @Test
    @Timeout(30)
    public void keysDifferBetweenRegionsAndRegistrationsAndCarryRandomTagBits() {
        VerbsDevice d1 = device();
        ProtectionDomain pd = domain(d1);
        MemorySegment segment = allocate(4096);

        MemoryRegion r1 = resources.track(d1, pd.register(segment, AccessFlags.ALL));
        MemoryRegion r2 = resources.track(d1, pd.register(segment, AccessFlags.ALL));
        assertThat(r1.remoteKey()).as("remote keys of two regions over the same memory").isNotEqualTo(r2.remoteKey());
        assertThat(r1.localKey()).as("local keys of two regions over the same memory").isNotEqualTo(r2.localKey());
        assertThat(r1.address()).isEqualTo(segment.address());
        assertThat(r1.length()).isEqualTo(segment.byteSize());
        assertThat(r1.accessFlags()).isEqualTo(AccessFlags.ALL);

        Set<Long> keys = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            MemoryRegion r = pd.register(segment, AccessFlags.ALL);
            assertThat(keys.add(r.remoteKey())).as("remote key of registration %d is new: %s", i, keys).isTrue();
            r.close();
            assertThat(r.isRegistered()).isFalse();
        }

        // Two fresh devices registering the same way must not hand out the same keys.
        List<List<Long>> sequences = new ArrayList<>();
        for (int d = 0; d < 2; d++) {
            VerbsDevice device = device();
            ProtectionDomain fresh = domain(device);
            List<Long> sequence = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                sequence.add(resources.track(device, fresh.register(segment, AccessFlags.ALL)).remoteKey());
            }
            sequences.add(sequence);
        }
        assertThat(sequences.get(0)).as("keys of a fresh device vs another fresh device (random tags)")
                .isNotEqualTo(sequences.get(1));
    }

    @Test
    @Timeout(30)
    public void aStaleKeyIsRefusedEvenAfterTheSameMemoryIsRegisteredAgain() {
        QpPair p = pair();
        long seed = 1502;
        MemorySegment memory = allocate(64 * KIB);
        Patterns.fill(memory, seed);
        MemoryRegion old = p.b.register(memory, AccessFlags.ALL);
        RemoteRegion stale = RemoteRegion.of(old);
        old.close();
        MemoryRegion fresh = p.b.register(memory, AccessFlags.ALL);
        assertThat(fresh.remoteKey()).as("key of the new registration").isNotEqualTo(stale.remoteKey());
        MemoryRegion src = p.a.region(64 * KIB);
        Patterns.fillComplement(src.segment(), seed);

        WorkCompletion wc = p.a.run(write(1, src, 0, 4 * KIB, stale, 0));

        assertCompletion(wc, 1, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        Patterns.assertPattern(memory, 0, memory.byteSize(), seed, "memory re-registered under a new key");
    }

    @Test
    @Timeout(30)
    public void aRemoteKeyOfAnotherProtectionDomainIsRefused() {
        QpPair p = pair();
        long seed = 1503;
        ProtectionDomain other = domain(p.b.device);
        MemoryRegion foreign = resources.track(p.b.device, other.register(allocate(64 * KIB), AccessFlags.ALL));
        Patterns.fill(foreign.segment(), seed);
        MemoryRegion src = p.a.region(64 * KIB);
        Patterns.fillComplement(src.segment(), seed);

        WorkCompletion wc = p.a.run(write(1, src, 0, 4 * KIB, RemoteRegion.of(foreign), 0));

        assertCompletion(wc, 1, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        Patterns.assertPattern(foreign.segment(), 0, foreign.length(), seed, "region of another protection domain");
    }

    @Test
    @Timeout(30)
    public void aLocalKeyOfAnotherProtectionDomainIsRefused() {
        QpPair p = pair();
        long seed = 1504;
        ProtectionDomain other = domain(p.a.device);
        MemoryRegion foreign = resources.track(p.a.device, other.register(allocate(64 * KIB), AccessFlags.ALL));
        Patterns.fill(foreign.segment(), seed);
        MemoryRegion dst = p.b.region(64 * KIB);
        Patterns.fillComplement(dst.segment(), seed);

        WorkCompletion wc = p.a.run(write(1, foreign, 0, 4 * KIB, RemoteRegion.of(dst), 0));

        assertCompletion(wc, 1, LOC_PROT_ERR, WcOpcode.RDMA_WRITE);
        Patterns.assertComplement(dst.segment(), 0, dst.length(), seed, "remote memory");
    }
}
