package io.slime4j.verbs;

/**
 * Access rights of a {@link MemoryRegion}, combined with {@code |} as in {@code ibv_access_flags}.
 * Local read is always granted. Remote write and remote atomic require {@link #LOCAL_WRITE}.
 */
public final class AccessFlags {
    /** The local device may write the region (receives, read responses, atomic results). */
    public static final int LOCAL_WRITE = 1;
    /** Peers may RDMA-write the region. */
    public static final int REMOTE_WRITE = 1 << 1;
    /** Peers may RDMA-read the region. */
    public static final int REMOTE_READ = 1 << 2;
    /** Peers may run atomics on the region. */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** Every flag. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private AccessFlags() {}

    /** Throws if {@code flags} has unknown bits or remote write/atomic without local write. */
    public static int validate(int flags) {
        if ((flags & ~ALL) != 0) {
            throw new IllegalArgumentException("unknown access flag bits 0x" + Integer.toHexString(flags & ~ALL));
        }
        if ((flags & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (flags & LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE (as in ibverbs)");
        }
        return flags;
    }

    /** Renders flags as {@code LOCAL_WRITE|REMOTE_READ}. */
    public static String toString(int flags) {
        StringBuilder sb = new StringBuilder();
        if ((flags & LOCAL_WRITE) != 0) sb.append("LOCAL_WRITE|");
        if ((flags & REMOTE_WRITE) != 0) sb.append("REMOTE_WRITE|");
        if ((flags & REMOTE_READ) != 0) sb.append("REMOTE_READ|");
        if ((flags & REMOTE_ATOMIC) != 0) sb.append("REMOTE_ATOMIC|");
        return sb.isEmpty() ? "NONE" : sb.substring(0, sb.length() - 1);
    }
}
