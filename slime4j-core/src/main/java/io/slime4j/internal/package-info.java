/**
 * Engine internals shared by the soft and shm devices, not part of any API: the module does not
 * export this package, and nothing here is for applications. {@link io.slime4j.internal.CounterCells}
 * stores a device's counters and its queue pairs'; {@link io.slime4j.internal.ParkedThreads} holds the
 * threads parked on a completion queue.
 */
package io.slime4j.internal;
