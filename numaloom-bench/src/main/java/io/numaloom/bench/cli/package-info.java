/**
 * The {@code ./numaloom} command line ({@link io.numaloom.bench.cli.Main}): {@code bench}, {@code topology},
 * {@code plot}, {@code jmh} and {@code contention}, and the console progress of a run.
 *
 * <p>The top of the bench: it may depend on every other package, and none depends on it.
 */
package io.numaloom.bench.cli;
