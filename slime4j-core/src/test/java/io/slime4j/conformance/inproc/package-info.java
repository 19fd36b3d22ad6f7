/**
 * The verbs conformance suites on the in-process wire without faults: {@link InprocFixture} opens
 * the devices, and one subclass per suite runs that suite there.
 */
package io.slime4j.conformance.inproc;
