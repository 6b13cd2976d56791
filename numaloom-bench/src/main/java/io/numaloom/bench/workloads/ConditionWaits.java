package io.numaloom.bench.workloads;

import org.HdrHistogram.Histogram;

/**
 * What the waits on a round's conditions cost besides the lock itself ({@link Round#conditionWaits()}): the
 * {@code queue} workload's lock-based buffer counts them, the JDK's blocking queues cannot be looked into.
 *
 * @param futileWakeups times a thread returned from an await on a condition and found its predicate still false
 *                      (the buffer still full for a producer, still empty for a consumer), so that it waited again
 * @param signalToLock  for each return from an await after a signal of its condition, the nanoseconds from the
 *                      latest such signal to the woken thread holding the lock again
 */
public record ConditionWaits(long futileWakeups, Histogram signalToLock) {
}
