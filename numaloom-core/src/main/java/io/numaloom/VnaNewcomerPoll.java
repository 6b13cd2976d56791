package io.numaloom;

/**
 * The newcomer's poll of {@link VnaLock}: a thread that finds the lock held, while no heir competes
 * for it, polls the lock word a few times before it queues.
 *
 * <p><b>Idea.</b> A newcomer that finds no heir polls {@link #NEWCOMER_SPINS} times (a platform
 * one 8 times, below) before it queues: a short critical section ends within that, and the lock
 * is then taken without touching the queues. Once a heir exists newcomers queue at once, so that
 * only the heir spins; threads may be queued without a heir (while a queued owner holds the lock
 * and has not yet designated its successor), and newcomers spin then. On one carrier nobody spins.
 *
 * <p><b>What it pays.</b> It is for a lock that two threads share and whose holder releases
 * within a microsecond. It may cost where newcomers poll while a queued owner, which yields inside
 * its section, holds the lock (its successor becomes heir at its release): they may take for a
 * microsecond the carrier that owner waits for. One run (commit 41c2c84, pre-method bench,
 * 2 cores) read VNA's throughput without the poll / with it at 0.91 on RandBash on 2 virtual
 * threads and 1.06 on the thesis's high contention on 32; see docs/measurements.md, entries 17-18.
 *
 * <p><b>A platform newcomer pauses 4 times, then yields 4 times</b>, polling after each
 * ({@link #PLATFORM_NEWCOMER_PAUSES}, {@link #PLATFORM_NEWCOMER_YIELDS}). Platform threads may
 * outnumber the CPUs, and the OS then runs only some of them: a newcomer that spins 32 pauses
 * keeps a CPU from a thread that would work outside the lock, or from a preempted owner, and
 * keeps the lock passing between two running threads, its line and the data it guards moving
 * with it at every acquisition. A yield gives the CPU to a runnable thread if there is one,
 * and returns at once if there is none, so the poll still waits for a short section to end.
 * One run (commit 74f3014, pre-method bench, 2 cores, the variants alternating) read VNA at
 * 0.38-0.52 of unfair {@code ReentrantLock} with 32 pauses and 1.01-1.13 with 4 pauses and
 * 4 yields, on the queue at capacity 1024 with 10 tokens of work per item outside the lock, 4 and
 * 8 platform threads; the other mixes, and where the yields cost, are in docs/measurements.md,
 * entry 19. Virtual newcomers keep their 32 pauses: the JDK's scheduler does not preempt a
 * virtual thread, so one that spins takes its carrier from other virtual threads only for the
 * spin, and a yield there would resubmit it (not measured).
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
    static boolean poll(VnaLock lock, Thread me) {
        if (!VnaLock.mayspin(me)) {
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
