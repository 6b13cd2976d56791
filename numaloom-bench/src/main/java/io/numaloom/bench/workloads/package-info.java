/**
 * What the threads of a bench do under contention: one {@link io.numaloom.bench.workloads.Workload} per
 * {@link io.numaloom.bench.workloads.WorkloadKind} (the {@code name} of a bench), handing out a fresh
 * {@link io.numaloom.bench.workloads.Round} per measurement.
 *
 * <p>Depends on the root package (mutexes, guarded regions, workers), {@code config} (each workload declares and
 * reads its settings with {@code Field} and {@code Settings}) and {@code locks}; not on {@code run}, {@code result},
 * {@code report} or {@code cli}.
 */
package io.numaloom.bench.workloads;
