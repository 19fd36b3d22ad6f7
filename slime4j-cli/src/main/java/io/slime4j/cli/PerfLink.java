package io.slime4j.cli;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.engine.TransferEngine;
import io.slime4j.verbs.VerbsDevice;
import java.util.List;

/**
 * Where {@code perf}'s measuring loops post their operations: one {@link RdmaEndpoint} connected by
 * hand ({@code --connect}, the loopback run), or a {@link TransferEngine} addressing its peer by
 * name ({@code --directory}). The loops in {@link PerfClient} and {@link PerfServer} see only this.
 */
interface PerfLink {
    TransferFuture write(List<Assignment> batch);

    TransferFuture read(List<Assignment> batch);

    TransferFuture writeWithImm(List<Assignment> batch, int imm);

    TransferFuture send(String region, long offset, long length);

    TransferFuture recv(String region, long offset, long length);

    TransferFuture immRecv();

    /** The endpoint settings (slot timeout, message slots) of this side. */
    EndpointConfig config();

    /** The {@link PerfEndpoints#REPORTED} counters of this side's devices now. */
    long[] counters();

    /** The link of an endpoint on {@code device}. */
    static PerfLink of(RdmaEndpoint ep, VerbsDevice device) {
        return new PerfLink() {
            @Override
            public TransferFuture write(List<Assignment> batch) {
                return ep.write(batch);
            }

            @Override
            public TransferFuture read(List<Assignment> batch) {
                return ep.read(batch);
            }

            @Override
            public TransferFuture writeWithImm(List<Assignment> batch, int imm) {
                return ep.writeWithImm(batch, imm);
            }

            @Override
            public TransferFuture send(String region, long offset, long length) {
                return ep.send(region, offset, length);
            }

            @Override
            public TransferFuture recv(String region, long offset, long length) {
                return ep.recv(region, offset, length);
            }

            @Override
            public TransferFuture immRecv() {
                return ep.immRecv();
            }

            @Override
            public EndpointConfig config() {
                return ep.config();
            }

            @Override
            public long[] counters() {
                return PerfEndpoints.snapshot(device);
            }
        };
    }

    /** The link of {@code engine} to the engine named {@code peer}, whose connections use {@code config}. */
    static PerfLink of(TransferEngine engine, String peer, EndpointConfig config) {
        return new PerfLink() {
            @Override
            public TransferFuture write(List<Assignment> batch) {
                return engine.write(peer, batch);
            }

            @Override
            public TransferFuture read(List<Assignment> batch) {
                return engine.read(peer, batch);
            }

            @Override
            public TransferFuture writeWithImm(List<Assignment> batch, int imm) {
                return engine.writeWithImm(peer, batch, imm);
            }

            @Override
            public TransferFuture send(String region, long offset, long length) {
                return engine.send(peer, region, offset, length);
            }

            @Override
            public TransferFuture recv(String region, long offset, long length) {
                return engine.recv(peer, region, offset, length);
            }

            @Override
            public TransferFuture immRecv() {
                return engine.immRecv(peer);
            }

            @Override
            public EndpointConfig config() {
                return config;
            }

            @Override
            public long[] counters() {
                long[] v = new long[PerfEndpoints.REPORTED.length];
                for (int i = 0; i < v.length; i++) {
                    v[i] = engine.counter(PerfEndpoints.REPORTED[i]);
                }
                return v;
            }
        };
    }
}
