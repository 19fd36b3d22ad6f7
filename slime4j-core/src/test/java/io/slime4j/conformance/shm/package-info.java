/** The conformance suites on the shared-memory device ({@code io.slime4j.shm}): a fixture and one subclass per suite. */
package io.slime4j.conformance.shm;
