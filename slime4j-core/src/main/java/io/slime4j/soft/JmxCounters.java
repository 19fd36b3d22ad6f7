package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Exposes a device's or queue pair's counters as a read-only JMX bean, one attribute per
 * {@link Counter} and per {@link SoftCounter} (named as the enum constant, described by its label). Registered under
 * {@code io.slime4j:type=SoftDevice,name=DEVICE} or
 * {@code io.slime4j:type=QueuePair,device=DEVICE,qpn=N}.
 */
final class JmxCounters implements DynamicMBean {
    private static final Logger LOG = LoggerFactory.getLogger(JmxCounters.class);
    private static final Counter[] COUNTERS = Counter.values();
    private static final SoftCounter[] SOFT_COUNTERS = SoftCounter.values();
    private static final MBeanInfo INFO;

    static {
        MBeanAttributeInfo[] attributes = new MBeanAttributeInfo[COUNTERS.length + SOFT_COUNTERS.length];
        for (int i = 0; i < COUNTERS.length; i++) {
            attributes[i] = new MBeanAttributeInfo(COUNTERS[i].name(), "long", COUNTERS[i].label(),
                    true, false, false);
        }
        for (int i = 0; i < SOFT_COUNTERS.length; i++) {
            attributes[COUNTERS.length + i] = new MBeanAttributeInfo(SOFT_COUNTERS[i].name(), "long",
                    SOFT_COUNTERS[i].label(), true, false, false);
        }
        INFO = new MBeanInfo(JmxCounters.class.getName(), "slime4j transport counters", attributes, null, null, null);
    }

    private final CounterSet counters;
    private final ObjectName name;

    private JmxCounters(CounterSet counters, ObjectName name) {
        this.counters = counters;
        this.name = name;
    }

    /** Registers {@code counters} under {@code objectName}; returns null (and logs) if that fails. */
    static JmxCounters register(CounterSet counters, String objectName) {
        try {
            ObjectName name = new ObjectName(objectName);
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            JmxCounters bean = new JmxCounters(counters, name);
            server.registerMBean(bean, name);
            return bean;
        } catch (JMException | RuntimeException e) {
            LOG.debug("could not register JMX bean {}: {}", objectName, e.toString());
            return null;
        }
    }

    /** Quotes a value for an ObjectName. */
    static String quote(String value) {
        return ObjectName.quote(value);
    }

    void unregister() {
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException | RuntimeException e) {
            LOG.debug("could not unregister JMX bean {}: {}", name, e.toString());
        }
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        for (Counter c : COUNTERS) {
            if (c.name().equals(attribute)) {
                return counters.get(c);
            }
        }
        for (SoftCounter c : SOFT_COUNTERS) {
            if (c.name().equals(attribute)) {
                return counters.get(c);
            }
        }
        throw new AttributeNotFoundException("no counter " + attribute);
    }

    @Override
    public void setAttribute(Attribute attribute) {
        throw new UnsupportedOperationException("counters are read-only");
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList list = new AttributeList();
        for (String a : attributes) {
            try {
                list.add(new Attribute(a, getAttribute(a)));
            } catch (AttributeNotFoundException e) {
                // skipped, as the DynamicMBean contract allows
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException("no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return INFO;
    }
}
