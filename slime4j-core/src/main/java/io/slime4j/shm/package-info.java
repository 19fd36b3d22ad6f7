/**
 * The shared-memory engine: {@link io.slime4j.shm.ShmDevice} implements the verbs API for peers on
 * the same host, in this process or another one. It depends on the verbs API and
 * {@code java.lang.foreign} only.
 *
 * <p>Each queue pair owns a shared file ({@code memfd}) holding the ring of requests it sends; its
 * peer maps it (through {@code /proc/PID/fd}), executes the requests in order and answers through
 * words in the same file. RDMA WRITE, READ and SEND data moves with one copy between the two sides'
 * registered memory: through a mapping of the peer's {@link io.slime4j.shm.SharedMemory} when the
 * memory was allocated there, else with {@code process_vm_readv}/{@code writev}, and in one process
 * directly. An RDMA WRITE or READ into {@code SharedMemory} the peer exports, posted while nothing
 * earlier is outstanding, is checked against the peer's export table and copied by the requester
 * itself ({@code DirectCopy}, {@code ExportTable}). Completions stay in the process that polls
 * them. See docs/SHM.md.
 *
 * <p>Threading: the requester and responder state of a device's queue pairs belongs to whichever
 * thread holds the device's progress lock: a posting thread publishing its own request, a thread
 * polling a completion queue (one duty cycle when the queue is empty; spinning with busy polling),
 * or the device's progress agent, which runs what nobody polls for and sleeps on the device's futex
 * doorbell otherwise. Completion queues have one producer at a time (the lock holder) and
 * lock-serialised pollers.
 */
package io.slime4j.shm;
