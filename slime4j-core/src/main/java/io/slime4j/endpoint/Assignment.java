package io.slime4j.endpoint;

/**
 * One piece of a one-sided batch: {@code length} bytes between a local region and a remote region,
 * both named, each at an offset. A write copies local → remote, a read remote → local.
 *
 * <p>Build it with named steps, so that no offset can be taken for a length:
 * <pre>{@code
 * Assignment a = Assignment.local("kv", 0).remote("kv", 8192).length(4096);
 * }</pre>
 * The canonical constructor takes the components in the record's order
 * {@code (localRegion, localOffset, remoteRegion, remoteOffset, length)}.
 *
 * @param localRegion  name of a region registered on this endpoint
 * @param localOffset  offset into it
 * @param remoteRegion name of a region the peer registered (as in its {@link EndpointInfo})
 * @param remoteOffset offset into it
 * @param length       bytes; 0 is allowed and moves nothing
 */
public record Assignment(String localRegion, long localOffset, String remoteRegion, long remoteOffset, long length) {
    /** Checks the names and the signs; bounds are checked against the regions at the call. */
    public Assignment {
        if (localRegion == null || remoteRegion == null) {
            throw new IllegalArgumentException("assignment needs a local and a remote region name");
        }
        if (localOffset < 0 || remoteOffset < 0 || length < 0) {
            throw new IllegalArgumentException("assignment offsets and length must not be negative: local "
                    + localOffset + ", remote " + remoteOffset + ", length " + length);
        }
    }

    /** The first step: the local end, a region of this endpoint and an offset into it. */
    public static LocalEnd local(String region, long offset) {
        return new LocalEnd(region, offset);
    }

    /**
     * The local end of an assignment being built; {@link #remote} names the other end.
     *
     * @param region name of a region registered on this endpoint
     * @param offset offset into it
     */
    public record LocalEnd(String region, long offset) {
        /** The second step: the remote end, a region of the peer and an offset into it. */
        public BothEnds remote(String region, long offset) {
            return new BothEnds(this.region, this.offset, region, offset);
        }
    }

    /**
     * Both ends of an assignment being built; {@link #length} completes it.
     *
     * @param localRegion  name of a region registered on this endpoint
     * @param localOffset  offset into it
     * @param remoteRegion name of a region of the peer
     * @param remoteOffset offset into it
     */
    public record BothEnds(String localRegion, long localOffset, String remoteRegion, long remoteOffset) {
        /** The last step: how many bytes; validates and returns the assignment. */
        public Assignment length(long length) {
            return new Assignment(localRegion, localOffset, remoteRegion, remoteOffset, length);
        }
    }
}
