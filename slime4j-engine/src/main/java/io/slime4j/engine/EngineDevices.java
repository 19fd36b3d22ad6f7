package io.slime4j.engine;

import io.slime4j.shm.HostIdentity;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.shm.TransportChoice;
import io.slime4j.soft.ProgressGroup;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.Wire;
import io.slime4j.wire.udp.UdpWire;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The devices of a {@link TransferEngine}, the one place that creates them: a {@link SoftDevice}
 * per network rail on the engine's wire, and — unless the transport setting is {@code network} or
 * shm cannot run here — one {@link ShmDevice} for every same-host peer (rails mean nothing within a
 * host). Also this process's {@link HostIdentity} and the resulting {@link TransportSelector}.
 */
final class EngineDevices implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransferEngine.class); // the engine's log

    final List<SoftDevice> rails = new ArrayList<>();
    final ShmDevice shm;
    final TransportSelector selector;

    /**
     * Opens the devices.
     *
     * @throws IllegalArgumentException when shm is forced but cannot run here
     */
    EngineDevices(String name, long incarnation, EngineSettings settings, Wire wire, ProgressGroup progress,
                  TransportChoice transport) {
        boolean withShm = TransportSelector.wantsShmDevice(transport, ShmDevice.unavailability());
        HostIdentity identity = null;
        try {
            identity = HostIdentity.current();
        } catch (UncheckedIOException | IllegalArgumentException e) {
            if (transport == TransportChoice.SHM) {
                throw new IllegalArgumentException("transport shm was forced, but this host's identity cannot be read: "
                        + e.getMessage(), e);
            }
            LOG.info("engine {}: no host identity ({}): every peer is reached over the network", name, e.getMessage());
            withShm = false;
        }
        ShmDevice s = null;
        try {
            for (int r = 0; r < settings.rails(); r++) {
                String address = wire instanceof UdpWire ? "udp:" + TransferEngine.hostForUrl(settings.bindHost()) + ":0"
                        : "inproc:" + name + "-" + Long.toHexString(incarnation) + "-" + r;
                rails.add(SoftDevice.open(wire, address, SoftConfig.builder().name(name + "-rail" + r).build(),
                        progress));
            }
            if (withShm) {
                s = ShmDevice.open(ShmConfig.fromEnvironment().name(name + "-shm").build());
            }
        } catch (RuntimeException e) {
            rails.forEach(SoftDevice::close);
            throw e;
        }
        this.shm = s;
        this.selector = new TransportSelector(transport, identity, s != null);
    }

    /** Every device's counters by device name (rails first, then the shm device). */
    Map<String, Counters> counters() {
        Map<String, Counters> m = new LinkedHashMap<>();
        rails.forEach(d -> m.put(d.name(), d.counters()));
        if (shm != null) {
            m.put(shm.name(), shm.counters());
        }
        return Collections.unmodifiableMap(m);
    }

    @Override
    public void close() {
        rails.forEach(VerbsDevice::close);
        if (shm != null) {
            shm.close();
        }
    }
}
