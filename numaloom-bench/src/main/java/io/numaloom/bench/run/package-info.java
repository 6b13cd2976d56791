/**
 * Point execution: how a configuration is measured, point by point, in JVMs forked by JMH.
 *
 * <p>In the bench's JVM, {@link io.numaloom.bench.run.BenchRunner} runs the points into a results directory (resume,
 * stop, a redrawn report after each bench) through a {@link io.numaloom.bench.run.PointExecutor}, in practice the
 * {@link io.numaloom.bench.run.JmhPointExecutor}, which forks the measured JVMs, reads back their side reports and
 * keeps their class caches ({@link io.numaloom.bench.run.AotCache}). In each measured JVM, {@link
 * io.numaloom.bench.run.PointBenchmark} (the JMH benchmark) starts the workload's rounds with an {@link
 * io.numaloom.bench.run.Execution} on threads placed by {@link io.numaloom.bench.run.ThreadPlacement} (pinned with
 * numaloom-scheduler's {@link io.numaloom.scheduler.CpuAffinity}) and counts their allocation ({@link io.numaloom.bench.run.Allocation}).
 *
 * <p>Depends on the root package, {@code config}, {@code result}, {@code workloads}, {@code report} (the runner
 * draws the report and writes {@code machine.json}), numaloom-core, numaloom-scheduler and JMH. Only {@code cli} and
 * {@code api} depend on it (and {@code config}, for one property name); {@code report} and {@code result} never do.
 */
package io.numaloom.bench.run;
