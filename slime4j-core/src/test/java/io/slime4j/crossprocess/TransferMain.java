package io.slime4j.crossprocess;

import io.slime4j.verbs.Counter;
import io.slime4j.soft.SoftCounter;
import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * Runs {@link CrossProcessTransferTest}'s transfer as a program, so that it can run where a JUnit
 * engine cannot reach (inside a network namespace, see {@link NetnsFaultTest}). Exits 0 when every
 * byte arrived, and prints {@code RESULT retransmits=N duplicates=M timeouts=T} with this side's
 * transport counters; any failure is an exception and a non-zero exit.
 */
public final class TransferMain {
    private TransferMain() {}

    public static void main(String[] args) throws Exception {
        CrossProcessTransferTest test = new CrossProcessTransferTest();
        test.startPeerAndConnect();
        try {
            test.writesReadsSendsAndWritesWithImmediateFromOneByteToSixteenMebibytesArriveByteExact();
            ObjectName device = new ObjectName("io.slime4j:type=SoftDevice,name=\"cross-a\"");
            var server = ManagementFactory.getPlatformMBeanServer();
            System.out.println("RESULT retransmits=" + server.getAttribute(device, Counter.RETRANSMITS.name())
                    + " duplicates=" + server.getAttribute(device, Counter.DUPLICATES.name())
                    + " timeouts=" + server.getAttribute(device, Counter.TIMEOUTS.name()));
        } finally {
            test.stopPeer();
        }
        System.exit(0);
    }
}
