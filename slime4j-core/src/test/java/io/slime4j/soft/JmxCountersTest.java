package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class JmxCountersTest {

    @Test
    void deviceAndQueuePairCountersAreReadableOverJmxUntilClosed() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName deviceName = new ObjectName("io.slime4j:type=SoftDevice,name=\"jmx-test\"");
        ObjectName qpName;
        try (InprocWire wire = new InprocWire();
             SoftDevice device = SoftDevice.open(wire, "", SoftConfig.builder().name("jmx-test").build())) {
            CompletionQueue cq = device.createCompletionQueue(16);
            QueuePair qp = device.createQueuePair(device.allocateProtectionDomain(), QpConfig.defaults(), cq, cq);
            qpName = new ObjectName("io.slime4j:type=QueuePair,device=\"jmx-test\",qpn=" + qp.qpn());
            assertThat(server.isRegistered(deviceName)).isTrue();
            assertThat(server.isRegistered(qpName)).isTrue();
            assertThat(server.getAttribute(deviceName, Counter.PACKETS_SENT.name())).isEqualTo(0L);
            assertThat(server.getMBeanInfo(qpName).getAttributes()).hasSize(Counter.values().length + SoftCounter.values().length);
        }
        assertThat(server.isRegistered(deviceName)).isFalse();
        assertThat(server.isRegistered(qpName)).isFalse();
    }
}
