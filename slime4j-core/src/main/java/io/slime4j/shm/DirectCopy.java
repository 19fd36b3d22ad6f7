package io.slime4j.shm;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An RDMA WRITE or READ executed by the requester itself (holder of the progress lock), when the
 * target region is exported by the peer device ({@link ExportTable}): the requester maps the
 * peer's memfd and copies once, between its own registered memory and the peer's, with no
 * hand-off to the peer's responder and no wake-up on either side. The request then completes at
 * once, in order, because the requester takes this path only when nothing earlier of its queue
 * pair is outstanding.
 *
 * <p>It checks what the peer's responder would: the peer's queue pair is connected to this one and
 * live, its device open and its process alive; the export entry names exactly this key, the peer
 * queue pair's protection domain, the access flag, and holds {@code [address, address + length)}
 * (without overflow). Anything else — a key not exported, a failed check, a mapping that cannot
 * be made — is not decided here: the request goes through the ring and the responder executes or
 * NAKs it as before (REM_ACCESS_ERR and the rest). The copy runs between a raise and a drop of
 * the entry's count of copies, after which the entry's sequence is read again, so a region being
 * deregistered is never copied into after its owner's {@code close()} returns.
 *
 * <p>What only the requester can see is decided here: local memory freed under its registration
 * (its arena closed) fails the request with LOC_PROT_ERR, as a local error (docs/VERBS.md), and
 * nothing is copied; it is not handed to the peer, whose responder would reach for memory that is
 * gone. Nothing the copy throws escapes.
 */
final class DirectCopy {
    private final ShmQueuePair qp;
    private final PeerMappings mappings;
    /** The peer file mapped last: most requests name the same one, no lookup. */
    private long lastInode = -1;
    private int lastPid;
    private MemorySegment lastFile;

    DirectCopy(ShmQueuePair qp) {
        this.qp = qp;
        this.mappings = qp.device.mappings();
    }

    /**
     * Executes {@code w} (its local regions held) if it can be done here: SUCCESS when its data is
     * in place, another status when it failed here (LOC_PROT_ERR: its local memory was freed), null
     * when it must go through the ring.
     */
    WcStatus tryExecute(Wqe w, long now) {
        boolean write = w.opcode == Opcode.RDMA_WRITE;
        if ((!write && w.opcode != Opcode.RDMA_READ) || w.length <= 0) {
            return null;
        }
        Responder r = qp.responder;
        PeerDevice peer = r.peer();
        QpFile peerQp = r.peerFile();
        if (peer == null || peerQp == null || peerQp.failed() || peerQp.remoteToken() != qp.token || !peer.alive(now)) {
            return null;
        }
        MemorySegment dev = peer.file;
        long e = Layout.DEV_EXPORTS + ExportTable.slot(w.remoteKey) * Layout.X_SIZE;
        long seq = Layout.getVolatile(dev, e + Layout.X_SEQ);
        if ((seq & 1) != 0 || dev.get(ValueLayout.JAVA_LONG, e + Layout.X_KEY) != w.remoteKey
                || dev.get(ValueLayout.JAVA_INT, e + Layout.X_PD) != peerQp.pd()
                || (dev.get(ValueLayout.JAVA_INT, e + Layout.X_ACCESS)
                & (write ? AccessFlags.REMOTE_WRITE : AccessFlags.REMOTE_READ)) == 0) {
            return null;
        }
        long base = dev.get(ValueLayout.JAVA_LONG, e + Layout.X_BASE);
        long size = dev.get(ValueLayout.JAVA_LONG, e + Layout.X_LENGTH);
        if (!inBounds(w.remoteAddress, w.length, base, size)) {
            return null;
        }
        long at = w.remoteAddress - base;
        long inode = dev.get(ValueLayout.JAVA_LONG, e + Layout.X_INODE);
        long offset = dev.get(ValueLayout.JAVA_LONG, e + Layout.X_OFFSET);
        int fd = dev.get(ValueLayout.JAVA_INT, e + Layout.X_FD);
        Layout.getAndAddInt(dev, e + Layout.X_USES, 1);
        try {
            if (Layout.getVolatile(dev, e + Layout.X_SEQ) != seq) {
                return null; // rewritten or withdrawn meanwhile
            }
            MemorySegment file; // copied into by offsets, not through slices: an op allocates no segment
            try {
                file = file(peer.pid, fd, inode);
            } catch (ShmException ex) {
                return null; // the responder reports it
            }
            long target = offset + at;
            if (!inBounds(target, w.length, 0, file.byteSize())) { // w.length > 0, checked above
                return null; // the export names more than the peer's file holds: the responder reports it
            }
            if (!localAlive(w)) {
                return WcStatus.LOC_PROT_ERR;
            }
            try {
                long done = 0;
                for (int i = 0; i < w.numSge; i++) {
                    ShmRegion region = w.regions[i];
                    long local = w.address[i] - region.address();
                    long len = w.sgeLength[i];
                    if (write) {
                        MemorySegment.copy(region.segment, local, file, target + done, len);
                    } else {
                        MemorySegment.copy(file, target + done, region.segment, local, len);
                    }
                    done += len;
                }
            } catch (IllegalStateException | IndexOutOfBoundsException ex) {
                // local memory freed during the copy (the peer's mapping lives until this device closes)
                return localAlive(w) ? WcStatus.REM_OP_ERR : WcStatus.LOC_PROT_ERR;
            }
            return WcStatus.SUCCESS;
        } finally {
            Layout.getAndAddInt(dev, e + Layout.X_USES, -1);
        }
    }

    /**
     * Whether {@code [address, address + length)} lies inside {@code [base, base + size)}, all
     * unsigned (addresses, and words read from a peer's file) and without overflow; {@code length > 0}.
     */
    static boolean inBounds(long address, long length, long base, long size) {
        return Long.compareUnsigned(address, base) >= 0 && Long.compareUnsigned(length, size) <= 0
                && Long.compareUnsigned(address - base, size - length) <= 0;
    }

    private static boolean localAlive(Wqe w) {
        for (int i = 0; i < w.numSge; i++) {
            if (!w.regions[i].segment.scope().isAlive()) {
                return false;
            }
        }
        return true;
    }

    private MemorySegment file(int pid, int fd, long inode) {
        if (inode != lastInode || pid != lastPid || lastFile == null) {
            lastFile = mappings.map(pid, fd, inode); // mappings live until the device closes
            lastInode = inode;
            lastPid = pid;
        }
        return lastFile;
    }
}
