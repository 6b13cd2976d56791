/**
 * Locks for virtual and platform threads on NUMA machines.
 *
 * <p>{@link io.numaloom.VnaLock} is a drop-in replacement for
 * {@link java.util.concurrent.locks.ReentrantLock} in its default mode: the same semantics and
 * {@link java.util.concurrent.locks.Condition}s, a cheaper uncontended path, a bound in time on how
 * long a waiter can be overtaken, and waiting queues per NUMA node so that the lock passes between
 * threads of one node for a while. {@link io.numaloom.QueuePlacement} lets an application choose the
 * queues itself. {@link io.numaloom.LockDiagnostics} counts what the contended path does, when asked
 * to ({@code -Dnumaloom.diagnostics=true}). {@link io.numaloom.KeyedLock} is a lock per key (by
 * {@code equals}) whose memory follows the keys in use.
 *
 * <pre>{@code
 * Lock lock = new VnaLock();
 * lock.lock();
 * try {
 *     // critical section
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <p>Nothing here needs a JVM flag. See {@link io.numaloom.topology} for how the NUMA topology and
 * the current CPU are found, and how to describe a virtual topology for tests.
 */
package io.numaloom;
