package io.numaloom;

/**
 * Decides which of a {@link VnaLock}'s waiting queues the calling thread joins.
 *
 * <p>The default placements follow the machine: one queue per NUMA node
 * ({@code new VnaLock()}) or one per socket ({@link VnaLock#perSocket()}), both read from
 * {@link io.numaloom.topology.Topology#current()} and {@link io.numaloom.topology.CurrentCpu}.
 * A custom placement lets an application that already knows where its threads run (or a
 * deterministic test) choose the queue itself.
 *
 * <p>Implementations must be cheap and must not block: {@link #currentQueue()} is called once
 * per contended acquisition, on the thread that is about to wait. Out-of-range results are
 * clamped into {@code [0, queueCount())}, so a stale answer costs locality, never correctness.
 */
public interface QueuePlacement {

    /** {@return the number of queues; at least 1 and constant for the lifetime of the placement} */
    int queueCount();

    /** {@return the queue that the calling thread should join, in {@code [0, queueCount())}} */
    int currentQueue();
}
