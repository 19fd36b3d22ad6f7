/**
 * The conformance suites on busy-polling shared-memory devices ({@code io.slime4j.shm}), where
 * waiters drive the devices: a fixture and one subclass per suite.
 */
package io.slime4j.conformance.shmbusypoll;
