package io.slime4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every device runs every suite: each package under {@code io.slime4j.conformance} that holds a
 * {@link DeviceFixture} holds exactly one concrete subclass of each abstract
 * {@link ConformanceSuite}. A suite added without a subclass for some device, or a device added
 * without one for some suite, fails here instead of silently running less of the contract.
 */
class SuiteCoverageTest {

    @Test
    @Timeout(30)
    void everyDevicePackageRunsEverySuiteExactlyOnce() throws Exception {
        Path root = Path.of(SuiteCoverageTest.class.getResource("").toURI());
        List<Class<?>> suites = classesIn(root, getClass().getPackageName()).stream()
                .filter(c -> ConformanceSuite.class.isAssignableFrom(c) && c != ConformanceSuite.class)
                .filter(c -> Modifier.isAbstract(c.getModifiers()))
                .toList();
        assertThat(suites).as("abstract conformance suites").hasSizeGreaterThanOrEqualTo(8);

        Map<String, List<Class<?>>> devices = new TreeMap<>();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                String pkg = getClass().getPackageName() + "." + dir.getFileName();
                List<Class<?>> classes = classesIn(dir, pkg);
                if (classes.stream().anyMatch(DeviceFixture.class::isAssignableFrom)) {
                    devices.put(pkg, classes);
                }
            }
        }
        assertThat(devices.keySet()).as("device packages").contains(
                "io.slime4j.conformance.inproc", "io.slime4j.conformance.inprocfaults",
                "io.slime4j.conformance.udp", "io.slime4j.conformance.nativeudp", "io.slime4j.conformance.busypoll",
                "io.slime4j.conformance.shm", "io.slime4j.conformance.shmbusypoll");

        devices.forEach((pkg, classes) -> {
            for (Class<?> suite : suites) {
                assertThat(classes.stream()
                        .filter(c -> c.getSuperclass() == suite && !Modifier.isAbstract(c.getModifiers())))
                        .as("subclasses of %s in %s", suite.getSimpleName(), pkg)
                        .hasSize(1);
            }
        });
    }

    /** The top-level classes compiled into {@code dir} (not its subdirectories). */
    private static List<Class<?>> classesIn(Path dir, String pkg) throws IOException, ClassNotFoundException {
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".class") && !name.contains("$") && !name.equals("package-info.class")) {
                    classes.add(Class.forName(pkg + "." + name.substring(0, name.length() - ".class".length()),
                            false, SuiteCoverageTest.class.getClassLoader()));
                }
            }
        }
        return classes;
    }
}
