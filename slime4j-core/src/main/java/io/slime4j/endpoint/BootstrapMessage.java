package io.slime4j.endpoint;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One {@link Bootstrap} message: an optional {@link EndpointInfo} and string options (run parameters,
 * results, commands; insertion order kept).
 *
 * @param info    the sender's endpoint info, or null
 * @param options string keys and values, never null
 */
public record BootstrapMessage(EndpointInfo info, Map<String, String> options) {
    /** Copies the options; rejects null keys or values. */
    public BootstrapMessage {
        LinkedHashMap<String, String> copy = new LinkedHashMap<>();
        if (options != null) {
            options.forEach((k, v) -> {
                if (k == null || v == null) {
                    throw new IllegalArgumentException("bootstrap options must not hold null keys or values");
                }
                copy.put(k, v);
            });
        }
        options = Collections.unmodifiableMap(copy);
    }

    /** A message with options only. */
    public static BootstrapMessage of(Map<String, String> options) {
        return new BootstrapMessage(null, options);
    }

    /** A message with endpoint info and options. */
    public static BootstrapMessage of(EndpointInfo info, Map<String, String> options) {
        return new BootstrapMessage(info, options);
    }

    /** The option's value, or {@code fallback} if it is absent. */
    public String get(String key, String fallback) {
        return options.getOrDefault(key, fallback);
    }

    /**
     * The option's value.
     *
     * @throws BootstrapException BAD_FRAME if it is absent
     */
    public String require(String key) {
        String v = options.get(key);
        if (v == null) {
            throw new BootstrapException(BootstrapException.Reason.BAD_FRAME, "bootstrap message without '"
                    + key + "': " + options);
        }
        return v;
    }

    byte[] encode() {
        StringBuilder sb = new StringBuilder(512).append('{');
        if (info != null) {
            Json.quote(sb.append("\"info\":"), info.toJson()).append(',');
        }
        sb.append("\"options\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : options.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            Json.quote(sb, e.getKey()).append(':');
            Json.quote(sb, e.getValue());
        }
        return sb.append("}}").toString().getBytes(StandardCharsets.UTF_8);
    }

    static BootstrapMessage decode(byte[] frame) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(frame)).toString();
        } catch (CharacterCodingException e) {
            throw bad("not UTF-8", e);
        }
        Object parsed;
        try {
            parsed = Json.parse(text);
        } catch (IllegalArgumentException e) {
            throw bad("not JSON: " + e.getMessage(), e);
        }
        if (!(parsed instanceof Map<?, ?> o) || !(o.get("options") instanceof Map<?, ?> opts)) {
            throw bad("not a bootstrap message (no 'options' object)", null);
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : opts.entrySet()) {
            if (!(e.getValue() instanceof String v)) {
                throw bad("option '" + e.getKey() + "' is not a string", null);
            }
            options.put((String) e.getKey(), v);
        }
        EndpointInfo info = null;
        Object i = o.get("info");
        if (i != null) {
            if (!(i instanceof String json)) {
                throw bad("'info' is not a string", null);
            }
            try {
                info = EndpointInfo.fromJson(json);
            } catch (IllegalArgumentException e) {
                throw bad(e.getMessage(), e);
            }
        }
        return new BootstrapMessage(info, options);
    }

    private static BootstrapException bad(String what, Throwable cause) {
        return new BootstrapException(BootstrapException.Reason.BAD_FRAME, "bad bootstrap frame: " + what, cause);
    }
}
