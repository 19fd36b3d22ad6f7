/**
 * The verbs conformance suites on the in-process wire with injected loss, duplication and
 * reordering: {@link InprocFaultsFixture} opens the devices, and one subclass per suite runs that
 * suite there.
 */
package io.slime4j.conformance.inprocfaults;
