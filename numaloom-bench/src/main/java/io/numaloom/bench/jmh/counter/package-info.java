/**
 * Microbenchmarks of numaloom-core's {@code CloseableAcquireCounter} (the acquire and release of a shared arena's
 * session, and what it replaces), run with JMH directly, with {@link io.numaloom.bench.jmh.counter.CounterThreadSweep}
 * to run them over thread counts.
 *
 * <p>Depends on numaloom-core only.
 */
package io.numaloom.bench.jmh.counter;
