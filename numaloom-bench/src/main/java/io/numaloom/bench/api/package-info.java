/**
 * The bench for your own code: {@link io.numaloom.bench.api.LockMatrix} measures your critical section under every
 * lock, thread count and thread type with the bench's methodology and report (what {@code ./numaloom bench
 * --workload-class} runs), and {@link io.numaloom.bench.api.Locks} creates every lock of the bench by name for your own
 * JMH benchmarks.
 *
 * <p>Depends on the root package, {@code config}, {@code run}, {@code result} and {@code workloads}; only {@code cli}
 * depends on it.
 */
package io.numaloom.bench.api;
