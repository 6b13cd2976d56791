package io.numaloom;

import java.util.concurrent.TimeUnit;

/**
 * The heir's competition for {@link VnaLock}: how the one waiting thread that is awake (the heir,
 * chosen by {@link VnaSuccession}) spins, naps, parks and finally takes the lock, against
 * newcomers that may barge.
 *
 * <p><b>Idea.</b> Handoff is competitive: a free lock goes to whichever thread takes it first, a
 * running newcomer or the heir, so the lock never waits for a parked thread to be woken. Only
 * the heir spins, briefly and with backoff; a spin that lost to a barger is followed by a nap,
 * not by more polling: a platform heir parks for it, a virtual one yields its carrier for it. A
 * virtual heir also naps when a release woke it and its spin found the lock held throughout.
 * Otherwise it announces a park and parks until a release wakes it. Its spin budget adapts to
 * what the last spin saw. The heir that wins leaves its queue at once
 * ({@link #becomeOwner}); one that gives up hands every role on ({@link #leaveAsCandidate}).
 *
 * <p><b>Papers.</b> One awake successor that competes with newcomers is the wake-up discipline of
 * D. Dice, "Implementing Fast Java Monitors with Relaxed-Locks" (JVM '01), here over the per-node
 * queues of the VNA lock (Kovalev, Koval et al., "NUMA-aware lock for Java Lightweight Threads").
 * The polls back off exponentially as in T. E. Anderson, "The Performance of Spin Lock
 * Alternatives for Shared-Memory Multiprocessors" (IEEE TPDS 1990).
 *
 * <p><b>Properties.</b> Not fair by itself: newcomers barge, for as long as {@link VnaReservation}
 * allows. One spinning thread per lock at most (the heir), and none where only one carrier or
 * CPU exists; every other waiter is parked without a timeout. A virtual heir's nap is a loop of
 * {@code Thread.yield()}, bounded by the nap and by the heir's deadline: it keeps a carrier only
 * while no other virtual thread waits for one. Besides a platform heir's naps, the heir parks
 * with a timeout only to recover from the benign race of an unfenced release (below).
 *
 * <p><b>Competitive handoff, bounded in time.</b> Newcomers may barge: take a free lock by CAS
 * ahead of the heir. That keeps running threads running, which is where the throughput of an
 * unfair lock comes from, since waking a parked thread costs microseconds. The heir spins
 * briefly. A spin that saw the lock free but lost it to a barger means the owner is running
 * and takes the lock back between its critical sections: the heir then <em>naps</em> for
 * {@link #HEIR_NAP_NANOS} (100 µs), a wait that no release ends (a timed park, or yields on
 * virtual threads: see "The nap of a virtual heir"), and spins again, until its
 * deadline (see {@link VnaReservation} and {@link #nap}). Meanwhile the owner keeps
 * the lock's cache line and the heir's core, or carrier, is free for other threads. Otherwise
 * the heir announces a park and parks until a release wakes it. A spin that lost to a barger past
 * the deadline doubles the next spin budget (up to {@link #MAX_HEIR_SPINS}), so a heir that keeps
 * losing to bargers costs its waker fewer unparks; a spin during which the lock stayed held halves
 * it (down to {@link #MIN_HEIR_SPINS}): the owner is in a long critical section or not running,
 * and a longer spin would only take a CPU, or a carrier, that the owner may need to finish (see
 * {@link #nextHeirSpins}). While it spins, the heir polls the lock word with exponential backoff,
 * so that an owner that runs one short critical section after another mostly keeps the lock's
 * cache line.
 *
 * <p><b>Why the nap.</b> Without it a heir that lost to a barger announces its park at once, and
 * the owner's next release unparks it. One run (commit 41c2c84, pre-method bench, 2 cores) read
 * 0.04 parks and unparks per operation on RandBash without the nap and none with it. The variants
 * of the heir's competition measured and not kept (a deference to a running owner, a fixed spin
 * budget, other naps, spins and poll gaps) are in docs/measurements.md, entries 1-16.
 *
 * <p><b>The nap of a virtual heir.</b> A virtual heir naps by yielding its carrier in a loop until
 * the nap is over ({@link #yieldFor}), not by a timed park. A yield runs any virtual thread that
 * waits for a carrier and returns at once when none does, so the nap still leaves the owner the
 * lock's cache line and gives the carrier to whoever needs it, but the carrier does not go to sleep
 * in the OS, and the nap ends on time: a timed park of a virtual thread ends through the
 * scheduler's timer thread, and its carrier must then be woken. That matters when the owner goes
 * away (its thread ends, or waits for something else) while the heir naps: the lock stays free
 * until the heir's nap is over. A carrier that naps this way is busy, where a parked one would
 * idle. Platform heirs park: the yields were measured on virtual threads only, and a platform
 * thread that yields on an idle CPU spins it. One run (commit 4501296, pre-method bench, 2 cores,
 * consumeCpu on 32 virtual threads, 30 rounds) summed the gaps after the previous owner's thread
 * had ended to 130 ms with a timed park and 60 ms with the yields; see docs/measurements.md,
 * entry 7.
 *
 * <p><b>A virtual heir woken to a held lock.</b> A release that finds the heir parked wakes it, but
 * the lock is free only until the next newcomer, the releasing owner among them, takes it. A woken
 * heir that then spins and finds the lock held throughout would park again, and the next release
 * would have to unpark it again. Where owners yield inside their critical sections (the thesis's
 * high contention: 1,000 tokens and a yield inside, virtual threads), the owner is often a virtual
 * thread that waits for a carrier, the heir's among them. So a virtual heir woken to a held lock
 * naps, as after a lost spin: its yields give the carrier to the owner, no release has to wake it,
 * and it spins again after the nap. Only the first spin after a park counts. A heir whose spin
 * after a nap finds the lock held parks. The nap is bounded by the deadlines, as every nap is.
 * Platform heirs woken to a held lock park. One-fork runs (commit 123adae, pre-method bench,
 * 2 cores) read the thesis's high contention at 8 and 32 virtual threads 1.10 and 1.10 of the
 * build without this nap, in two runs; see docs/measurements.md, entries 8-10.
 *
 * <p><b>Spinning while a carrier is to spare.</b> While the threads waiting for the lock are
 * fewer than the carriers of a virtual heir (the CPUs of a platform one), the owner and every
 * waiter can run at once, and a heir that spins takes no thread's place ({@link #carrierToSpare}).
 * It then spins {@link #IDLE_HEIR_SPINS} pauses at least, about what parking and being woken costs
 * a virtual thread, and polls at most {@link #IDLE_MAX_POLL_GAP} pauses apart instead of
 * {@link #MAX_POLL_GAP}, so that it sees the lock free in the gap between an owner's release and
 * its next acquisition when the owner works outside the lock: the owner's work outside then
 * overlaps the heir's critical section. With a single queue, a thread that becomes the candidate
 * of the empty queue becomes heir at once ({@link VnaSuccession}), so it spins while the owner
 * runs instead of parking until the owner's release designates it. This is HotSpot's rule for
 * monitors, spin while a processor is idle, and what the thesis's NUMA_MCS gets from a leader
 * that always spins. The dense polls can cost a short critical section that its owner runs back
 * to back, as the heir takes the lock between two of them more often. One run (commit 0e65f93,
 * pre-method bench, 2 cores, the thesis's high contention at 2 virtual threads) read 0.41-0.43
 * parks per operation without this spin and 0.003-0.004 with it; its throughput figures, and the
 * variants measured and not kept, are in docs/measurements.md, entries 11-15.
 *
 * <p><b>Spinning when every CPU is busy (platform threads).</b> Both spins, the newcomer's poll
 * ({@link VnaNewcomerPoll}) and this one while a carrier is to spare, count only the threads
 * waiting for the lock. Platform threads that work outside the lock want the CPUs too, and
 * once they outnumber them a spin takes the CPU of a thread that has work. A platform newcomer
 * yields in its poll for that reason; this spin does not know whether a CPU is idle. Side-by-side
 * single runs (commit 6edadd9, pre-method bench, 2 cores) read VNA at 0.73 to 0.90 of unfair
 * {@code ReentrantLock} on the queue sweep's capacity 1024 (configs/queue-sweep.json) at 4 and 8
 * platform threads in seven of eight comparisons: what a rule which knows whether a CPU is idle
 * has to beat. The rules tried are in docs/measurements.md, entry 16.
 *
 * <p><b>The benign race.</b> An unlock that read a stale "quiet" hint stores 0 without waking
 * anybody (see "Unlock and the benign race" in {@link VnaLock}): a heir that registered
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
 * arms a timer, and each early wake-up disarms it, through the scheduler's timer thread, whose
 * wake-ups (thousands per second if every park of a busy heir were timed) preempt the
 * carriers.
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
     * The heir's first spin budget, in {@code onSpinWait} pauses (30 to 60 ns each on the AMD EPYC of
     * CI: a few microseconds); {@link #nextHeirSpins} adapts it.
     */
    static final int HEIR_SPINS = 128;
    /** The smallest spin budget of a heir that may spin (a quarter of a microsecond or more). */
    static final int MIN_HEIR_SPINS = 8;
    /** The largest spin budget of the heir (tens of microseconds or more). */
    static final int MAX_HEIR_SPINS = 1 << 12;
    /**
     * The most {@code onSpinWait}s between two polls of the lock word by a spinning heir (about
     * two microseconds on current x86): see {@link #spinForLock}.
     */
    static final int MAX_POLL_GAP = 64;

    /**
     * The spin budget of a heir while a carrier (or CPU) is to spare, see {@link #carrierToSpare}: 1,024 pauses, tens
     * of microseconds, about what parking and being woken again costs a virtual thread.
     */
    static final int IDLE_HEIR_SPINS = 1 << 10;
    /**
     * The most {@code onSpinWait}s between two polls of a heir while a carrier (or CPU) is to spare: 8, a few hundred
     * nanoseconds, so that the heir sees the lock free between an owner's release and its next acquisition when the
     * owner does some work in between.
     */
    static final int IDLE_MAX_POLL_GAP = 8;

    /**
     * The candidate's loop: parked until made heir; as heir, spin, reserve the lock once
     * patience runs out, announce the park, re-check and park.
     */
    static int competeAsCandidate(VnaLock lock, Thread me, VnaWaiters w, VnaQueueNode q, boolean interruptible,
                                  boolean timed, long deadline, boolean interrupted) throws InterruptedException {
        long heirPark = HEIR_PARK_MIN_NANOS;
        int spins = VnaLock.mayspin(me) ? HEIR_SPINS : 0;
        boolean woken = false; // it parked as heir (a release or the park's timeout ended it), not spun since
        for (;;) {
            long nanos = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
            boolean heir = w.heir() == q;
            boolean lockStayedHeld = false;
            if (heir) {
                VnaReservation.reserveIfOverdue(lock, q);
                boolean idle = spins > 0 && carrierToSpare(w, me);
                int spin = idle ? spinForLock(lock, me, q, Math.max(spins, IDLE_HEIR_SPINS), IDLE_MAX_POLL_GAP)
                        : spinForLock(lock, me, q, spins, MAX_POLL_GAP);
                if (spin == SPIN_ACQUIRED) {
                    becomeOwner(w, q);
                    return interrupted ? VnaLock.INTERRUPTED_BUT_CONTINUE : VnaLock.PROCEED;
                }
                lockStayedHeld = spin == SPIN_HELD;
                boolean wokenToHeldLock = woken && lockStayedHeld && me.isVirtual();
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
                    return interrupted ? VnaLock.INTERRUPTED_BUT_CONTINUE : VnaLock.PROCEED;
                }
            }
            if (nanos <= 0L || (interrupted && interruptible)) {
                VnaQueueNode.PARKED.setOpaque(q, false);
                leaveAsCandidate(lock, me, w, q);
                return VnaLock.giveUp(interruptible, interrupted);
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
                spins = nextHeirSpins(spins, lockStayedHeld, VnaLock.mayspin(me));
            }
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
    }

    /**
     * The heir's spin: {@code spins} {@code onSpinWait}s, polling the lock word after 1, 2, 4, ...
     * of them, at most {@code maxPollGap} apart (exponential backoff, as in T. E. Anderson,
     * "The Performance of Spin Lock Alternatives for Shared-Memory Multiprocessors", IEEE TPDS
     * 1990). Every poll pulls the lock's cache line away from the owner, whose next CAS or release
     * must then fetch it back.
     *
     * @return {@link #SPIN_ACQUIRED}; {@link #SPIN_LOST} if a poll saw the lock free but the heir
     *         did not get it; {@link #SPIN_HELD} if every poll found it held
     */
    private static int spinForLock(VnaLock lock, Thread me, VnaQueueNode q, int spins, int maxPollGap) {
        if (lock.tryAcquireAsHeir(me, q)) {
            return SPIN_ACQUIRED;
        }
        int outcome = SPIN_HELD;
        int gap = 1;
        for (int left = spins; left > 0; left -= gap, gap = Math.min(gap << 1, maxPollGap)) {
            for (int i = Math.min(gap, left); i > 0; i--) {
                Thread.onSpinWait();
            }
            int s = lock.state;
            if ((s & VnaLock.LOCKED) == 0) {
                q.sawFree = true;
                outcome = SPIN_LOST;
                if (lock.tryAcquireAsHeir(me, q)) {
                    return SPIN_ACQUIRED;
                }
            }
        }
        return outcome;
    }

    /**
     * Whether the heir has a carrier (or CPU) to spare: the threads waiting for this lock, the heir among them, are
     * fewer than the carriers of a virtual heir (the CPUs of a platform one), so the owner and every waiter can run
     * at once and a spinning heir takes nobody's place. Threads that do not use this lock may still want the
     * carrier; the heir's spin stays bounded ({@link #IDLE_HEIR_SPINS}) for them.
     */
    static boolean carrierToSpare(VnaWaiters w, Thread me) {
        return w.waitingThreads() < VnaLock.carriers(me);
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
    private static boolean nap(VnaLock lock, Thread me, VnaQueueNode q, boolean timed, long deadline) {
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

    /**
     * The heir's spin budget after a wake-up that did not give it the lock. A spin that saw the
     * lock free and lost it to a barger doubles the budget, up to {@link #MAX_HEIR_SPINS}: the
     * lock changes hands often, and a heir that spins longer parks, and is unparked, less often.
     * (Before its deadline such a heir naps instead and keeps its budget: {@link #nap}.)
     * A spin during which the lock stayed held halves it, down to {@link #MIN_HEIR_SPINS}: the
     * owner is in a long critical section, or is not running (a virtual owner that yields inside
     * its critical section waits for a free carrier), and spinning longer would only take the CPU
     * or carrier it needs. It can cost where an owner barges back into short sections: some spins
     * then poll only while a barging owner holds the lock. Eight alternating single runs (commit
     * 8f4d7a6, pre-method bench; 2 cores, 8 virtual threads, a critical section of about 2.5
     * microseconds with a yield inside) read VNA at 0.90 of {@code ReentrantLock}'s throughput
     * without the halving and 0.97 with it; its cost elsewhere and the refinements not kept are in
     * docs/measurements.md, entries 2-4. A thread that may not spin (one carrier or one CPU) keeps
     * a budget of 0.
     */
    static int nextHeirSpins(int spins, boolean lockStayedHeld, boolean maySpin) {
        if (!maySpin) {
            return 0;
        }
        return lockStayedHeld ? Math.max(spins >> 1, MIN_HEIR_SPINS) : Math.min((spins << 1) | 1, MAX_HEIR_SPINS);
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
    private static void leaveAsCandidate(VnaLock lock, Thread me, VnaWaiters w, VnaQueueNode q) {
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
