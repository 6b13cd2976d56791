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
 * <p><b>What it pays</b> (issue 46; 2 cores, a scratch build that turns the poll off by a
 * system property, both variants' points alternating in one run: three rounds of one-fork runs,
 * the variants in rotated order, 20 warm-up and 10 measured rounds each, VNA's throughput
 * without the poll / with it, geometric mean over the rounds). It pays where two threads share
 * the lock and its holder releases within a microsecond: RandBash on 2 virtual threads 0.91
 * (0.92 and 0.91 in two runs of 2 and 3 forks per point), the thesis's high contention on 2
 * virtual threads 0.81 (0.88 and 1.01). It may cost on that high contention at 32 virtual
 * threads, 1.06 without it (1.06, 1.07 and 1.16 in three more runs): there newcomers poll while
 * a queued owner, which yields inside its section, holds the lock (its successor becomes heir
 * at its release), and may take for a microsecond the carrier that owner waits for. A variant
 * that polled only while no thread waited read 0.92 there in one run, so that was not pursued.
 * Elsewhere (consumeCpu with 100 tokens and RandBash on 2 to 32 platform and virtual threads,
 * the high contention at 8) the ratios ran from 0.86 to 1.17 without a direction: this
 * machine's noise.
 *
 * <p><b>A platform newcomer pauses 4 times, then yields 4 times</b>, polling after each
 * ({@link #PLATFORM_NEWCOMER_PAUSES}, {@link #PLATFORM_NEWCOMER_YIELDS}). Platform threads may
 * outnumber the CPUs, and the OS then runs only some of them: a newcomer that spins 32 pauses
 * keeps a CPU from a thread that would work outside the lock, or from a preempted owner, and
 * keeps the lock passing between two running threads, its line and the data it guards moving
 * with it at every acquisition. A yield gives the CPU to a runnable thread if there is one,
 * and returns at once if there is none, so the poll still waits for a short section to end.
 * Measured (issue 44; 2 cores; a scratch build with the variants behind a system property,
 * alternating in one run, VNA / unfair {@code ReentrantLock}, two rounds each): the queue at
 * capacity 1024 with 10 tokens of work per item outside the lock, 4 and 8 platform threads,
 * 0.38-0.52 with 32 pauses, 0.49-0.59 with 16 pauses and 4 yields, 1.01-1.13 with 4 and 4,
 * 0.96-1.07 with 4 pauses and 2 yields; with 100 tokens 0.81-0.97 against 1.00-1.32 (and
 * 0.81-0.95 against 0.94-1.28 at 4 to 32 threads in another run); capacity 16 on 8 and 32
 * threads, where the spins pay most, 5.9x and 16.3x against 3.9x and 9.3x (in the shipped queue
 * sweep, a run each: 5.9x, 13.6x and 12.7x against 3.7x, 11.4x and 11.6x at 8, 32 and 128
 * threads, and capacity 1 at 128 threads 4.1x against 1.3x: 147 against 37 items per ms, the
 * futile wake-ups 0.20 against 0.43 per item); short sections
 * (consumeCpu with 100 tokens and RandBash, 2 to 32 platform threads) 0.99 against 1.03 in
 * geometric mean over 12 points, RandBash at 8 and 32 threads 0.85-0.98 against 0.88-1.01 in
 * the second run. Virtual newcomers keep their 32 pauses, whose figures are above: the JDK's
 * scheduler does not preempt a virtual thread, so one that spins takes its carrier from other
 * virtual threads only for the spin, and a yield there would resubmit it (not measured).
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
