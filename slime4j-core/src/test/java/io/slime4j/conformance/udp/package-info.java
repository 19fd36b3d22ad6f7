/**
 * The verbs conformance suites on the UDP wire with the NIO backend: {@link UdpFixture} opens the
 * devices, and one subclass per suite runs that suite there.
 */
package io.slime4j.conformance.udp;
