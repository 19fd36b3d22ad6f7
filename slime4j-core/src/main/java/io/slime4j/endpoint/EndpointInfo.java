package io.slime4j.endpoint;

import io.slime4j.verbs.QpInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a peer needs to connect to an {@link RdmaEndpoint} and address its memory: the device
 * address, the {@link QpInfo} of each queue pair, the sizes of the receive windows the peer must
 * respect, and the registered regions by name. A plain value; {@link #toJson()} and
 * {@link #fromJson(String)} exchange it as JSON out of band.
 *
 * <pre>{@code
 * {"version":1,"name":"a","address":"inproc:a","messageSlots":64,"immWindow":256,
 *  "ioQps":[{"address":"inproc:a","qpn":1,"psn":7,"token":-3}],
 *  "metaQp":{...},"dataQp":{...},
 *  "regions":{"kv":{"address":139...,"length":1048576,"remoteKey":77...,"access":15}}}
 * }</pre>
 *
 * <p>A multi-rail endpoint adds {@code "rails":["udp:10.0.0.1:7000","udp:10.0.1.1:7000"]} and, per
 * region, {@code "railKeys":[...]} (the remote keys on rails 1..n-1). An endpoint with eager messages
 * adds {@code "eagerThreshold":8192}.
 *
 * <p>64-bit values (addresses, keys, tokens) are JSON integers, exact here (read and written by
 * jackson-jr) and in Python; JavaScript's {@code JSON.parse} would round them. JSON without a
 * {@code "version"} or of another version is refused with a message saying so.
 *
 * @param name         the endpoint's name
 * @param address      the device address
 * @param messageSlots the endpoint's {@link EndpointConfig#messageSlots()}
 * @param immWindow    the endpoint's {@link EndpointConfig#immWindow()}
 * @param ioQps        the io queue pairs, in index order
 * @param metaQp       the queue pair of rendezvous meta messages and credits
 * @param dataQp       the queue pair of message data
 * @param regions      registered regions by name
 * @param rails        the device address of each rail, rail 0 first (it is {@code address}); io
 *                     queue pair {@code i} lives on rail {@code i % rails.size()}, the message queue
 *                     pairs on rail 0. JSON written before rails existed has none: one rail
 * @param eagerThreshold the endpoint's {@link EndpointConfig#eagerThreshold()} ({@code "eagerThreshold"},
 *                     absent when 0): the two sides use the smaller value, so both agree which
 *                     messages are eager
 */
public record EndpointInfo(String name, String address, int messageSlots, int immWindow, List<QpInfo> ioQps,
                           QpInfo metaQp, QpInfo dataQp, Map<String, RegionInfo> regions, List<String> rails,
                           int eagerThreshold) {
    /** The format version written and accepted. */
    public static final int VERSION = 1;

    /** Validates and freezes the collections. */
    public EndpointInfo {
        if (name == null || address == null || ioQps == null || metaQp == null || dataQp == null || regions == null) {
            throw new IllegalArgumentException("endpoint info needs name, address, ioQps, metaQp, dataQp and regions");
        }
        if (ioQps.isEmpty()) {
            throw new IllegalArgumentException("endpoint info has no io queue pairs");
        }
        if (messageSlots < 1 || immWindow < 1) {
            throw new IllegalArgumentException("endpoint info needs positive messageSlots and immWindow, was "
                    + messageSlots + " and " + immWindow);
        }
        if (eagerThreshold < 0 || eagerThreshold > EndpointConfig.MAX_EAGER_THRESHOLD) {
            throw new IllegalArgumentException("endpoint info: eagerThreshold must be in 0.."
                    + EndpointConfig.MAX_EAGER_THRESHOLD + ", was " + eagerThreshold);
        }
        ioQps = List.copyOf(ioQps);
        regions = Collections.unmodifiableMap(new LinkedHashMap<>(regions));
        rails = rails == null || rails.isEmpty() ? List.of(address) : List.copyOf(rails);
        if (!rails.getFirst().equals(address)) {
            throw new IllegalArgumentException("endpoint info: rail 0 (" + rails.getFirst() + ") must be the address "
                    + address);
        }
        for (RegionInfo r : regions.values()) {
            if (r.railKeys().size() != rails.size() - 1) {
                throw new IllegalArgumentException("endpoint info: a region has keys for " + (r.railKeys().size() + 1)
                        + " rails, the endpoint has " + rails.size());
            }
        }
    }

    /** An endpoint without eager messages ({@code eagerThreshold} 0). */
    public EndpointInfo(String name, String address, int messageSlots, int immWindow, List<QpInfo> ioQps,
                        QpInfo metaQp, QpInfo dataQp, Map<String, RegionInfo> regions, List<String> rails) {
        this(name, address, messageSlots, immWindow, ioQps, metaQp, dataQp, regions, rails, 0);
    }

    /** A one-rail endpoint. */
    public EndpointInfo(String name, String address, int messageSlots, int immWindow, List<QpInfo> ioQps,
                        QpInfo metaQp, QpInfo dataQp, Map<String, RegionInfo> regions) {
        this(name, address, messageSlots, immWindow, ioQps, metaQp, dataQp, regions, List.of(address));
    }

    /** This description as one line of JSON (written by jackson-jr; key order as documented above). */
    public String toJson() {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("version", VERSION);
        o.put("name", name);
        o.put("address", address);
        o.put("messageSlots", messageSlots);
        o.put("immWindow", immWindow);
        o.put("ioQps", ioQps.stream().map(EndpointInfo::qp).toList());
        o.put("metaQp", qp(metaQp));
        o.put("dataQp", qp(dataQp));
        Map<String, Object> rs = new LinkedHashMap<>();
        for (Map.Entry<String, RegionInfo> e : regions.entrySet()) {
            RegionInfo r = e.getValue();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("address", r.address());
            m.put("length", r.length());
            m.put("remoteKey", r.remoteKey());
            m.put("access", r.accessFlags());
            if (!r.railKeys().isEmpty()) {
                m.put("railKeys", r.railKeys());
            }
            rs.put(e.getKey(), m);
        }
        o.put("regions", rs);
        if (rails.size() > 1) {
            o.put("rails", rails);
        }
        if (eagerThreshold > 0) {
            o.put("eagerThreshold", eagerThreshold);
        }
        return Json.write(o);
    }

    private static Map<String, Object> qp(QpInfo q) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("address", q.address());
        m.put("qpn", q.qpn());
        m.put("psn", q.psn());
        m.put("token", q.token());
        return m;
    }

    /**
     * Parses what {@link #toJson()} wrote (whitespace and key order are free; unknown keys are
     * ignored so newer peers may add some).
     *
     * @throws IllegalArgumentException on malformed JSON, a missing or mistyped field, or another
     *                                  format version
     */
    public static EndpointInfo fromJson(String json) {
        Map<String, Object> o = object(Json.parse(json), "endpoint info");
        if (!o.containsKey("version")) {
            throw new IllegalArgumentException("endpoint info without a 'version': an old or foreign format, not read"
                    + " (this slime4j reads version " + VERSION + "; run the same slime4j on both sides)");
        }
        long version = number(o, "version");
        if (version != VERSION) {
            throw new IllegalArgumentException("endpoint info version " + version + " is not supported (expected "
                    + VERSION + "; run the same slime4j on both sides)");
        }
        List<QpInfo> ioQps = new ArrayList<>();
        Object qps = o.get("ioQps");
        if (!(qps instanceof List<?> list)) {
            throw new IllegalArgumentException("endpoint info: 'ioQps' must be an array");
        }
        for (Object q : list) {
            ioQps.add(qpInfo(q, "ioQps entry"));
        }
        Map<String, RegionInfo> regions = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : object(o.get("regions"), "'regions'").entrySet()) {
            Map<String, Object> r = object(e.getValue(), "region '" + e.getKey() + "'");
            List<Long> railKeys = new ArrayList<>();
            if (r.containsKey("railKeys")) {
                if (!(r.get("railKeys") instanceof List<?> keys)) {
                    throw new IllegalArgumentException("endpoint info: 'railKeys' of region '" + e.getKey()
                            + "' must be an array");
                }
                for (Object k : keys) {
                    if (!(k instanceof Long l)) {
                        throw new IllegalArgumentException("endpoint info: a rail key must be an integer, was " + k);
                    }
                    railKeys.add(l);
                }
            }
            regions.put(e.getKey(), new RegionInfo(number(r, "address"), number(r, "length"), number(r, "remoteKey"),
                    integer(r, "access"), railKeys));
        }
        List<String> rails = new ArrayList<>();
        if (o.containsKey("rails")) {
            if (!(o.get("rails") instanceof List<?> list2)) {
                throw new IllegalArgumentException("endpoint info: 'rails' must be an array");
            }
            for (Object a : list2) {
                if (!(a instanceof String str)) {
                    throw new IllegalArgumentException("endpoint info: a rail address must be a string, was " + a);
                }
                rails.add(str);
            }
        }
        return new EndpointInfo(string(o, "name"), string(o, "address"), integer(o, "messageSlots"),
                integer(o, "immWindow"), ioQps, qpInfo(o.get("metaQp"), "'metaQp'"),
                qpInfo(o.get("dataQp"), "'dataQp'"), regions, rails,
                o.containsKey("eagerThreshold") ? integer(o, "eagerThreshold") : 0);
    }

    private static QpInfo qpInfo(Object v, String what) {
        Map<String, Object> q = object(v, what);
        return new QpInfo(string(q, "address"), integer(q, "qpn"), integer(q, "psn"), number(q, "token"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object v, String what) {
        if (!(v instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("endpoint info: " + what + " must be a JSON object");
        }
        return (Map<String, Object>) v;
    }

    private static long number(Map<String, Object> o, String key) {
        if (!(o.get(key) instanceof Long l)) {
            throw new IllegalArgumentException("endpoint info: '" + key + "' must be an integer, was " + o.get(key));
        }
        return l;
    }

    private static int integer(Map<String, Object> o, String key) {
        long v = number(o, key);
        if (v != (int) v) {
            throw new IllegalArgumentException("endpoint info: '" + key + "' must fit 32 bits, was " + v);
        }
        return (int) v;
    }

    private static String string(Map<String, Object> o, String key) {
        if (!(o.get(key) instanceof String s)) {
            throw new IllegalArgumentException("endpoint info: '" + key + "' must be a string, was " + o.get(key));
        }
        return s;
    }
}
