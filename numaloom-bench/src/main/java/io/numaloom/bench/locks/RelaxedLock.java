package io.numaloom.bench.locks;

import java.lang.invoke.VarHandle;
import java.util.concurrent.Semaphore;

/**
 * RELAXED: Dice's Relaxed-Lock protocol, adapted from a JVM object header to a Java lock object.
 *
 * <p>Paper: D. Dice, "Implementing Fast Java Monitors with Relaxed-Locks", JVM '01 (§2-3 and
 * Listing 1). The paper's monitor record ({@code monRec}) becomes this object's lock word:
 * {@code Owner} (the holding thread, null when free), {@code Nest} (the hold count), {@code rcThis} (how
 * many threads are blocked or about to block), {@code Candidate} (the futile-wakeup throttle) and
 * {@code EntryQ} (the semaphore blocked threads wait on). What the adaptation keeps:
 * <ul>
 * <li>One CAS to lock: {@code Owner} from null to the current thread (Listing 1, case 3; in Java the lock
 *     object is always "inflated", so case 1's install-a-monRec CAS and case 3 coincide). Reentry by the
 *     holder increments {@code Nest} with no atomic instruction (case 2). {@code Nest} rests at 1 when
 *     free, as in the paper, so the first acquisition does not write it.
 * <li>No atomic read-modify-write to unlock when nobody waits: the holder samples {@code rcThis} (safe
 *     while it holds the lock: rcThis cannot fall to zero under it), and if it is zero releases with a
 *     store, a StoreLoad fence, and a re-read of {@code rcThis} (Listing 1, lines 96-99). A non-zero re-read
 *     means a thread arrived in the window: it is woken, which is the Java form of the paper's flush.
 * <li>Competitive handoff: unlock frees the lock and wakes a potential successor (the heir apparent), which
 *     must compete for the lock again with arriving threads; waking grants no ownership.
 * <li>Futile-wakeup throttling (§3.3): at most one heir apparent is awake at a time. A blocking thread sets
 *     {@code Candidate} to 1 before its last attempt; unlock posts the semaphore only if it wins the CAS of
 *     {@code Candidate} from 1 to 0 (Listing 1, lines 17-22).
 * </ul>
 * What it drops: speculative deflation, flushing and the suspect list exist to recycle monitor records
 * across objects; a Java lock object has its own record for life, so no record is ever stale.
 *
 * <p>Properties: not fair (competitive handoff; an arriving thread may take the lock before the woken
 * heir); not NUMA-aware; parks: a contended thread spins briefly on {@code Owner}, then blocks on
 * {@code EntryQ}, which is a {@link Semaphore} (the paper's Solaris {@code lwp_sema_t}; its waiters park).
 * Reentrant, like a Java monitor. No timed or interruptible acquisition: Java monitors have none, and the
 * protocol defines none.
 *
 * <p>Misuse detected: {@link #unlock()} by a thread that does not hold the lock throws
 * {@link IllegalMonitorStateException} (as {@code monExit} does, Listing 1, line 119).
 */
public final class RelaxedLock extends BaselineLock {
    /** state: Candidate; aux: rcThis; owner: Owner; holds: Nest. */
    private final LockWord word = new LockWord();
    private final Semaphore entryQ = new Semaphore(0);

    public RelaxedLock() {
        word.holds = 1;
    }

    @Override
    public void lock() {
        Thread me = Thread.currentThread();
        if (LockWord.OWNER.compareAndSet(word, null, me)) {
            return;
        }
        if (LockWord.OWNER.getOpaque(word) == me) {
            word.holds++;
            return;
        }
        contended(me);
    }

    /** Listing 1, case 4: count ourselves in rcThis, then alternate attempts with blocking on EntryQ. */
    private void contended(Thread me) {
        LockWord.AUX.getAndAdd(word, 1);
        for (;;) {
            for (int spins = 0; spins < Spin.SPINS && LockWord.OWNER.getOpaque(word) != null; spins++) {
                Thread.onSpinWait();
            }
            LockWord.STATE.setVolatile(word, 1); // Candidate = 1, then StoreLoad before sampling Owner
            if (LockWord.OWNER.getVolatile(word) == null && LockWord.OWNER.compareAndSet(word, null, me)) {
                LockWord.AUX.getAndAdd(word, -1);
                return;
            }
            entryQ.acquireUninterruptibly();
        }
    }

    @Override
    public boolean tryLock() {
        Thread me = Thread.currentThread();
        if (LockWord.OWNER.compareAndSet(word, null, me)) {
            return true;
        }
        if (LockWord.OWNER.getOpaque(word) == me) {
            word.holds++;
            return true;
        }
        return false;
    }

    @Override
    public void unlock() {
        if (LockWord.OWNER.getOpaque(word) != Thread.currentThread()) {
            throw new IllegalMonitorStateException("unlock() by " + Thread.currentThread()
                    + ", which does not hold the lock");
        }
        if (word.holds > 1) {
            word.holds--;
            return;
        }
        if ((int) LockWord.AUX.getVolatile(word) == 0) {
            LockWord.OWNER.setRelease(word, null);
            VarHandle.fullFence();
            if ((int) LockWord.AUX.getVolatile(word) == 0) {
                return; // no atomic read-modify-write on the uncontended exit
            }
        } else {
            LockWord.OWNER.setVolatile(word, null);
        }
        wakeHeir();
    }

    /** monWakeup: post EntryQ only if no heir apparent is already awake. */
    private void wakeHeir() {
        if ((int) LockWord.STATE.getVolatile(word) == 1 && LockWord.STATE.compareAndSet(word, 1, 0)) {
            entryQ.release();
        }
    }

    @Override
    public String toString() {
        Object owner = LockWord.OWNER.getVolatile(word);
        return "RelaxedLock[" + (owner == null ? "free" : "held by " + owner) + ", blocked=" + word.aux() + "]";
    }
}
