package io.numaloom.bench.workloads;

/**
 * A task that threads perform under contention for one or more locks. A workload is built once per
 * measured JVM from its validated settings (expensive preparation, such as generating the text of
 * {@code textStats}, happens here, untimed) and then hands out a fresh {@link Round} per measurement.
 */
public interface Workload {

    /** Fresh shared state (locks, maps, matrices) for one timed round; called before the threads start. */
    Round newRound(RoundContext context);
}
