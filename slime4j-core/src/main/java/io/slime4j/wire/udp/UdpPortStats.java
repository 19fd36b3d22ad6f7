package io.slime4j.wire.udp;

/**
 * A snapshot of a {@link UdpPort}'s counters (both channels). Datagrams the kernel dropped (a full
 * receive buffer, a lost packet) are not seen by the port and show only in the engine's
 * retransmission counters and in {@code /proc/net/snmp} ({@code RcvbufErrors}).
 *
 * @param datagramsSent             datagrams the kernel accepted
 * @param bytesSent                 bytes of those datagrams
 * @param sendBufferFull            sends refused because the socket's send buffer was full
 *                                  ({@code send} returned false)
 * @param sendErrors                sends that failed with an I/O error (also returned false)
 * @param datagramsReceived         datagrams handed to a handler, both channels
 * @param priorityDatagramsReceived of those, datagrams that arrived on the priority channel
 * @param bytesReceived             bytes of the datagrams handed over
 * @param oversizeDrops             received datagrams dropped for exceeding
 *                                  {@link UdpConfig#maxDatagramSize()}
 * @param receiveErrors             receives that failed with an I/O error, or whose placement the
 *                                  handler asked for outside live memory
 * @param placedDatagramsReceived   of the datagrams handed over, those received split, their payload
 *                                  straight to where the handler placed it (native backend only)
 * @param predictedDatagramsReceived of the placed ones, those received at the place the handler
 *                                  predicted, without peeking at the header first
 * @param gsoSends                  {@code sendmsg} calls that sent several datagrams with UDP GSO
 *                                  (each datagram also counts in {@code datagramsSent})
 * @param coalescedDatagramsReceived of the datagrams handed over, those that arrived coalesced by
 *                                  UDP GRO with others, split again by the port
 * @param groReceives               receives that brought several datagrams coalesced
 * @param gsoBatches                {@code sendmmsg} calls that sent several held GSO runs at once
 *                                  (each run also counts in {@code gsoSends} if it is several datagrams)
 * @param discardedDatagrams        received datagrams dropped unread because the handler had no use
 *                                  for them (duplicates of data it holds; native backend only); they
 *                                  count in neither {@code datagramsReceived} nor {@code bytesReceived}
 */
public record UdpPortStats(long datagramsSent, long bytesSent, long sendBufferFull, long sendErrors,
                           long datagramsReceived, long priorityDatagramsReceived, long bytesReceived,
                           long oversizeDrops, long receiveErrors, long placedDatagramsReceived,
                           long predictedDatagramsReceived, long gsoSends, long coalescedDatagramsReceived,
                           long groReceives, long gsoBatches, long discardedDatagrams) {

    /** The stats held in an array indexed as {@link UdpCounters}. */
    static UdpPortStats of(long[] v) {
        return new UdpPortStats(v[UdpCounters.DATAGRAMS_SENT], v[UdpCounters.BYTES_SENT],
                v[UdpCounters.SEND_BUFFER_FULL], v[UdpCounters.SEND_ERRORS], v[UdpCounters.DATAGRAMS_RECEIVED],
                v[UdpCounters.PRIORITY_RECEIVED], v[UdpCounters.BYTES_RECEIVED], v[UdpCounters.OVERSIZE_DROPS],
                v[UdpCounters.RECEIVE_ERRORS], v[UdpCounters.PLACED_RECEIVED],
                v[UdpCounters.PREDICTED_RECEIVED], v[UdpCounters.GSO_SENDS], v[UdpCounters.COALESCED_RECEIVED],
                v[UdpCounters.GRO_RECEIVES], v[UdpCounters.GSO_BATCHES], v[UdpCounters.DISCARDED]);
    }
}
