package io.numaloom.stress.lincheck;

import io.numaloom.stress.subject.KeyedSubject;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;

import java.util.concurrent.TimeUnit;

/**
 * The Lincheck scenario of a keyed lock: {@link LockedCounter} over {@value #KEYS} keys, each guarding its own
 * sequential counter, and a deflater. Every operation names its key by number ({@code @Param} over 0..1) and locks
 * it through a FRESH, equal key object ({@code new String("k" + key)}), so what makes two calls one lock is
 * {@code equals}. A key's record stays bound while the key is idle, so a later acquisition takes the fast path on
 * it (one CAS on the record's lock word) or pins it in the slow path, while {@link #releaseIdleKeys} deflates
 * every idle record (two CASes: the lock word, then the pins) and a later acquisition binds the key again. Two keys
 * let the interleavings mix "same key" (exclusion, lock against deflate) with "other key" (independence: a hold on
 * one key never blocks or disturbs the other).
 *
 * <ul>
 * <li>{@link #lockAndIncrement} and {@link #lockInterruptiblyAndIncrement} return the value they wrote to the
 *     key's counter: linearizability of these results is mutual exclusion per key plus visibility.
 * <li>{@link #tryLockAndCheck} and {@link #timedTryLockAndCheck} may fail while the other thread holds the key,
 *     which no sequential order expresses; they return nothing and leave the counter alone.
 * <li>{@link #releaseIdleKeys} races every acquisition and release of the other thread; it returns nothing, since
 *     what it finds idle depends on where the other thread is.
 * <li>Every critical section checks that nobody else is inside for that key and that the current thread's hold
 *     count on it is 1 (so that its record is still the key's bound record); a violation throws, and an exception
 *     is never a valid result.
 * </ul>
 * After every invocation {@link #keysAreClean()}: no key locked, nobody queued, and nothing left in use
 * ({@code activeKeys() == 0}: no hold, pin or waiter outlived its call), whatever the interleaving. Idle bound
 * records may remain: that is the design.
 */
@Param(name = "key", gen = IntGen.class, conf = "0:1")
public abstract class KeyedCounters {

    static final int KEYS = 2;

    private final KeyedSubject<String> locks;
    private final int[] counters = new int[KEYS];
    private final Thread[] inside = new Thread[KEYS];

    protected KeyedCounters(KeyedSubject<String> locks) {
        this.locks = locks;
    }

    /** A fresh key object for key number {@code key}: equal to every other, identical to none. */
    private static String keyOf(int key) {
        return new String("k" + key);
    }

    @Operation
    public int lockAndIncrement(@Param(name = "key") int key) {
        locks.lock(keyOf(key));
        try {
            return criticalSection(key);
        } finally {
            locks.unlock(keyOf(key));
        }
    }

    @Operation
    public int lockInterruptiblyAndIncrement(@Param(name = "key") int key) throws InterruptedException {
        locks.lockInterruptibly(keyOf(key));
        try {
            return criticalSection(key);
        } finally {
            locks.unlock(keyOf(key));
        }
    }

    @Operation
    public void tryLockAndCheck(@Param(name = "key") int key) {
        if (locks.tryLock(keyOf(key))) {
            try {
                enterAndLeave(key);
            } finally {
                locks.unlock(keyOf(key));
            }
        }
    }

    @Operation
    public void timedTryLockAndCheck(@Param(name = "key") int key) throws InterruptedException {
        if (locks.tryLock(keyOf(key), LockedCounter.TIMEOUT_MICROS, TimeUnit.MICROSECONDS)) {
            try {
                enterAndLeave(key);
            } finally {
                locks.unlock(keyOf(key));
            }
        }
    }

    /**
     * Deflates every idle key now, racing the other thread. The count it returns depends on which keys were in use
     * at that moment, so it is not a result; a count no lock of {@value #KEYS} keys can give throws.
     */
    @Operation
    public void releaseIdleKeys() {
        int released = locks.releaseIdleKeys();
        if (released < 0 || released > KEYS) {
            throw new IllegalStateException("releaseIdleKeys() released " + released + " keys of " + KEYS + ": " + locks);
        }
    }

    private int criticalSection(int key) {
        enter(key);
        int value = ++counters[key];
        leave(key);
        return value;
    }

    private void enterAndLeave(int key) {
        enter(key);
        leave(key);
    }

    private void enter(int key) {
        if (inside[key] != null) {
            throw new IllegalStateException("two threads in the critical section of key " + key + ": "
                    + inside[key].getName() + " and " + Thread.currentThread().getName());
        }
        int holds = locks.getHoldCount(keyOf(key));
        if (holds != 1 || !locks.isHeldByCurrentThread(keyOf(key))) {
            throw new IllegalStateException("hold count " + holds + " inside the critical section of key " + key);
        }
        inside[key] = Thread.currentThread();
    }

    private void leave(int key) {
        if (inside[key] != Thread.currentThread()) {
            throw new IllegalStateException("someone else got into the critical section of key " + key + ": "
                    + inside[key]);
        }
        inside[key] = null;
    }

    /** After every invocation: every key free, nobody queued, no key left in use (idle bound records may stay). */
    @Validate
    public void keysAreClean() {
        for (int key = 0; key < KEYS; key++) {
            if (locks.isLocked(keyOf(key))) {
                throw new IllegalStateException("key " + key + " left locked: " + locks);
            }
            if (locks.hasQueuedThreads(keyOf(key))) {
                throw new IllegalStateException("threads left queued on key " + key + ": " + locks);
            }
        }
        int active = locks.activeKeys();
        if (active != 0) {
            throw new IllegalStateException(active + " key(s) left in use after every user left: " + locks);
        }
    }
}
