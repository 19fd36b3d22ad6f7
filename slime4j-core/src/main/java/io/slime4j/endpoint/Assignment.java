package io.slime4j.endpoint;

/**
 * One piece of a one-sided batch: {@code length} bytes between a local region and a remote region,
 * both named, each at an offset. A write copies local → remote, a read remote → local.
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

    /** An assignment between two regions at the same offset. */
    public static Assignment of(String localRegion, String remoteRegion, long offset, long length) {
        return new Assignment(localRegion, offset, remoteRegion, offset, length);
    }
}
