package io.numaloom;

import java.util.concurrent.TimeUnit;

/**
 * The heir's competition for {@code VnaLock}: how the one waiting thread that is awake (the heir,
 * chosen by {@link VnaSuccession}) spins, naps, parks and finally takes the lock, against
 * newcomers that may barge.
 *
 * <p><b>Idea.</b> Handoff is competitive: a free lock goes to whichever thread takes it first, a running newcomer or
 * the heir, so the lock never waits for a parked thread to be woken, and running threads keep running, which is
 * where an unfair lock's throughput comes from. Only the heir spins: {@link #HEIR_SPINS} pauses, polling the word
 * with exponential backoff so that an owner running one short critical section after another mostly keeps the
 * lock's cache line. A spin that saw the lock free but lost it to a barger means the owner is running and takes the
 * lock back between its sections: the heir then <em>naps</em> for {@link #HEIR_NAP_NANOS}, a wait that no release
 * ends, and spins again, until its deadline ({@link VnaReservation}); meanwhile the owner keeps the line and the
 * heir's core or carrier is free. A virtual heir naps by yielding its carrier in a loop ({@link #yieldFor}), not by a
 * timed park: a yield runs any virtual thread waiting for a carrier, the owner among them, and the carrier does not
 * go to sleep, so the nap ends on time. A virtual heir that a release woke and whose spin then found the lock held
 * throughout naps too, instead of parking again: where owners yield inside their sections the owner is often a
 * virtual thread waiting for a carrier, the heir's among them. Otherwise the heir announces a park and parks until
 * a release wakes it. The
 * heir that wins leaves its queue at once ({@link #becomeOwner}); one that gives up hands every role on
 * ({@link #leaveAsCandidate}).
 *
 * <p><b>Papers.</b> One awake successor that competes with newcomers is the wake-up discipline of
 * D. Dice, "Implementing Fast Java Monitors with Relaxed-Locks" (JVM '01), here over the per-node
 * queues of the VNA lock (Kovalev, Koval et al., "NUMA-aware lock for Java Lightweight Threads").
 * The polls back off exponentially as in T. E. Anderson, "The Performance of Spin Lock
 * Alternatives for Shared-Memory Multiprocessors" (IEEE TPDS 1990).
 *
 * <p><b>Properties.</b> Not fair by itself: newcomers barge, for as long as {@link VnaReservation}
 * allows. One spinning thread per lock at most (the heir), and none where only one carrier or
 * CPU exists; every other waiter is parked without a timeout. A virtual heir's nap keeps a carrier only while no
 * other virtual thread waits for one, and is bounded by the nap and by the heir's deadline. Besides a platform
 * heir's naps, the heir parks with a timeout only to recover from the benign race of an unfenced release (below).
 *
 * <p><b>The benign race.</b> An unlock that read a stale "quiet" hint stores 0 without waking
 * anybody (see "Unlock and the benign race" in {@code VnaLock}): a heir that registered
 * concurrently fails its CAS and parks while nobody will wake it. Two things recover from this,
 * and neither costs the uncontended path anything:
 * <ol>
 * <li>the heir spins before it parks (when more than one carrier exists), so a release that was
 *     merely late is seen during the spin; and
 * <li>the heir, and only the heir, may park with a timeout, starting at
 *     {@link #HEIR_PARK_MIN_NANOS} and doubling up to {@link #HEIR_PARK_MAX_NANOS}. A missed
 *     wake-up therefore costs at most one timeout, never liveness. Under the Java memory model
 *     the release store becomes visible eventually and a timed-out heir re-reads {@code state}
 *     with volatile semantics.
 * </ol>
 * The heir parks <em>without</em> a timeout when the owner cannot have read a stale hint:
 * <ul>
 * <li>when the owner came through a queue ({@code ownerQueue >= 0}, read after announcing the
 *     park): such an owner is counted in {@code queued} until it resets {@code ownerQueue}
 *     before its fenced release, so it takes the contended path and reads {@code parked};
 * <li>when the heir has read the lock word free (a volatile read) at any time since it
 *     registered ({@code sawFree}). The acquisition of the current owner then comes after that
 *     read in the synchronization order, and so after the registration; the owner's release
 *     reads the hint ({@code waiters}, then {@code queued}) with volatile loads after its
 *     acquisition, so it sees the heir counted and takes the contended path.
 * </ul>
 * <p>A heir waiting behind owners that barge sees the lock free between their critical sections,
 * so it almost never parks with a timeout. That matters for virtual threads: each timed park
 * arms a timer, and each early wake-up disarms it, through the scheduler's timer thread.
 *
 * <p><b>Measured</b> (the verdict method, 2 cores; docs/measurements.md M10, M15, M16): without the spin
 * {@code VnaLock} runs at 0.83 [0.79, 0.90] of itself on consumeCpu on 2 platform threads; without the naps at 0.95
 * [0.91, 0.98] on 8 virtual threads; without the nap of a woken virtual heir at 0.91 [0.89, 0.93] on the thesis's
 * high contention on 8 virtual threads; with timed parks for a virtual heir's nap instead of yields at 0.91 [0.88,
 * 0.95] on consumeCpu on 32 virtual threads. Two refinements of the spin went: an adaptive budget (tied, 1.00 [0.99,
 * 1.01] over 8 points) and a longer, denser spin while a carrier was to spare (it cost 5-6% on 2 threads and was
 * tied at its own claim, 0.96 [0.92, 1.00] without it). The variants measured before the method are entries 1-16.
 */
final class VnaHeirWait {

    private VnaHeirWait() {
    }

    /**
     * How long a heir naps after a spin that saw the lock free but lost it to a barger, before it
     * spins again (see {@link #nap}): 100 microseconds, a few hundred short critical
     * sections of an owner that barges, and the longest a lock its owner has left stays free
     * while its heir naps and no other thread comes.
     */
    static final long HEIR_NAP_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    /** The heir's first park timeout; it doubles on each timed-out park. */
    static final long HEIR_PARK_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The largest park timeout of the heir. */
    static final long HEIR_PARK_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(64);

    /**
     * The heir's spin budget, in {@code onSpinWait} pauses (30 to 60 ns each on the AMD EPYC of
     * CI: a few microseconds).
     */
    static final int HEIR_SPINS = 128;
    /**
     * The most {@code onSpinWait}s between two polls of the lock word by a spinning heir (about
     * two microseconds on current x86): see {@link #spinForLock}.
     */
    static final int MAX_POLL_GAP = 64;

    /**
     * The candidate's loop: parked until made heir; as heir, spin, reserve the lock once
     * patience runs out, announce the park, re-check and park.
     */
    static int competeAsCandidate(VnaLockWord lock, Thread me, VnaWaiters w, VnaQueueNode q, boolean interruptible,
                                  boolean timed, long deadline, boolean interrupted) throws InterruptedException {
        long heirPark = HEIR_PARK_MIN_NANOS;
        final int spins = VnaCarriers.maySpin(me) ? HEIR_SPINS : 0; // none on one carrier or CPU
        boolean woken = false; // it parked as heir (a release or the park's timeout ended it), not spun since
        for (;;) {
            long nanos = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
            boolean heir = w.heir() == q;
            if (heir) {
                VnaReservation.reserveIfOverdue(lock, q);
                int spin = spinForLock(lock, me, q, spins);
                if (spin == SPIN_ACQUIRED) {
                    becomeOwner(w, q);
                    return VnaWaitOutcome.proceed(interrupted);
                }
                boolean wokenToHeldLock = woken && spin == SPIN_HELD && me.isVirtual();
                woken = false;
                if (wokenToHeldLock) {
                    VnaSeams seams = VnaSeams.installed;
                    if (seams != null) {
                        seams.heirWokenToHeldLock();
                    }
                }
                if ((spin == SPIN_LOST || wokenToHeldLock) && !(interrupted && interruptible)
                        && nap(lock, me, q, timed, deadline)) {
                    if (Thread.interrupted()) {
                        interrupted = true;
                    }
                    continue;
                }
                VnaReservation.reserveIfOverdue(lock, q);
                q.announcePark();
                if (lock.tryAcquireAsHeir(me, q)) {
                    VnaQueueNode.PARKED.setOpaque(q, false);
                    becomeOwner(w, q);
                    return VnaWaitOutcome.proceed(interrupted);
                }
            }
            if (nanos <= 0L || (interrupted && interruptible)) {
                VnaQueueNode.PARKED.setOpaque(q, false);
                leaveAsCandidate(lock, me, w, q);
                return VnaWaitOutcome.giveUp(interruptible, interrupted);
            }
            if (heir && !q.sawFree && w.ownerQueue() < 0) {
                // The owner may have read a stale "quiet" hint: park with the recovery timeout.
                q.park(lock, Math.min(nanos, heirPark));
                heirPark = Math.min(heirPark << 1, HEIR_PARK_MAX_NANOS);
            } else {
                // An owner that acquired after this thread saw the lock free, and a queued owner,
                // release through the fenced path and will see PARKED; a candidate that is not
                // heir is woken by its designation.
                q.park(lock, nanos);
            }
            if (heir) {
                woken = true;
                VnaQueueNode.PARKED.setOpaque(q, false);
            }
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
    }

    /**
     * The heir's spin: {@code spins} {@code onSpinWait}s, polling the lock word after 1, 2, 4, ...
     * of them, at most {@link #MAX_POLL_GAP} apart (exponential backoff, as in T. E. Anderson,
     * "The Performance of Spin Lock Alternatives for Shared-Memory Multiprocessors", IEEE TPDS
     * 1990). Every poll pulls the lock's cache line away from the owner, whose next CAS or release
     * must then fetch it back.
     *
     * @return {@link #SPIN_ACQUIRED}; {@link #SPIN_LOST} if a poll saw the lock free but the heir
     *         did not get it; {@link #SPIN_HELD} if every poll found it held
     */
    private static int spinForLock(VnaLockWord lock, Thread me, VnaQueueNode q, int spins) {
        if (lock.tryAcquireAsHeir(me, q)) {
            return SPIN_ACQUIRED;
        }
        int outcome = SPIN_HELD;
        int gap = 1;
        for (int left = spins; left > 0; left -= gap, gap = Math.min(gap << 1, MAX_POLL_GAP)) {
            for (int i = Math.min(gap, left); i > 0; i--) {
                Thread.onSpinWait();
            }
            int s = lock.state;
            if ((s & VnaLockWord.LOCKED) == 0) {
                q.sawFree = true;
                outcome = SPIN_LOST;
                if (lock.tryAcquireAsHeir(me, q)) {
                    return SPIN_ACQUIRED;
                }
            }
        }
        return outcome;
    }

    /** Outcomes of {@link #spinForLock}. */
    static final int SPIN_ACQUIRED = 0;
    static final int SPIN_LOST = 1;
    static final int SPIN_HELD = 2;

    /**
     * The heir's nap, a wait of {@link #HEIR_NAP_NANOS}, or until its deadline or the caller's if
     * sooner, that it does not announce, so no release wakes it: a timed park of a platform heir,
     * yields of a virtual one ({@link #yieldFor}). A heir naps when its spin saw the lock free and
     * lost it to a barger: the owner is running and takes the lock back between its critical
     * sections; the heir could only win in one of those gaps, and meanwhile its polls take the
     * lock's cache line from the owner and its spin a core, or a carrier, from every other thread.
     * A virtual heir also naps when it was woken from a park and its spin found the lock held
     * throughout (see "A virtual heir woken to a held lock" above). Its deadline still bounds the
     * wait: once it has passed the heir does not nap but reserves.
     *
     * @return whether it napped ({@code false} once the deadline, or the caller's, has passed)
     */
    private static boolean nap(VnaLockWord lock, Thread me, VnaQueueNode q, boolean timed, long deadline) {
        long now = System.nanoTime();
        long nap = Math.min(HEIR_NAP_NANOS, q.untilDeadline(now));
        if (timed) {
            nap = Math.min(nap, deadline - now);
        }
        if (nap <= 0L) {
            return false;
        }
        if (me.isVirtual()) {
            yieldFor(me, now, nap);
        } else {
            q.park(lock, nap);
        }
        return true;
    }

    /**
     * A virtual heir's nap ({@code me}, the caller): it yields its carrier until {@code nap} nanoseconds
     * from {@code start} have passed, or until it is interrupted. Each yield runs any virtual thread
     * waiting for a carrier, the owner among them, and returns at once when none waits, so the nap
     * takes no thread's place and the heir's carrier stays awake for its next spin (see "The nap of
     * a virtual heir" above).
     */
    private static void yieldFor(Thread me, long start, long nap) {
        do {
            Thread.yield();
        } while (System.nanoTime() - start < nap && !me.isInterrupted());
    }

    /** Bookkeeping of a queued thread that now owns the lock. */
    private static void becomeOwner(VnaWaiters w, VnaQueueNode q) {
        LockDiagnostics.queuedAcquisition();
        int n = q.queue;
        q.retire();
        w.clearHeir(q);
        VnaSeams seams = VnaSeams.installed;
        if (seams != null) {
            seams.afterHeirCleared();
        }
        w.recordQueuedOwner(n);
        VnaSuccession.startTurn(w, n);
        VnaReservation.forgetReservedFree(w); // it may have taken a reserved lock: a lapse clock is now stale
        w.passCandidacy(n, q);
    }

    /**
     * A cancelling candidate gives its roles away so that no wake-up is lost. It clears a
     * reservation if it is the heir, or if it reserved in this wait and no live heir is left to
     * take the reservation: a designator that was slow can install a node for a moment in a wait
     * it did not pick (see {@link VnaSuccession#wakeHeir}), and that node may have reserved meanwhile.
     */
    private static void leaveAsCandidate(VnaLockWord lock, Thread me, VnaWaiters w, VnaQueueNode q) {
        VnaQueueNode h = w.heir();
        if (h == q || (q.reserved && (h == null || !h.isCandidateOf(w)))) {
            VnaReservation.clearReservation(lock, w);
        }
        q.cancelCandidate();
        w.passCandidacy(q.queue, q);
        w.clearHeir(q);
        w.unregister();
        VnaSuccession.wakeHeir(w, me);
    }
}
