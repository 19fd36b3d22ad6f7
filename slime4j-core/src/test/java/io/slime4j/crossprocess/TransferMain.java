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

    /**
     * Options: {@code --peer-netns NAME} (run the peer in that network namespace),
     * {@code --peer-bind ADDRESS}, {@code --bind ADDRESS} (this side's rail), {@code --largest BYTES}
     * (a message of that size added to every opcode's sizes).
     */
    public static void main(String[] args) throws Exception {
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--peer-netns" -> CrossProcessTransferTest.peerPrefix = java.util.List.of("ip", "netns", "exec",
                        args[i + 1]);
                case "--peer-bind" -> CrossProcessTransferTest.peerBind = args[i + 1];
                case "--bind" -> CrossProcessTransferTest.localBind = args[i + 1];
                case "--largest" -> CrossProcessTransferTest.largest = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        CrossProcessTransferTest test = new CrossProcessTransferTest();
        test.startPeerAndConnect();
        try {
            test.writesReadsSendsAndWritesWithImmediateFromOneByteToSixteenMebibytesArriveByteExact();
            ObjectName device = new ObjectName("io.slime4j:type=SoftDevice,name=\"cross-a\"");
            var server = ManagementFactory.getPlatformMBeanServer();
            System.out.println("RESULT retransmits=" + server.getAttribute(device, Counter.RETRANSMITS.name())
                    + " duplicates=" + server.getAttribute(device, Counter.DUPLICATES.name())
                    + " timeouts=" + server.getAttribute(device, Counter.TIMEOUTS.name()));
            for (var port : test.localPorts()) {
                System.out.println("PORT mtu=" + test.localMtu() + " " + port.offloads() + " " + port.stats());
            }
        } finally {
            test.stopPeer();
        }
        System.exit(0);
    }
}
