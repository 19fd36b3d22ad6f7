package io.slime4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComparePlotTest {
    private static final int SLIME4J_RED = 0xD62728;

    @Test
    void writesAPngWithTheSlime4jSeriesDrawn(@TempDir Path dir) throws Exception {
        CompareOptions o = CompareOptions.parse(new String[0]);
        Results r = new Results(List.of("slime4j", "tcp", "jucx", "memcpy"));
        for (int s : o.bandwidthSizes) {
            r.put("slime4j", "bw." + s, 1000.0 * s / (64 << 10));
            r.put("tcp", "bw." + s, 3000);
            r.put("memcpy", "bw." + s, 20000);
        }
        r.put("slime4j", "rtt.p50", 40);
        r.put("slime4j", "rtt.p99", 400);
        r.put("slime4j", "rtt.p999", 4000);
        r.skip("jucx", "not installed");
        Path file = dir.resolve("compare.png");

        ComparePlot.write(r, o, file);

        BufferedImage img = ImageIO.read(file.toFile());
        assertThat(img).isNotNull();
        assertThat(img.getWidth()).isEqualTo(ComparePlot.WIDTH);
        assertThat(img.getHeight()).isEqualTo(ComparePlot.HEIGHT);
        assertThat(count(img, SLIME4J_RED, 0, ComparePlot.WIDTH / 2)).as("slime4j bandwidth line").isGreaterThan(100);
        assertThat(count(img, SLIME4J_RED, ComparePlot.WIDTH / 2, ComparePlot.WIDTH)).as("slime4j latency bar").isGreaterThan(100);
    }

    @Test
    void anEmptyRunStillGivesAValidImage(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("empty.png");
        ComparePlot.write(new Results(List.of("slime4j")), CompareOptions.parse(new String[0]), file);
        BufferedImage img = ImageIO.read(file.toFile());
        assertThat(img.getWidth()).isEqualTo(ComparePlot.WIDTH);
        assertThat(count(img, SLIME4J_RED, 0, ComparePlot.WIDTH)).isZero();
    }

    private static int count(BufferedImage img, int rgb, int fromX, int toX) {
        int n = 0;
        for (int x = fromX; x < toX; x++) {
            for (int y = 0; y < img.getHeight(); y++) {
                if ((img.getRGB(x, y) & 0xFFFFFF) == rgb) {
                    n++;
                }
            }
        }
        return n;
    }
}
