package io.slime4j.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Draws a {@link Results} run as a PNG with headless Java2D: on the left one-sided write bandwidth
 * against transfer size (log-log, one line per system, memcpy as the ceiling), on the right the
 * round-trip latency percentiles per system (bars, log scale). Skipped systems are named in the
 * legend as skipped.
 */
final class ComparePlot {
    static final int WIDTH = 1200;
    static final int HEIGHT = 520;
    private static final Color[] PALETTE = {
        new Color(0xD62728), new Color(0xFF7F0E), new Color(0x1F77B4), new Color(0x2CA02C),
        new Color(0x9467BD), new Color(0x8C564B), new Color(0x7F7F7F)};

    private ComparePlot() {}

    static void write(Results r, CompareOptions o, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            bandwidth(g, r, o, new Box(70, 40, 480, 400));
            latency(g, r, new Box(680, 40, 480, 400));
        } finally {
            g.dispose();
        }
        if (!ImageIO.write(img, "png", file.toFile())) {
            throw new IOException("no PNG writer for " + file);
        }
    }

    /** A plot area in pixels. */
    private record Box(int x, int y, int w, int h) {}

    private static Color color(List<String> columns, String column) {
        return PALETTE[Math.max(0, columns.indexOf(column)) % PALETTE.length];
    }

    private static void bandwidth(Graphics2D g, Results r, CompareOptions o, Box b) {
        title(g, b, "One-sided write bandwidth (MB/s) vs size");
        int[] sizes = o.bandwidthSizes.clone();
        java.util.Arrays.sort(sizes);
        List<String> cols = r.columns();
        List<double[]> series = new ArrayList<>();
        List<String> names = new ArrayList<>();
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (String c : cols) {
            double[] ys = new double[sizes.length];
            boolean any = false;
            for (int i = 0; i < sizes.length; i++) {
                Double v = r.get(c, "bw." + sizes[i]);
                ys[i] = v == null ? Double.NaN : v;
                if (v != null && v > 0) {
                    any = true;
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
            if (any) {
                series.add(ys);
                names.add(c);
            }
        }
        if (series.isEmpty() || sizes.length == 0) {
            empty(g, b);
            return;
        }
        double ylo = Math.pow(10, Math.floor(Math.log10(lo)));
        double yhi = Math.pow(10, Math.ceil(Math.log10(hi * 1.01)));
        double xlo = Math.log(sizes[0]);
        double xhi = Math.log(sizes[sizes.length - 1]);
        logAxis(g, b, ylo, yhi);
        g.setColor(Color.DARK_GRAY);
        for (int s : sizes) {
            int x = xhi > xlo ? b.x() + (int) ((Math.log(s) - xlo) / (xhi - xlo) * b.w()) : b.x() + b.w() / 2;
            g.drawString(Options.format(s), x - 18, b.y() + b.h() + 18);
        }
        g.drawString("size of one write (log scale)", b.x() + b.w() / 2 - 80, b.y() + b.h() + 40);
        for (int k = 0; k < series.size(); k++) {
            double[] ys = series.get(k);
            g.setColor(color(cols, names.get(k)));
            g.setStroke(new BasicStroke(names.get(k).equals("slime4j") ? 3f : 2f));
            int px = -1;
            int py = -1;
            for (int i = 0; i < sizes.length; i++) {
                if (Double.isNaN(ys[i]) || ys[i] <= 0) {
                    px = -1;
                    continue;
                }
                int x = xhi > xlo ? b.x() + (int) ((Math.log(sizes[i]) - xlo) / (xhi - xlo) * b.w()) : b.x() + b.w() / 2;
                int y = yPixel(b, ys[i], ylo, yhi);
                g.fillOval(x - 4, y - 4, 8, 8);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                px = x;
                py = y;
            }
        }
        legend(g, r, b, names);
    }

    private static void latency(Graphics2D g, Results r, Box b) {
        title(g, b, "64 B round trip (µs, log scale): p50 | p99 | p99.9 bars");
        String[] keys = {"rtt.p50", "rtt.p99", "rtt.p999"};
        List<String> cols = r.columns();
        List<String> names = new ArrayList<>();
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (String c : cols) {
            Double v = r.get(c, keys[0]);
            if (v != null && v > 0) {
                names.add(c);
                for (String k : keys) {
                    Double x = r.get(c, k);
                    if (x != null && x > 0) {
                        lo = Math.min(lo, x);
                        hi = Math.max(hi, x);
                    }
                }
            }
        }
        if (names.isEmpty()) {
            empty(g, b);
            return;
        }
        double ylo = Math.pow(10, Math.floor(Math.log10(lo)));
        double yhi = Math.pow(10, Math.ceil(Math.log10(hi * 1.01)));
        logAxis(g, b, ylo, yhi);
        int group = b.w() / names.size();
        int bar = Math.max(4, (group - 16) / keys.length);
        for (int i = 0; i < names.size(); i++) {
            Color c = color(cols, names.get(i));
            for (int k = 0; k < keys.length; k++) {
                Double v = r.get(names.get(i), keys[k]);
                if (v == null || v <= 0) {
                    continue;
                }
                int x = b.x() + i * group + 8 + k * bar;
                int y = yPixel(b, v, ylo, yhi);
                g.setColor(new Color(c.getRed(), c.getGreen(), c.getBlue(), 255 - k * 70));
                g.fillRect(x, y, bar - 2, b.y() + b.h() - y);
            }
            g.setColor(Color.DARK_GRAY);
            g.drawString(Results.columnTitle(names.get(i)), b.x() + i * group + 8, b.y() + b.h() + 18);
        }
        legend(g, r, b, List.of());
    }

    private static int yPixel(Box b, double v, double lo, double hi) {
        double f = (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
        return b.y() + b.h() - (int) (f * b.h());
    }

    private static void logAxis(Graphics2D g, Box b, double lo, double hi) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (double v = lo; v <= hi * 1.0001; v *= 10) {
            int y = yPixel(b, v, lo, hi);
            g.setColor(new Color(0xDDDDDD));
            g.drawLine(b.x(), y, b.x() + b.w(), y);
            g.setColor(Color.DARK_GRAY);
            String label = v >= 1 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2g", v);
            g.drawString(label, b.x() - 8 - g.getFontMetrics().stringWidth(label), y + 4);
        }
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1f));
        g.drawRect(b.x(), b.y(), b.w(), b.h());
    }

    private static void title(Graphics2D g, Box b, String text) {
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(text, b.x(), b.y() - 12);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    }

    private static void empty(Graphics2D g, Box b) {
        g.setColor(Color.GRAY);
        g.drawRect(b.x(), b.y(), b.w(), b.h());
        g.drawString("no figures in this run", b.x() + b.w() / 2 - 60, b.y() + b.h() / 2);
    }

    /** Names of the plotted series, then every skipped system with "skipped". */
    private static void legend(Graphics2D g, Results r, Box b, List<String> names) {
        int y = b.y() + 16;
        List<String> cols = r.columns();
        List<String> entries = new ArrayList<>(names);
        for (String c : cols) {
            if (r.skipReason(Results.system(c)) != null && !entries.contains(c) && !c.contains("@")) {
                entries.add(c);
            }
        }
        for (String c : entries) {
            boolean skipped = !names.contains(c);
            g.setColor(skipped ? Color.GRAY : color(cols, c));
            g.fillRect(b.x() + b.w() - 150, y - 9, 10, 10);
            g.setColor(Color.DARK_GRAY);
            g.drawString(Results.columnTitle(c) + (skipped ? " (skipped)" : ""), b.x() + b.w() - 135, y);
            y += 16;
        }
    }
}
