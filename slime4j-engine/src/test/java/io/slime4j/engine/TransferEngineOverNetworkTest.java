package io.slime4j.engine;

import io.slime4j.shm.TransportChoice;

/** {@link TransferEngineTest} with every engine forced to the network (UDP rails), as between hosts. */
class TransferEngineOverNetworkTest extends TransferEngineTest {
    @Override
    TransportChoice transport() {
        return TransportChoice.NETWORK;
    }
}
