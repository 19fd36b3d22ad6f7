package io.slime4j.soft;

import io.slime4j.verbs.QueuePair;

/** Test helper: brings two queue pairs through INIT, RTR and RTS, each connected to the other. */
final class ConnectedQueuePairs {
    private ConnectedQueuePairs() {
    }

    /** Connects {@code a} and {@code b} to each other (RTS on both). */
    static void connect(QueuePair a, QueuePair b) {
        a.modifyToInit();
        b.modifyToInit();
        a.modifyToRtr(b.localInfo());
        b.modifyToRtr(a.localInfo());
        a.modifyToRts();
        b.modifyToRts();
    }
}
