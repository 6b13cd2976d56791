package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Worker;

import org.HdrHistogram.Histogram;

import java.util.List;

/**
 * One timed run of a workload: every worker thread runs {@link #runThread(Worker)} once, concurrently, and
 * the round is over when the last one returns. Built untimed by {@link Workload#newRound(RoundContext)}.
 */
public interface Round extends AutoCloseable {

    /** The body of one worker thread: its share of the round's operations. */
    void runThread(Worker worker) throws Exception;

    /** The operations the whole round performs (the numerator of the throughput). */
    long operations();

    /**
     * The guarded regions of the round, for the NUMA and mutual-exclusion bookkeeping; empty (the default)
     * for a round that takes its locks without {@link Worker#locked}, or takes none.
     */
    default List<GuardedRegion> regions() {
        return List.of();
    }

    /**
     * What the round's locking keeps on the heap (the {@code keyed} workload's scheme), whose retained size after
     * the last measured round is reported; null (the default) when there is nothing to report.
     */
    default Object footprint() {
        return null;
    }

    /**
     * Response times of a second system measured in the same round beside the one under test, in nanoseconds (the
     * {@code server} workload's {@code pairedWith} server), read after {@link #verify()}; null (the default) for none.
     */
    default Histogram pairedLatency() {
        return null;
    }

    /**
     * The waits on the round's conditions (the {@code queue} workload's buffer over a lock): futile wake-ups and
     * signal-to-lock times, read after {@link #verify()}; null (the default) for a round without conditions of its
     * own, such as one over a JDK blocking queue.
     */
    default ConditionWaits conditionWaits() {
        return null;
    }

    /**
     * Checks the round's result after every worker finished (the word counts, finite matrices, the
     * generator's final state).
     *
     * @throws IllegalStateException naming what is wrong
     */
    void verify();

    /**
     * Releases what the round holds outside the heap (a server's port, its threads, client sockets). Called once
     * the round is over, whether it passed its check, failed or timed out ({@link io.numaloom.bench.run.Execution}
     * does); must be idempotent and must not throw. Nothing by default.
     */
    @Override
    default void close() {
    }
}
