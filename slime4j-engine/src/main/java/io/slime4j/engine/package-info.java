/**
 * The transfer engine: one {@link io.slime4j.engine.TransferEngine} per process, reaching any peer
 * engine by name through a {@link io.slime4j.engine.directory.Directory}. Sits above the endpoint
 * layer ({@link io.slime4j.endpoint.RdmaEndpoint}, one per connected peer, all sharing the engine's
 * devices and threads): shared memory to a peer on this host, the network to others
 ({@link io.slime4j.engine.TransportSelector}). See docs/ENGINE.md.
 */
package io.slime4j.engine;
