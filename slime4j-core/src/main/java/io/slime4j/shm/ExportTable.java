package io.slime4j.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The owner's side of the export table in its device file: the registrations of its regions that
 * lie in {@link SharedMemory}, so that a peer's requester can check an RDMA WRITE or READ against
 * them and copy itself ({@link DirectCopy}) instead of handing the request to this device's
 * responder. An entry holds what the responder would check (key, protection domain, access,
 * bounds) and where the memory is (memfd inode, descriptor and offset); it is written under a
 * sequence word (odd while it changes, as a seqlock: a store-store fence after the odd store keeps
 * the entry's stores behind it, the final even store is volatile), and peers count the copies
 * they run in it in a word of its own. A region's slot is its key's low bits; when that slot is taken the region
 * is simply not exported and its requests go through the ring as before.
 *
 * <p>Withdrawal ({@link #revoke}) bumps the sequence before it returns and the caller then waits
 * for the count of copies to fall to zero: a peer raises the count before it re-reads the
 * sequence (both volatile, a Dekker pair), so either it sees the change and backs off, or the
 * owner sees its copy and waits for it.
 */
final class ExportTable {
    private final MemorySegment file;
    private final ShmRegion[] owners = new ShmRegion[Layout.EXPORTS];
    /** The device file is about to be unmapped: nothing is exported, withdrawn or read any more. */
    private boolean closed;

    ExportTable(MemorySegment deviceFile) {
        this.file = deviceFile;
    }

    private static long entry(int slot) {
        return Layout.DEV_EXPORTS + slot * Layout.X_SIZE;
    }

    /** The slot of a region's key in any export table. */
    static int slot(long key) {
        return (int) (key & (Layout.EXPORTS - 1));
    }

    /** Exports {@code r} if it lies in shared memory and its slot is free; its slot, or -1. */
    synchronized int export(ShmRegion r) {
        SharedMemory.Allocation a = r.shared;
        if (a == null) {
            return -1;
        }
        int slot = slot(r.key);
        if (closed || owners[slot] != null) {
            return -1;
        }
        owners[slot] = r;
        long e = entry(slot);
        long seq = Layout.getVolatile(file, e + Layout.X_SEQ);
        Layout.setVolatile(file, e + Layout.X_SEQ, seq + 1);
        VarHandle.storeStoreFence(); // the entry's stores after the odd sequence (a volatile store orders those before)
        file.set(ValueLayout.JAVA_LONG, e + Layout.X_KEY, r.key);
        file.set(ValueLayout.JAVA_INT, e + Layout.X_PD, r.pd.id);
        file.set(ValueLayout.JAVA_INT, e + Layout.X_ACCESS, r.access);
        file.set(ValueLayout.JAVA_LONG, e + Layout.X_BASE, r.address());
        file.set(ValueLayout.JAVA_LONG, e + Layout.X_LENGTH, r.length());
        file.set(ValueLayout.JAVA_LONG, e + Layout.X_INODE, a.inode());
        file.set(ValueLayout.JAVA_LONG, e + Layout.X_OFFSET, r.address() - a.address());
        file.set(ValueLayout.JAVA_INT, e + Layout.X_FD, a.fd());
        Layout.setVolatile(file, e + Layout.X_SEQ, seq + 2);
        return slot;
    }

    /** Withdraws {@code r}'s export: no peer starts a copy in it afterwards; wait for {@link #copies} then. */
    synchronized void revoke(ShmRegion r, int slot) {
        if (closed || owners[slot] != r) {
            return;
        }
        withdraw(slot);
    }

    private void withdraw(int slot) {
        long e = entry(slot);
        long seq = Layout.getVolatile(file, e + Layout.X_SEQ);
        Layout.setVolatile(file, e + Layout.X_SEQ, seq + 1);
        VarHandle.storeStoreFence(); // the key's store after the odd sequence
        file.set(ValueLayout.JAVA_LONG, e + Layout.X_KEY, 0);
        Layout.setVolatile(file, e + Layout.X_SEQ, seq + 2);
        owners[slot] = null;
    }

    /**
     * Copies peers run now in slot {@code slot}; 0 once the table is closed ({@link #close}: the
     * device waited for all of them before it unmapped the file).
     */
    synchronized int copies(int slot) {
        return closed ? 0 : Layout.getIntVolatile(file, entry(slot) + Layout.X_USES);
    }

    /**
     * The device closes: withdraws every export (as {@link #revoke} does), so that no peer starts a
     * copy afterwards, and exports or withdraws nothing more (regions deregistered later find
     * nothing to withdraw). The caller then waits for {@link #copiesRunning} to fall to zero before
     * it unmaps the file: a peer that passed its check of the device's closed flag just before it
     * was set may still raise a count, and it sees the withdrawal or the caller sees its copy.
     */
    synchronized void close() {
        if (closed) {
            return;
        }
        for (int slot = 0; slot < Layout.EXPORTS; slot++) {
            if (owners[slot] != null) {
                withdraw(slot);
            }
        }
        closed = true;
    }

    /** Copies peers run now anywhere in the table (the file still mapped: before the device unmaps it). */
    int copiesRunning() {
        int n = 0;
        for (int slot = 0; slot < Layout.EXPORTS; slot++) {
            n += Layout.getIntVolatile(file, entry(slot) + Layout.X_USES);
        }
        return n;
    }
}
