package io.slime4j.verbs;

import java.util.Objects;

/**
 * What a peer needs to connect to a queue pair: the device address, the queue pair number, the
 * first packet sequence number the queue pair will send, and the token that every packet sent to
 * it must carry (packets with another token are dropped and counted). A plain value meant to be
 * exchanged out of band (JSON, a TCP side channel).
 *
 * @param address device address, as {@link VerbsDevice#address()}
 * @param qpn     queue pair number on that device
 * @param psn     first packet sequence number this queue pair sends
 * @param token   token every packet addressed to this queue pair carries
 */
public record QpInfo(String address, int qpn, int psn, long token) {
    public QpInfo {
        Objects.requireNonNull(address, "address");
        if (qpn <= 0) {
            throw new IllegalArgumentException("qpn must be positive, was " + qpn);
        }
    }
}
