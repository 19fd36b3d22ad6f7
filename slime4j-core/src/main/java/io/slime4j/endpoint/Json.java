package io.slime4j.endpoint;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON for {@link EndpointInfo} and {@link Bootstrap} frames, through jackson-jr: objects become
 * {@code LinkedHashMap<String, Object>} (key order kept), arrays {@code List<Object>}, integers
 * {@code Long} (exact over all 64 bits; larger ones are refused), other numbers {@code Double},
 * plus {@code String}, {@code Boolean} and {@code null}. Strict: duplicate keys and trailing
 * characters are errors, and every error is an {@link IllegalArgumentException} starting with
 * "malformed JSON".
 */
final class Json {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    private static final JSON JSON_IO = JSON.builder(FACTORY).enable(JSON.Feature.PRESERVE_FIELD_ORDERING)
            .enable(JSON.Feature.FAIL_ON_DUPLICATE_MAP_KEYS).build();

    private Json() {
    }

    /** Parses one JSON value; trailing non-whitespace is an error. */
    static Object parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("JSON text must not be null");
        }
        try (JsonParser p = FACTORY.createParser(text)) {
            if (p.nextToken() == null) {
                throw new IllegalArgumentException("malformed JSON: unexpected end of input (no value)");
            }
            Object v = JSON_IO.anyFrom(p);
            long end = p.currentLocation().getCharOffset();
            boolean trailing;
            try {
                trailing = p.nextToken() != null;
            } catch (StreamReadException e) {
                trailing = true;
            }
            if (trailing) {
                throw new IllegalArgumentException("malformed JSON at offset " + end
                        + ": trailing characters after the value");
            }
            return normalise(v);
        } catch (StreamReadException e) {
            String msg = e.getOriginalMessage();
            if (msg != null && msg.startsWith("Duplicate field")) {
                msg = "duplicate key " + msg.substring("Duplicate field".length()).trim();
            }
            throw new IllegalArgumentException("malformed JSON at offset " + e.getLocation().getCharOffset() + ": "
                    + msg, e);
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed JSON: " + e.getMessage(), e);
        }
    }

    /** Writes a map, list, string, number, boolean or null as compact JSON. */
    static String write(Object value) {
        try {
            return JSON_IO.asString(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write as JSON: " + e.getMessage(), e);
        }
    }

    /** Appends {@code s} as a JSON string literal. */
    static StringBuilder quote(StringBuilder sb, String s) {
        return sb.append(write(s));
    }

    /** Integers as {@code Long} (refusing larger ones), containers copied with their order. */
    private static Object normalise(Object v) {
        return switch (v) {
            case Integer i -> i.longValue();
            case Short s -> s.longValue();
            case BigInteger b -> {
                if (b.bitLength() > 63) {
                    throw new IllegalArgumentException("malformed JSON: integer " + b + " does not fit 64 bits");
                }
                yield b.longValue();
            }
            case Float f -> f.doubleValue();
            case Map<?, ?> m -> {
                Map<String, Object> copy = new LinkedHashMap<>();
                m.forEach((k, x) -> copy.put((String) k, normalise(x)));
                yield copy;
            }
            case List<?> l -> {
                List<Object> copy = new ArrayList<>(l.size());
                l.forEach(x -> copy.add(normalise(x)));
                yield copy;
            }
            case Object[] a -> {
                List<Object> copy = new ArrayList<>(a.length);
                for (Object x : a) {
                    copy.add(normalise(x));
                }
                yield copy;
            }
            case null -> null;
            default -> v;
        };
    }
}
