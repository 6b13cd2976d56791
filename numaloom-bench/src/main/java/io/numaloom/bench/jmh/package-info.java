/**
 * Microbenchmarks run with JMH directly ({@code ./numaloom jmh}), outside the configured benches: the
 * uncontended and contended cost of a lock and unlock, plain and keyed.
 *
 * <p>Depends on the root package ({@code Mutex}) and numaloom-core.
 */
package io.numaloom.bench.jmh;
