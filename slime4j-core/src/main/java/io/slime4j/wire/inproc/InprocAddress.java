package io.slime4j.wire.inproc;

import io.slime4j.wire.WireAddress;

/**
 * The address of an in-process port: a name, unique among the ports bound on one
 * {@link InprocWire}. Its text is {@code inproc:NAME}. Equal names are equal addresses.
 *
 * @param name the port's name: not empty, without {@code ':'} or whitespace
 */
public record InprocAddress(String name) implements WireAddress {

    /** The scheme prefix of address texts, {@code "inproc:"}. */
    public static final String PREFIX = InprocWire.NAME + ':';

    /**
     * Validates the name.
     *
     * @throws IllegalArgumentException if the name is empty or contains {@code ':'} or whitespace
     */
    public InprocAddress {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("inproc address name must not be empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == ':' || Character.isWhitespace(c)) {
                throw new IllegalArgumentException("inproc address name must not contain ':' or whitespace, was '"
                        + name + "'");
            }
        }
    }

    /**
     * Parses {@code inproc:NAME} or a bare {@code NAME}.
     *
     * @throws IllegalArgumentException if the text has another scheme or no name
     */
    public static InprocAddress parse(String text) {
        String name = nameOf(text);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("not an inproc address (no name): '" + text + "'");
        }
        return new InprocAddress(name);
    }

    /**
     * The name in {@code inproc:NAME} or {@code NAME}; empty for {@code ""} and {@code "inproc:"}.
     *
     * @throws IllegalArgumentException if the text has another scheme
     */
    static String nameOf(String text) {
        if (text == null) {
            throw new IllegalArgumentException("inproc address text must not be null");
        }
        String name = text.startsWith(PREFIX) ? text.substring(PREFIX.length()) : text;
        if (name.indexOf(':') >= 0) {
            throw new IllegalArgumentException("not an inproc address: '" + text + "' (expected inproc:NAME or NAME)");
        }
        return name;
    }

    /** {@code inproc:} followed by the name. */
    @Override
    public String text() {
        return PREFIX + name;
    }

    /** Same as {@link #text()}. */
    @Override
    public String toString() {
        return text();
    }
}
