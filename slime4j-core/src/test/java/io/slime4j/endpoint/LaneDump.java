package io.slime4j.endpoint;

/**
 * One line describing an endpoint's lanes, for a test that failed around lane recovery: each lane's
 * routing state, recovery state and epoch, requests outstanding on its send queue and free credits,
 * requests parked for a lane to come back, re-issues, the peer's imm credits, and ops in flight.
 */
final class LaneDump {
    private LaneDump() {}

    static String of(RdmaEndpoint ep) {
        StringBuilder b = new StringBuilder(ep.toString()).append(": ");
        Router router = ep.router();
        IoSendQueue[] sqs = ep.ioSendQueues();
        for (int lane = 0; lane < router.qps(); lane++) {
            b.append("lane ").append(lane).append(router.isRecovering(lane) ? " recovering" : router.isDead(lane)
                    ? " dead" : " live").append(" qpn ").append(ep.transport().io[lane].qpn()).append(" outstanding ")
                    .append(sqs[lane].outstanding()).append(" credits ").append(sqs[lane].availableCredits()).append("; ");
        }
        return b.append("recovery ").append(ep.laneRecovery().describe()).append("; parked ")
                .append(ep.ioCompletions().parked()).append(" reissued ").append(ep.stats().reissued.sum())
                .append(" peerImmCredits ").append(ep.peerImmCredits()).append(" inFlight ").append(ep.inFlight())
                .append(" protocolErrors ").append(ep.stats().protocolErrors.sum()).toString();
    }
}
