/**
 * An opt-in NUMA-aware scheduler of virtual threads.
 *
 * <p>{@link io.numaloom.scheduler.NumaScheduler} gives every virtual thread it creates a home node of
 * {@link io.numaloom.topology.Topology#current()} and runs each of its mounts (its start and every resumption
 * after a park, sleep, yield or wait) on carriers of that node, pinned to the node's CPUs, whoever wakes it.
 * JDK 25 has no public API for this: the scheduler needs {@code --add-opens java.base/java.lang=ALL-UNNAMED}, and
 * without it {@link io.numaloom.scheduler.NumaScheduler#create()} throws an
 * {@link java.lang.UnsupportedOperationException} that names the flag. This package is the only part of numaloom
 * that needs a JVM flag; numaloom-core does not depend on it. The class comment of {@code NumaScheduler} states
 * what it promises, how {@code close()} treats running threads, and what it cannot do on JDK 25 (no compensating
 * carrier while one is blocked in file I/O or a pinned wait).
 */
package io.numaloom.scheduler;
