/**
 * Configuration reading and validation: a bench configuration file (JSON) becomes a {@link
 * io.numaloom.bench.config.BenchConfig} of validated {@link io.numaloom.bench.config.BenchDefinition}s, every default
 * filled in, or a {@link io.numaloom.bench.config.ConfigException} that names each wrong field (with a
 * {@link io.numaloom.bench.config.Suggest suggestion} for a misspelt name). {@link io.numaloom.bench.config.Field}
 * and {@link io.numaloom.bench.config.Settings} are how a workload declares and reads its own settings.
 *
 * <p>Depends on the root package (the lock registry of {@code Mutex}), {@code workloads} and {@code locks} (the
 * settings each workload and keyed scheme declares) and numaloom-core's topology; of {@code run} it names only
 * {@code ThreadPlacement}'s carrier-count property, when it builds the measured JVMs' arguments. It does not depend
 * on {@code result}, {@code report} or {@code cli}.
 */
package io.numaloom.bench.config;
