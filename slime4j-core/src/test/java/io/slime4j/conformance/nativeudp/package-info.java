/**
 * The verbs conformance suites on the UDP wire with the native backend: {@link NativeUdpFixture}
 * opens the devices, and one subclass per suite runs that suite there.
 */
package io.slime4j.conformance.nativeudp;
