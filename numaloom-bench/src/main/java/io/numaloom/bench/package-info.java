/**
 * The bench's vocabulary, which workloads and locks implement or use: a lock behind one interface ({@link
 * io.numaloom.bench.Mutex}, its adapters {@link io.numaloom.bench.LockMutex} and {@link
 * io.numaloom.bench.MonitorMutex}, its conditions {@link io.numaloom.bench.MutexCondition} and {@link
 * io.numaloom.bench.ParkingCondition}); the data a mutex protects, with its NUMA bookkeeping ({@link
 * io.numaloom.bench.GuardedRegion}); a measured thread's probe ({@link io.numaloom.bench.Worker}) and bounded spinning
 * ({@link io.numaloom.bench.Spin}); and what a run measures, a {@link io.numaloom.bench.Point} (bench, lock, thread
 * count), as it is sent to a measured JVM ({@link io.numaloom.bench.PointSpec}).
 *
 * <p>The sub-packages: {@code config} reads and validates a configuration; {@code workloads} and {@code locks} are
 * what is measured; {@code run} measures the points in forked JVMs; {@code result} is what a run produced;
 * {@code report} draws plots, tables and {@code index.html} from a results directory (from {@code result} and
 * {@code config}, never from {@code run}); {@code cli} is the {@code ./numaloom} command line; {@code api} runs a
 * user's own critical section through the runner and creates every lock by name; {@code jmh} holds the
 * microbenchmarks run with JMH directly.
 *
 * <p>This package depends on {@code locks} (the lock registry), {@code config} (the bench of a point) and
 * numaloom-core. It holds at most a dozen source files, this one included ({@code LayoutTest}).
 */
package io.numaloom.bench;
