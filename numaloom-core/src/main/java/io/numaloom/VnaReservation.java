package io.numaloom;

import java.util.concurrent.TimeUnit;

/**
 * The time bound of {@code VnaLock}: a heir that newcomers have overtaken for too long
 * <em>reserves</em> the lock, and a reservation that its heir does not take lapses.
 *
 * <p><b>Idea.</b> Letting running threads barge past the waiters is where an unfair lock's
 * throughput comes from, and what starves its waiters. So barging is allowed only for a while:
 * once the heir's deadline has passed, it sets a second bit in the lock word, and from then on
 * the fast path fails for everybody and only the heir may take the lock. The heir is running
 * when it reserves, so the lock is never handed to a parked thread. A thread that is not running
 * cannot take a lock reserved for it, though, so a reservation of a free lock lasts only a grace
 * period for {@code tryLock()}.
 *
 * <p><b>Papers.</b> A bound in time on how long a node may keep the lock, in the manner of the
 * compact NUMA-aware lock of D. Dice and A. Kogan, "Compact NUMA-aware Locks" (EuroSys '19), as
 * merged into Linux (its 1 ms {@code numa_spinlock_threshold_ns} is {@link VnaSuccession#PATIENCE_NANOS}),
 * and a switch that turns stealing off for a waiter that has waited too long, as in S. Kashyap et
 * al., "Scalable and Practical Locking with Shuffling" (SOSP '19).
 *
 * <p><b>Properties.</b> Starvation-free: every queued thread acquires within a bound in time
 * (below), where an unfair {@code ReentrantLock} has none. No lock convoys: the lock is reserved
 * only by a running heir, so a wake-up on the critical path costs at most one wake-up per
 * reservation. {@code tryLock()} is refused a free lock for at most
 * {@link #RESERVATION_GRACE_NANOS} of a reservation nobody takes.
 *
 * <p><b>Reserving.</b> Once its <em>deadline</em> has passed, the heir sets
 * {@link VnaLockWord#RESERVED} on the held lock. The deadline is {@link VnaSuccession#PATIENCE_NANOS} after
 * it was designated (the time it took to be scheduled counts), or {@link VnaSuccession#STARVATION_NANOS}
 * after it queued if that comes first: a thread that waited behind others for that long reserves as
 * soon as it is heir. Once reserved, the fast path ({@code CAS 0 -> LOCKED}) fails for everybody,
 * the release keeps the bit, and only the heir may take the lock ({@code CAS RESERVED -> LOCKED}).
 * The heir is running or about to be: the lock is never given to a parked thread, so a convoy (a
 * wake-up on the critical path) costs at most one wake-up per reservation, not one every few
 * acquisitions. A heir reserves before it spins, so that it is polling when the owner releases: the
 * wake-up is paid only when the critical section outlasts the spin. A heir that gives up clears its
 * reservation before it leaves, and so does a node that reserved while a slow designator had
 * installed it for a moment in a wait it had not picked, if no live heir remains to take the
 * reservation.
 *
 * <p><b>A reservation that lapses.</b> A free lock stays reserved only while its heir can take
 * it. A heir that is not running cannot, and {@code tryLock()}, which must not refuse a lock that
 * no thread holds for long, would fail for as long as the heir does not run: forever, if the
 * thread retrying {@code tryLock()} holds the only carrier the heir can run on. So the first
 * {@code tryLock()} that finds the lock free and reserved starts a clock
 * ({@code reservedFreeSince}), and one that finds it so {@link #RESERVATION_GRACE_NANOS} later
 * takes the lock ({@code CAS RESERVED -> LOCKED}, racing only the heir's own CAS from the same
 * value). Whoever takes or clears a free reservation stops the clock while the lock word still
 * keeps the next episode out. The heir, when it runs, finds the lock held, is still overdue and
 * reserves again. A release that wakes a heir that had reserved and parked yields its carrier
 * (or CPU) at once, so that the heir usually runs before the grace is out.
 *
 * <p><b>The fairness bound.</b> Let a candidate C of queue k wait. The heir of the queue being
 * served reserves the lock after {@code PATIENCE_NANOS} as heir and then acquires within one
 * critical section and its own scheduling delay. Heirs are picked from the serving queue only
 * while its turn is younger than {@code TURN_NANOS}, so a turn lasts at most
 * {@code TURN_NANOS + PATIENCE_NANOS} (plus those delays); then the pick moves round-robin,
 * and C is picked after at most {@code queues - 1} turns, and acquires within
 * {@code PATIENCE_NANOS} of that. Within its own queue a thread is served in FIFO order. Let
 * a thread T of one queue have k threads ahead of it. Each of them queued before T, so its
 * deadline is at most T's queueing time plus {@code STARVATION_NANOS}; from then on each of them
 * reserves as soon as it is designated and acquires within one critical section and its own
 * scheduling delay, and T becomes heir after those k acquisitions, already overdue.
 *
 * <p><b>What the starvation deadline costs.</b> Each reservation it causes moves the lock to a waiter, so it
 * trades throughput for shorter longest waits. It is kept for the bound it gives (the README's second bound), not
 * for throughput; the runs before the verdict method are docs/measurements.md, entries 20-21.
 */
final class VnaReservation {

    private VnaReservation() {
    }

    /**
     * How long a lock that no thread holds may stay reserved for a heir that does not take it before
     * {@code tryLock()} takes it anyway: 250 microseconds ({@code VnaLock.RESERVATION_GRACE_NANOS}).
     */
    static final long RESERVATION_GRACE_NANOS = TimeUnit.MICROSECONDS.toNanos(250);

    /**
     * {@code VnaLock.tryLock()} on a lock that no thread holds but a heir has reserved: takes it if it
     * has stayed so for {@link #RESERVATION_GRACE_NANOS} since a caller first saw it so (the
     * first caller to see it starts that clock). The heir that reserved is not running, or it
     * would have taken the lock; it reserves again when it runs.
     */
    static boolean takeLapsedReservation(VnaLockWord lock, Thread me) {
        if (lock.word() != VnaLockWord.RESERVED) {
            return false; // held, or free and unreserved: a barger won the race, as with ReentrantLock
        }
        VnaWaiters w = lock.waitersVolatile(); // a reservation implies a heir, and so waiters
        if (w == null || !reservationLapsed(w, lock, System.nanoTime())) {
            return false;
        }
        if (!lock.casWord(VnaLockWord.RESERVED, VnaLockWord.LOCKED)) { // RACE: lapse against the heir's CAS
            return false;
        }
        lock.owner = me;
        forgetReservedFree(w);
        LockDiagnostics.lapsedReservation();
        return true;
    }

    /**
     * A heir past its deadline reserves the lock. It does so before it spins, so that it is
     * polling when the owner releases, and after, in case the deadline passed during the spin.
     */
    static void reserveIfOverdue(VnaLockWord lock, VnaQueueNode q) {
        if (q.overdue(System.nanoTime())) {
            reserve(lock);
            q.reserved = true;
        }
    }

    /** Sets {@link VnaLockWord#RESERVED} on a held lock: from its release on, only the heir may take it. */
    private static void reserve(VnaLockWord lock) {
        for (;;) {
            int s = lock.word();
            if (s != VnaLockWord.LOCKED) {
                return; // free (the heir will take it) or already reserved
            }
            if (lock.casWord(s, s | VnaLockWord.RESERVED)) {
                LockDiagnostics.reservation();
                return;
            }
        }
    }

    /**
     * Called by a heir that gives up: the lock becomes free for everybody again. A lapse clock a
     * {@code tryLock()} started on the free reserved lock is stopped first, while the reservation
     * still keeps every later episode out.
     */
    static void clearReservation(VnaLockWord lock, VnaWaiters w) {
        for (;;) {
            int s = lock.word();
            if ((s & VnaLockWord.RESERVED) == 0) {
                return;
            }
            if (s == VnaLockWord.RESERVED) {
                forgetReservedFree(w);
            }
            if (lock.casWord(s, s & ~VnaLockWord.RESERVED)) {
                return;
            }
        }
    }

    /**
     * Called by a {@code tryLock()} that found {@code lock} free and reserved at {@code now}:
     * whether it has been seen so for {@link #RESERVATION_GRACE_NANOS}. The first such
     * caller starts the clock (and stops it again if the episode ended meanwhile: a clock
     * left running would let the next episode lapse early). Whoever takes or clears a free
     * reservation stops it ({@link #forgetReservedFree}), while the lock is held or still
     * reserved, so no clock outlives its episode, except through a caller descheduled
     * between its read of the lock word and its start of the clock across a whole episode:
     * that only lets one later {@code tryLock()} take a reservation early.
     */
    static boolean reservationLapsed(VnaWaiters w, VnaLockWord lock, long now) {
        long since = (long) VnaWaiters.RESERVED_FREE_SINCE.getVolatile(w);
        if (since != VnaWaiters.NOT_SEEN) {
            return now - since >= RESERVATION_GRACE_NANOS;
        }
        if (VnaWaiters.RESERVED_FREE_SINCE.compareAndSet(w, VnaWaiters.NOT_SEEN, now)
                && lock.word() != VnaLockWord.RESERVED) {
            VnaWaiters.RESERVED_FREE_SINCE.compareAndSet(w, now, VnaWaiters.NOT_SEEN);
        }
        return false;
    }

    /** Stops the clock of {@link #reservationLapsed}. */
    static void forgetReservedFree(VnaWaiters w) {
        if ((long) VnaWaiters.RESERVED_FREE_SINCE.getOpaque(w) != VnaWaiters.NOT_SEEN) {
            VnaWaiters.RESERVED_FREE_SINCE.setVolatile(w, VnaWaiters.NOT_SEEN);
        }
    }
}
