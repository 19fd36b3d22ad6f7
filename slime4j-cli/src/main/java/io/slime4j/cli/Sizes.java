package io.slime4j.cli;

/** Parses and prints byte sizes with K/M/G suffixes (powers of 1024). */
final class Sizes {
    private Sizes() {}

    /** Parses {@code 4096}, {@code 64K}, {@code 16M} or {@code 1G}. */
    static long parse(String text) {
        String t = text.trim().toUpperCase();
        long unit = 1;
        if (t.endsWith("B")) {
            t = t.substring(0, t.length() - 1);
        }
        if (t.endsWith("K")) {
            unit = 1L << 10;
        } else if (t.endsWith("M")) {
            unit = 1L << 20;
        } else if (t.endsWith("G")) {
            unit = 1L << 30;
        }
        if (unit != 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = Long.parseLong(t);
            if (v < 0 || v > Long.MAX_VALUE / unit) {
                throw new IllegalArgumentException("size out of range: '" + text + "'");
            }
            return v * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size: '" + text + "' (examples: 4096, 64K, 16M)");
        }
    }

    /** Formats with the largest exact suffix. */
    static String format(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }
}
