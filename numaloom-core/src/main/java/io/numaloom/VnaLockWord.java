package io.numaloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The state every part of {@code VnaLock} shares: the lock word, the owner and the waiters' record, with the
 * compare-and-sets that decide who holds the lock. It is the superclass of {@code VnaLock}, not an object the lock
 * points to, so that the fast path reads no other object and a fresh lock stays 40 bytes (JOL,
 * {@code VnaLockFootprintTest}). The mechanisms of the contended path take a {@code VnaLockWord}; none of them
 * refers to {@code VnaLock}.
 *
 * <p><b>The word.</b> {@link #LOCKED} while held; {@link #RESERVED} while an overdue heir forbids barging
 * ({@link VnaReservation}); {@link #DEFLATED} while a {@link KeyedLock} deflater has claimed a free record. Each
 * transition is one named compare-and-set or store of this class:
 * <ul>
 * <li>{@link #tryAcquireFree()}: {@code 0 -> LOCKED}, the fast path (the race between newcomers);
 * <li>{@link #tryAcquireAsHeir}: {@code 0, RESERVED or DEFLATED -> LOCKED}, the heir's (the race between the heir
 *     and the newcomers);
 * <li>{@link #casWord}: the reservation's and the deflation's transitions, each named at its call;
 * <li>{@link #releaseUncontended()}: a release store of 0, no atomic (the benign race, {@code VnaLock}'s notes);
 * <li>{@link #releaseContended()}: an atomic add of {@code -LOCKED}, which keeps a reservation and is a full fence
 *     before the release reads the heir.
 * </ul>
 *
 * <p><b>Owner.</b> {@code owner} is written by the thread that has just taken the word, and cleared by the owner
 * before it releases; a plain field, read for the owner checks.
 *
 * <p><b>Waiters.</b> {@code waiters} is null until the first thread has to wait ({@link #installWaiters}); then the
 * padded record of the queues, the heir and the counts ({@link VnaWaiters}).
 */
abstract class VnaLockWord extends ConditionLock {

    /** The word's bit while the lock is held. */
    static final int LOCKED = 1;
    /** The word's bit while an overdue heir has reserved the lock: the fast path fails, only the heir takes it. */
    static final int RESERVED = 2;
    /**
     * The word of a {@link KeyedLock} record that its deflater claimed: never set by a {@code VnaLock} path, and not
     * 0, so the fast path fails on it. A heir reads it as free and may take it, which only a thread that pinned the
     * record can be, and a pin makes the deflation back out.
     */
    static final int DEFLATED = 4;

    /** The lock word. On the hot paths accessed through {@link #STATE_UPDATER} and plain volatile reads. */
    volatile int state;
    /** The owning thread, or null: written by the thread that has just taken the word, cleared by the owner. */
    Thread owner;
    /** Null until the first thread has to wait. Read directly (a volatile load) by the release. */
    volatile VnaWaiters waiters;

    VnaLockWord() {
    }

    /** The fast path: {@code CAS 0 -> LOCKED}. The caller then writes {@code owner}. */
    final boolean tryAcquireFree() {
        return STATE_UPDATER.compareAndSet(this, 0, LOCKED);
    }

    /**
     * The heir's acquisition: also takes a reserved lock, and clears the reservation ({@code CAS s -> LOCKED} for a
     * word {@code s} without {@link #LOCKED}). Notes in {@code q.sawFree} that it read the lock free, even if a barger
     * then took it first.
     */
    final boolean tryAcquireAsHeir(Thread me, VnaQueueNode q) {
        int s = state;
        if ((s & LOCKED) != 0) {
            return false;
        }
        q.sawFree = true;
        VnaSeams seams = VnaSeams.installed;
        if (seams != null) {
            seams.heirReadFree();
        }
        if (STATE_UPDATER.compareAndSet(this, s, LOCKED)) {
            owner = me;
            if (s == DEFLATED) {
                acquiredDeflated();
            }
            return true;
        }
        return false;
    }

    /**
     * Called by a thread that took the word from {@link #DEFLATED}, which only a thread that pinned a
     * {@link KeyedLock} record can do, while it is still pinned: the record adds a pin that its deflater drops.
     */
    void acquiredDeflated() {
    }

    /** {@return the word, a volatile read} */
    final int word() {
        return (int) STATE.getVolatile(this);
    }

    /** A compare-and-set of the word; each caller names the race it decides. */
    final boolean casWord(int expected, int update) {
        return STATE.compareAndSet(this, expected, update);
    }

    /** A release store of the word: {@code KeyedLock}'s revival of a deflated record. */
    final void setWordRelease(int word) {
        STATE.setRelease(this, word);
    }

    /** The uncontended release: a release store of 0, no atomic instruction, no fence. */
    final void releaseUncontended() {
        STATE_UPDATER.lazySet(this, 0);
    }

    /** The contended release: clears {@link #LOCKED}, keeping a reservation, with a full fence; returns the word before. */
    final int releaseContended() {
        return STATE_UPDATER.getAndAdd(this, -LOCKED);
    }

    /** {@return the waiters' record or null, a volatile read} */
    final VnaWaiters waitersVolatile() {
        return (VnaWaiters) WAITERS.getVolatile(this);
    }

    /** {@return the waiters' record or null, an acquiring read} */
    final VnaWaiters waitersAcquire() {
        return (VnaWaiters) WAITERS.getAcquire(this);
    }

    /** Installs {@code fresh} if no record is there yet; returns the record that is. */
    final VnaWaiters installWaiters(VnaWaiters fresh) {
        VnaWaiters witness = (VnaWaiters) WAITERS.compareAndExchange(this, (VnaWaiters) null, fresh);
        return witness == null ? fresh : witness;
    }

    private static final VarHandle STATE;
    private static final VarHandle WAITERS;
    /**
     * The hot paths' access to {@code state}. Interpreted, which is how a fresh JVM runs its first thousands of
     * acquisitions, an updater's call is one call to an intrinsic where a VarHandle's passes through several generic
     * frames; compiled, both are the same access (docs/measurements.md, entry 24).
     */
    private static final AtomicIntegerFieldUpdater<VnaLockWord> STATE_UPDATER =
            AtomicIntegerFieldUpdater.newUpdater(VnaLockWord.class, "state");

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(VnaLockWord.class, "state", int.class);
            WAITERS = l.findVarHandle(VnaLockWord.class, "waiters", VnaWaiters.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
