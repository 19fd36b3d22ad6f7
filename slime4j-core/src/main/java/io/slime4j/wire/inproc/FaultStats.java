package io.slime4j.wire.inproc;

/**
 * A snapshot of an {@link InprocWire}'s packet counters, summed over its ports (closed ones
 * included). Once every copy has been received or dropped, {@code packetsSent + duplicated ==
 * packetsDelivered + dropped + queueFullDrops + unknownDestinationDrops}; copies still queued or
 * held back, or discarded by a closing port, make up the difference until then.
 *
 * @param packetsSent             datagrams accepted by {@code send} (argument checks passed, port open)
 * @param packetsDelivered        copies handed to a receive handler
 * @param dropped                 datagrams dropped by the injector ({@link FaultConfig#dropRate()})
 * @param duplicated              datagrams sent twice by the injector ({@link FaultConfig#duplicateRate()})
 * @param reordered               copies held back by a random extra delay ({@link FaultConfig#reorderRate()})
 * @param delayed                 copies held back by the fixed {@link FaultConfig#delay()}
 * @param queueFullDrops          copies lost because the destination's channel queue was full
 * @param unknownDestinationDrops copies sent to an address with no open port
 */
public record FaultStats(long packetsSent, long packetsDelivered, long dropped, long duplicated, long reordered,
                         long delayed, long queueFullDrops, long unknownDestinationDrops) {

    /** Builds a snapshot from totals indexed by {@link FaultCounters}' constants. */
    static FaultStats of(long[] totals) {
        return new FaultStats(totals[FaultCounters.SENT], totals[FaultCounters.DELIVERED],
                totals[FaultCounters.DROPPED], totals[FaultCounters.DUPLICATED], totals[FaultCounters.REORDERED],
                totals[FaultCounters.DELAYED], totals[FaultCounters.QUEUE_FULL],
                totals[FaultCounters.UNKNOWN_DESTINATION]);
    }
}
