package io.slime4j.internal;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;

/** For tests that bound what a path allocates: the bytes the current thread has allocated so far. */
public final class Allocations {
    private Allocations() {}

    /**
     * Bytes allocated by the current thread, read through the platform MBean server (HotSpot's Threading
     * bean): the module does not read {@code jdk.management}, whose interface would give it directly.
     */
    public static long ofThisThread() {
        try {
            return (long) ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("java.lang:type=Threading"),
                    "getThreadAllocatedBytes", new Object[] {Thread.currentThread().threadId()}, new String[] {"long"});
        } catch (JMException e) {
            throw new AssertionError("the Threading bean does not report allocation on this JVM", e);
        }
    }
}
