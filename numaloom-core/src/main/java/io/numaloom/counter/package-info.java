/**
 * Scalable counters that close atomically.
 *
 * <p>{@link io.numaloom.counter.CloseableAcquireCounter} counts the acquisitions of a shared resource
 * (a shared arena's memory, a connection, a file) on stripes that scale with the number of cores, and
 * closes it only when nothing is outstanding, atomically with respect to racing acquisitions.
 */
package io.numaloom.counter;
