/**
 * The verbs conformance suites on busy-polling soft devices, where the threads that wait for
 * completions drive the devices: {@link io.slime4j.conformance.busypoll.BusyPollFixture} opens
 * them, and one subclass per suite runs that suite there.
 */
package io.slime4j.conformance.busypoll;
