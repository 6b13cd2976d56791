package io.numaloom;

/**
 * The newcomer's poll of {@code VnaLock}: a thread that finds the lock held, while no heir competes
 * for it, polls the lock word a few times before it queues.
 *
 * <p><b>Idea.</b> A newcomer that finds no heir polls {@link #NEWCOMER_SPINS} times before it queues: a short
 * critical section ends within that, and the lock is then taken without touching the queues. Once a heir exists
 * newcomers queue at once, so that only the heir spins; threads may be queued without a heir (while a queued owner
 * holds the lock and has not yet designated its successor), and newcomers poll then. On one carrier nobody polls.
 * A platform newcomer pauses {@link #PLATFORM_NEWCOMER_PAUSES} times and then yields
 * {@link #PLATFORM_NEWCOMER_YIELDS} times, polling after each: platform threads may outnumber the CPUs, and a
 * newcomer that spins keeps a CPU from a thread that would work outside the lock, or from a preempted owner; a
 * yield gives the CPU to a runnable thread if there is one and returns at once if there is none. Virtual newcomers
 * only pause: the JDK's scheduler does not preempt a virtual thread, and a yield would resubmit it.
 *
 * <p><b>Paper.</b> Two-phase waiting, spin then block: J. K. Ousterhout, "Scheduling Techniques
 * for Concurrent Systems" (ICDCS '82); A. R. Karlin, K. Li, M. S. Manasse and S. Owicki,
 * "Empirical Studies of Competitive Spinning for a Shared-Memory Multiprocessor" (SOSP '91).
 *
 * <p><b>Properties.</b> Bounded: {@link #NEWCOMER_SPINS} pauses on a virtual thread,
 * {@link #PLATFORM_NEWCOMER_PAUSES} pauses and {@link #PLATFORM_NEWCOMER_YIELDS} yields on a
 * platform one, none on one carrier or CPU. Unfair, as the fast path it extends: a poll that finds
 * the lock free takes it with the fast path's CAS ({@code 0 -> LOCKED}), so it never takes a
 * reserved lock (the time bound of {@link VnaReservation} holds). Touches the lock word only, not the
 * queues: a newcomer has not registered as a waiter yet, and a signalled condition waiter, which its
 * signal counted as queued, is unregistered by its caller when the poll succeeds.
 *
 * <p><b>Measured</b> (the verdict method, 2 cores; docs/measurements.md M10, M14): without it {@code VnaLock} runs at
 * 0.93 [0.90, 0.99] of itself on consumeCpu and 0.90 [0.84, 0.96] on RandBash on 2 platform threads, and 0.85
 * [0.62, 0.97] on the bounded queue at capacity 16 on 32 virtual threads; tied at the other eight points. The
 * variants measured before the method are entries 17-19.
 */
final class VnaNewcomerPoll {

    /** Polls of a virtual newcomer that finds no heir, before it queues (about a microsecond). */
    static final int NEWCOMER_SPINS = 32;
    /** A platform newcomer's first polls, each after a pause. */
    static final int PLATFORM_NEWCOMER_PAUSES = 4;
    /** A platform newcomer's polls after those, each after a {@link Thread#yield()}. */
    static final int PLATFORM_NEWCOMER_YIELDS = 4;

    private VnaNewcomerPoll() {
    }

    /**
     * Polls {@code lock} for the current thread {@code me}; true if it took the lock (and wrote
     * {@code owner}), false if the caller is to queue.
     */
    static boolean poll(VnaLockWord lock, Thread me) {
        if (!VnaCarriers.maySpin(me)) {
            return false;
        }
        boolean platform = !me.isVirtual();
        int polls = platform ? PLATFORM_NEWCOMER_PAUSES + PLATFORM_NEWCOMER_YIELDS : NEWCOMER_SPINS;
        for (int i = 0; i < polls; i++) {
            if (platform && i >= PLATFORM_NEWCOMER_PAUSES) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
            if (lock.state == 0 && lock.tryAcquireFree()) {
                lock.owner = me;
                return true;
            }
        }
        return false;
    }
}
