package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Mutex;

/**
 * What a round needs from the measurement: how many workers there are, which lock to create and the
 * NUMA cost model's penalty.
 *
 * @param threads         the number of worker threads
 * @param lockName        the lock registry name ({@link Mutex#create(String)})
 * @param remotePenaltyNs spin charged on a handoff between nodes, see {@link GuardedRegion}
 */
public record RoundContext(int threads, String lockName, long remotePenaltyNs) {

    /** A new, unheld mutex of the measured kind. */
    public Mutex newMutex() {
        return Mutex.create(lockName);
    }

    /** A new region guarded by a new mutex of the measured kind. */
    public GuardedRegion newRegion() {
        return new GuardedRegion(newMutex(), remotePenaltyNs);
    }
}
