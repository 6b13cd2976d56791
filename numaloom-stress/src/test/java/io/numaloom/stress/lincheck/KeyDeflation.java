package io.numaloom.stress.lincheck;

import io.numaloom.stress.subject.KeyedSubject;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;

import java.util.concurrent.TimeUnit;

/**
 * A Lincheck scenario aimed at the lock-versus-deflate race alone: one key, bound and idle when the scenario
 * starts (the constructor locks and unlocks it once), one thread that acquires it (the {@code "locker"} group:
 * lock, lockInterruptibly, tryLock, timed tryLock, each followed by a check and an unlock) and one thread that
 * deflates ({@code "deflater"} group: {@code releaseIdleKeys()}). Lincheck never runs two operations of a group
 * in parallel, so the deflater is the only thing the locker ever races. Hence, beside {@link KeyedCounters}' checks:
 * <ul>
 * <li>every acquisition succeeds, {@code tryLock()} and the timed {@code tryLock} included: the key is free
 *     whenever the locker asks for it, and deflation must never make a free key look held;
 * <li>inside, the hold count is 1 and the key reads as locked: the record the locker holds is still the key's
 *     bound record, not one a deflater unlinked under it;
 * <li>after every invocation, the key is free, nobody is queued and nothing is in use ({@code activeKeys() == 0}).
 * </ul>
 * {@link KeyedCounters} mixes this race into a larger space (two keys, both threads locking); here the few
 * context switches that the race needs (the deflater claims the lock word, the locker pins and takes it, the
 * deflater's second CAS) are found within a small budget. The key is {@value #KEY}: with {@code KeyedLock}'s hash
 * spreading it sits in the first bucket of a new table, so the deflater's sweep reaches it at its first step (any
 * key is correct; this one keeps the interleavings short).
 */
public abstract class KeyDeflation {

    /** The key: in bucket 0 of a 64-bucket {@code KeyedLock} table. */
    static final String KEY = "k42";

    private final KeyedSubject<String> locks;

    protected KeyDeflation(KeyedSubject<String> locks) {
        this.locks = locks;
        locks.lock(key());
        locks.unlock(key()); // the key's record stays bound, idle
    }

    /** A fresh key object: equal to every other, identical to none. */
    private static String key() {
        return new String(KEY);
    }

    @Operation(nonParallelGroup = "locker")
    public void lock() {
        locks.lock(key());
        checkThenUnlock("lock()");
    }

    @Operation(nonParallelGroup = "locker")
    public void lockInterruptibly() throws InterruptedException {
        locks.lockInterruptibly(key());
        checkThenUnlock("lockInterruptibly()");
    }

    @Operation(nonParallelGroup = "locker")
    public void tryLock() {
        if (!locks.tryLock(key())) {
            throw new IllegalStateException("tryLock() failed on a key nobody holds: " + locks);
        }
        checkThenUnlock("tryLock()");
    }

    @Operation(nonParallelGroup = "locker")
    public void timedTryLock() throws InterruptedException {
        if (!locks.tryLock(key(), LockedCounter.TIMEOUT_MICROS, TimeUnit.MICROSECONDS)) {
            throw new IllegalStateException("tryLock(time) failed on a key nobody holds: " + locks);
        }
        checkThenUnlock("tryLock(time)");
    }

    @Operation(nonParallelGroup = "deflater")
    public void releaseIdleKeys() {
        int released = locks.releaseIdleKeys();
        if (released < 0 || released > 1) {
            throw new IllegalStateException("releaseIdleKeys() released " + released + " keys of 1: " + locks);
        }
    }

    private void checkThenUnlock(String how) {
        int holds = locks.getHoldCount(key());
        if (holds != 1 || !locks.isLocked(key())) {
            throw new IllegalStateException("after " + how + ": hold count " + holds + ", locked "
                    + locks.isLocked(key()) + " (the held record is no longer the key's): " + locks);
        }
        locks.unlock(key());
    }

    /** After every invocation: the key free, nobody queued, nothing in use. */
    @Validate
    public void keyIsClean() {
        if (locks.isLocked(key())) {
            throw new IllegalStateException("key left locked: " + locks);
        }
        if (locks.hasQueuedThreads(key())) {
            throw new IllegalStateException("threads left queued: " + locks);
        }
        int active = locks.activeKeys();
        if (active != 0) {
            throw new IllegalStateException(active + " key(s) left in use after every user left: " + locks);
        }
    }
}
