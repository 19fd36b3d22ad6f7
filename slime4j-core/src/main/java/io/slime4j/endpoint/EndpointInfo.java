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
 * <p>64-bit values (addresses, keys, tokens) are JSON integers, exact in this parser and in
 * Python; JavaScript's {@code JSON.parse} would round them.
 *
 * @param name         the endpoint's name
 * @param address      the device address
 * @param messageSlots the endpoint's {@link EndpointConfig#messageSlots()}
 * @param immWindow    the endpoint's {@link EndpointConfig#immWindow()}
 * @param ioQps        the io queue pairs, in index order
 * @param metaQp       the queue pair of rendezvous meta messages and credits
 * @param dataQp       the queue pair of message data
 * @param regions      registered regions by name
 */
public record EndpointInfo(String name, String address, int messageSlots, int immWindow, List<QpInfo> ioQps,
                           QpInfo metaQp, QpInfo dataQp, Map<String, RegionInfo> regions) {
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
        ioQps = List.copyOf(ioQps);
        regions = Collections.unmodifiableMap(new LinkedHashMap<>(regions));
    }

    /** This description as one line of JSON. */
    public String toJson() {
        StringBuilder sb = new StringBuilder(256);
        sb.append("{\"version\":").append(VERSION).append(",\"name\":");
        Json.quote(sb, name).append(",\"address\":");
        Json.quote(sb, address).append(",\"messageSlots\":").append(messageSlots)
                .append(",\"immWindow\":").append(immWindow).append(",\"ioQps\":[");
        for (int i = 0; i < ioQps.size(); i++) {
            qp(i == 0 ? sb : sb.append(','), ioQps.get(i));
        }
        qp(sb.append("],\"metaQp\":"), metaQp);
        qp(sb.append(",\"dataQp\":"), dataQp);
        sb.append(",\"regions\":{");
        boolean first = true;
        for (Map.Entry<String, RegionInfo> e : regions.entrySet()) {
            Json.quote(first ? sb : sb.append(','), e.getKey()).append(':');
            RegionInfo r = e.getValue();
            sb.append("{\"address\":").append(r.address()).append(",\"length\":").append(r.length())
                    .append(",\"remoteKey\":").append(r.remoteKey()).append(",\"access\":").append(r.accessFlags())
                    .append('}');
            first = false;
        }
        return sb.append("}}").toString();
    }

    private static StringBuilder qp(StringBuilder sb, QpInfo q) {
        sb.append("{\"address\":");
        Json.quote(sb, q.address()).append(",\"qpn\":").append(q.qpn()).append(",\"psn\":").append(q.psn())
                .append(",\"token\":").append(q.token());
        return sb.append('}');
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
        long version = number(o, "version");
        if (version != VERSION) {
            throw new IllegalArgumentException("endpoint info version " + version + " is not supported (expected "
                    + VERSION + ")");
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
            regions.put(e.getKey(), new RegionInfo(number(r, "address"), number(r, "length"), number(r, "remoteKey"),
                    integer(r, "access")));
        }
        return new EndpointInfo(string(o, "name"), string(o, "address"), integer(o, "messageSlots"),
                integer(o, "immWindow"), ioQps, qpInfo(o.get("metaQp"), "'metaQp'"),
                qpInfo(o.get("dataQp"), "'dataQp'"), regions);
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
