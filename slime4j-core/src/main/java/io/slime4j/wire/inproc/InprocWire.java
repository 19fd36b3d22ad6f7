package io.slime4j.wire.inproc;

import io.slime4j.wire.Wire;
import io.slime4j.wire.WirePort;

import java.io.UncheckedIOException;
import java.net.BindException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-process wire: a fabric of named ports in one JVM. Ports bound through the same instance
 * reach each other; separate instances are separate fabrics. Datagrams are copied into pooled
 * buffers and queued on the destination port, with the faults of the current {@link FaultConfig}
 * (seeded drops, duplicates, reordering, delay) injected per datagram.
 *
 * <p>Address texts are {@code inproc:NAME} or {@code NAME}; binding {@code ""} or
 * {@code "inproc:"} picks a free name {@code port-N}.
 */
public final class InprocWire implements Wire {

    /** The wire's name and address scheme, {@code "inproc"}. */
    public static final String NAME = "inproc";

    /** Largest datagram, in bytes: 65536. */
    public static final int MAX_PACKET_SIZE = 65536;

    /** Datagrams each channel (priority, data) of a port can queue: 65536. */
    public static final int QUEUE_CAPACITY = 65536;

    private final ConcurrentHashMap<InprocAddress, InprocPort> ports = new ConcurrentHashMap<>();
    private volatile FaultConfig faults;

    // Guarded by this.
    private final long[] closedPortTotals = new long[FaultCounters.COUNT];
    private int nextIndex;
    private int nextAutoName = 1;
    private boolean closed;

    /** A fabric without faults. */
    public InprocWire() {
        this(FaultConfig.NONE);
    }

    /** A fabric injecting {@code faults}. */
    public InprocWire(FaultConfig faults) {
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /** {@value #NAME}. */
    @Override
    public String name() {
        return NAME;
    }

    /**
     * Binds a port named by {@code address}: {@code inproc:NAME}, {@code NAME}, or {@code ""} /
     * {@code "inproc:"} for a fresh {@code port-N}. The name is free again once the port closes.
     *
     * @throws UncheckedIOException     with a {@link BindException} if the name is in use
     * @throws IllegalArgumentException if the text is not an inproc address
     * @throws IllegalStateException    if the wire is closed
     */
    @Override
    public synchronized WirePort bind(String address) {
        String name = InprocAddress.nameOf(address);
        if (closed) {
            throw new IllegalStateException("inproc wire is closed; cannot bind " + address);
        }
        InprocAddress local;
        if (name.isEmpty()) {
            do {
                local = new InprocAddress("port-" + nextAutoName++);
            } while (ports.containsKey(local));
        } else {
            local = new InprocAddress(name);
            if (ports.containsKey(local)) {
                throw new UncheckedIOException(new BindException("inproc address " + local.text() + " is in use"));
            }
        }
        InprocPort port = new InprocPort(this, local, nextIndex++);
        ports.put(local, port);
        return port;
    }

    /** The faults injected now. */
    public FaultConfig faults() {
        return faults;
    }

    /**
     * Changes the injected faults; each port applies them from its next send on (reseeding its
     * generator if the seed changed). Copies already in flight keep their fate.
     */
    public void setFaults(FaultConfig faults) {
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /** A snapshot of the counters summed over all ports, closed ones included. */
    public synchronized FaultStats faultStats() {
        long[] totals = closedPortTotals.clone();
        for (InprocPort port : ports.values()) {
            port.addCountersTo(totals);
        }
        return FaultStats.of(totals);
    }

    /** Closes every port; later binds throw {@link IllegalStateException}. Idempotent. */
    @Override
    public void close() {
        List<InprocPort> open;
        synchronized (this) {
            closed = true;
            open = new ArrayList<>(ports.values());
        }
        for (InprocPort port : open) {
            port.close();
        }
    }

    /** The open port named by {@code address}, or null. */
    InprocPort port(InprocAddress address) {
        return ports.get(address);
    }

    /** Called once by a closing port: frees its name and keeps its counters. */
    synchronized void unbind(InprocPort port) {
        ports.remove(port.localAddress(), port);
        port.addCountersTo(closedPortTotals);
    }

    @Override
    public String toString() {
        return "InprocWire[ports=" + ports.size() + ", faults=" + faults + "]";
    }
}
