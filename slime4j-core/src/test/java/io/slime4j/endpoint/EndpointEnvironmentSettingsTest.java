package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link EndpointConfig#environmentSettings()} lists exactly what fromEnvironment reads, by property and variable. */
class EndpointEnvironmentSettingsTest {
    @Test
    void everyListedSettingIsReadFromItsPropertyAndItsVariableAndNamesARecordComponent() throws Exception {
        Map<String, String> settings = EndpointConfig.environmentSettings();
        assertThat(settings).containsEntry("slime4j.endpoint.ioSlots", "SLIME4J_ENDPOINT_IO_SLOTS").hasSize(16);
        EndpointConfig defaults = EndpointConfig.defaults();
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String component = e.getKey().substring(e.getKey().lastIndexOf('.') + 1);
            RecordComponent rc = java.util.Arrays.stream(EndpointConfig.class.getRecordComponents())
                    .filter(c -> c.getName().equals(component)).findFirst().orElseThrow();
            boolean selector = component.equals("selector"); // a factory, named in the environment
            Object other = selector ? QpSelector.factory("round-robin") : other(rc.getAccessor().invoke(defaults));
            String text = selector ? "round-robin" : other.toString();
            EndpointConfig byProperty = EndpointConfig.builder()
                    .apply(k -> k.equals(e.getKey()) ? text : null, Map.of()).build();
            EndpointConfig byVariable = EndpointConfig.builder().apply(k -> null, Map.of(e.getValue(), text)).build();
            assertThat(rc.getAccessor().invoke(byProperty)).as(e.getKey()).isEqualTo(other);
            assertThat(rc.getAccessor().invoke(byVariable)).as(e.getValue()).isEqualTo(other);
        }
    }

    private static Object other(Object value) {
        return switch (value) {
            case Integer i -> i <= 1 ? i + 1 : i - 1; // 0: the device's choice (maxRequestBytes)
            case Duration d -> d.isZero() ? Duration.ofSeconds(4) : d.plusMillis(1); // zero: an opt-in that is off
            case String s -> s + "x";
            default -> throw new AssertionError("unexpected setting type " + value);
        };
    }
}
