/**
 * The machine's NUMA topology and the CPU a thread runs on.
 *
 * <p>{@link io.numaloom.topology.Topology#current()} describes the online CPUs, their NUMA nodes,
 * sockets and clusters, read from Linux's sysfs, or from a virtual topology given with
 * {@code -Dnumaloom.topology} ({@code nodes=2}, {@code nodes=4,sockets=2}, or a map such as
 * {@code 0-3:0,4-7:1}), which lets the NUMA code paths run on a one-node machine. A malformed
 * specification fails with an {@link java.lang.IllegalArgumentException} that quotes it.
 *
 * <p>{@link io.numaloom.topology.CurrentCpu} answers the current CPU, node and socket without
 * allocating, through {@code sched_getcpu} called with the FFM API, or, where native access is denied
 * or not wanted ({@code -Dnumaloom.currentCpu=quiet} or {@code spread}), through a fixed per-thread
 * spread over the CPUs. Its class comment explains {@code --enable-native-access} and the JDK's
 * restricted-method warning.
 */
package io.numaloom.topology;
