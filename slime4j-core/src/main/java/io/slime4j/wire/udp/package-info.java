/**
 * The UDP wire: the soft engine's datagrams over non-blocking UDP sockets, one rail
 * ({@link io.slime4j.wire.udp.UdpPort}) per bound port.
 *
 * <h2>Two backends</h2>
 * {@link io.slime4j.wire.udp.UdpConfig#backend()} chooses what drives the sockets. NIO uses
 * {@link java.nio.channels.DatagramChannel}s and runs everywhere. The native backend makes and
 * drives the sockets with libc calls through the Foreign Function and Memory API (Linux x86_64 and
 * aarch64; the JVM must grant native access, e.g. {@code --enable-native-access=ALL-UNNAMED} on the
 * class path): a header and a payload leave in one {@code sendmsg} from two places, so the engine
 * sends RDMA payloads straight from registered memory, and a receiving
 * {@link io.slime4j.wire.PlacingPacketHandler} gets payloads put at their target by the kernel
 * (a peek at the header, then one {@code recvmsg} split between the header buffer and the target;
 * or, for the next packet of a write in progress, the split at the predicted place without the
 * peek). {@code auto}, the default, is native where it can run and NIO otherwise. Both behave the
 * same towards peers and the engine; docs/WIRE.md and docs/PERFORMANCE.md have the details.
 *
 * <h2>Datagram size and kernel offloads</h2>
 * A rail sizes its datagrams for the path: {@link io.slime4j.wire.udp.UdpPort#pathPacketSize()} is
 * the largest UDP payload that fits the bound interface's MTU (or
 * {@link io.slime4j.wire.udp.UdpConfig#pathMtu()}), and the engine's default payload per packet
 * follows from it ({@link io.slime4j.wire.udp.PathMtu}); datagrams carry the don't-fragment bit
 * unless {@link io.slime4j.wire.udp.UdpConfig#fragmentation()}. On the native backend the data
 * socket sends runs of same-size datagrams to one peer in one {@code sendmsg} with UDP GSO
 * ({@code GsoBurst}, flushed by {@link io.slime4j.wire.WirePort#flush()} at the
 * end of the engine's duty cycle) and receives with UDP GRO, splitting coalesced receives into the
 * datagrams they were. {@link io.slime4j.wire.udp.UdpPort#offloads()} says which are on, or why
 * not; docs/WIRE.md has the details.
 *
 * <h2>Two channels per rail</h2>
 * A rail has a data channel, bound at the port the user chose, and a priority channel (usnic's
 * command channel: ACKs and tiny messages) bound at a second port, ephemeral unless the bind text
 * names it. Priority traffic must arrive on a socket of its own so that the receiver can drain it
 * before data, and must leave from one so that a send buffer full of data never holds back an ACK.
 * Peers learn the second port from the advertised address, which names both:
 * {@code udp:HOST:DATA_PORT/PRIORITY_PORT}. No port arithmetic (data port + 1) is assumed: that
 * breaks as soon as the neighbouring port is taken or a NAT maps the two differently.
 *
 * <p>An address without a priority port ({@code udp:HOST:PORT}) is a single-socket rail: peers send
 * it everything on the data port, and it sends everything from its data socket. A rail becomes one
 * when its advertised address names a data port but no priority port; it is also what any plain
 * {@code udp:HOST:PORT} peer address means, so the wire talks to single-socket peers too.
 *
 * <h2>Sources</h2>
 * The engine accepts a datagram only from its queue pair's peer, comparing addresses as values. A
 * datagram's source is one of the peer's two sockets, so a port remembers every address it has
 * {@linkplain io.slime4j.wire.udp.UdpPort#resolve resolved} under both of its socket addresses and
 * reports a datagram from either as coming from that address. A source no resolved address owns is
 * reported as a single-socket address of itself, which equals no peer with a priority channel. The
 * advertised address must therefore be where the peer's datagrams come from: its bound address, or
 * the public address of a NAT that maps each socket to the advertised port.
 *
 * <h2>Advertised addresses</h2>
 * By default a rail advertises its bound address (for a wildcard bind, the local host's address).
 * {@link io.slime4j.wire.udp.UdpConfig#advertisedAddress()} or
 * {@link io.slime4j.wire.udp.UdpWire#bind(String, String)} override it for NAT and relays:
 * {@code udp:HOST} replaces the host, {@code udp:HOST:PORT/PRIORITY_PORT} the ports too.
 *
 * <h2>Limits</h2>
 * Datagrams are at most {@link io.slime4j.wire.udp.UdpConfig#maxDatagramSize()} bytes (65,507 by
 * default, the IPv4 maximum); the engine's MTU plus its 64-byte header must fit. Socket buffers
 * default to 4 MiB; the kernel may clamp them ({@code net.core.rmem_max}, {@code wmem_max}).
 * What the kernel drops is recovered by the engine's retransmissions.
 *
 * <h2>Threading</h2>
 * {@code send} is called by one thread at a time and {@code receive} by one thread at a time (the
 * owning device's progress agent does both); {@code resolve}, {@code close}, {@code stats} and
 * the accessors are safe from any thread. {@code send} and {@code receive} never block and never
 * allocate per datagram beyond, on NIO, the source address {@code DatagramChannel.receive} returns
 * (the native backend decodes a source only when it changes). A UDP
 * port never calls the {@code onReceivable} wakeup: an idle agent blocks on the port's
 * {@code readableFds()} (epoll, native backend) or {@code readableChannels()} (a selector, NIO),
 * which turn readable when a datagram arrives (an agent that drives ports of both backends, or has
 * neither epoll nor a selector, parks for its timeout instead). As for every NIO channel, interrupting the
 * thread inside {@code send} or {@code receive} closes a NIO channel; the port then drops
 * everything (logged once). A native socket's descriptor is closed by whoever finishes last, close
 * or a call in progress, so no call can reach a descriptor number reused meanwhile. {@code close} is idempotent; a concurrent {@code send} returns false and a
 * concurrent {@code receive} returns early.
 */
package io.slime4j.wire.udp;
