package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Mutex;

import java.time.Duration;

/**
 * What a round needs from the measurement: how many workers there are, which lock to create, the NUMA cost
 * model's penalty, the kind of the measured threads and how long the round may take.
 *
 * @param threads         the number of worker threads
 * @param lockName        the lock registry name ({@link Mutex#create(String)})
 * @param remotePenaltyNs spin charged on a handoff between nodes, see {@link GuardedRegion}
 * @param threadType      {@code virtual} or {@code platform}: the kind of the workers, and of any thread the round
 *                        starts itself (a server's handlers)
 * @param timeout         the longest the timed part of the round may take before the point fails
 */
public record RoundContext(int threads, String lockName, long remotePenaltyNs, String threadType, Duration timeout) {

    /** The default round timeout of a configuration ({@code timeoutSeconds}). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(600);

    /** A context of virtual workers with the default timeout. */
    public RoundContext(int threads, String lockName, long remotePenaltyNs) {
        this(threads, lockName, remotePenaltyNs, "virtual", DEFAULT_TIMEOUT);
    }

    /** Whether the workers, and the threads the round starts, are virtual. */
    public boolean virtual() {
        return !"platform".equals(threadType);
    }

    /** A new, unheld mutex of the measured kind. */
    public Mutex newMutex() {
        return Mutex.create(lockName);
    }

    /** A new region guarded by a new mutex of the measured kind. */
    public GuardedRegion newRegion() {
        return new GuardedRegion(newMutex(), remotePenaltyNs);
    }
}
