package io.numaloom.stress.lincheck;

import io.numaloom.stress.subject.KeyedSubject;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;

import java.util.concurrent.TimeUnit;

/**
 * The Lincheck scenario of a keyed lock: {@link LockedCounter} over {@value #KEYS} keys, each guarding its own
 * sequential counter. Every operation names its key by number ({@code @Param} over 0..1) and locks it through a
 * FRESH, equal key object ({@code new String("k" + key)}), so what makes two calls one lock is {@code equals},
 * and every acquisition finds, binds or pins the key's record while every release may unbind it. Two keys let the
 * interleavings mix "same key" (exclusion, lock against unbind) with "other key" (independence: a hold on one key
 * never blocks or disturbs the other).
 *
 * <ul>
 * <li>{@link #lockAndIncrement} and {@link #lockInterruptiblyAndIncrement} return the value they wrote to the
 *     key's counter: linearizability of these results is mutual exclusion per key plus visibility.
 * <li>{@link #tryLockAndCheck} and {@link #timedTryLockAndCheck} may fail while the other thread holds the key,
 *     which no sequential order expresses; they return nothing and leave the counter alone.
 * <li>Every critical section checks that nobody else is inside for that key and that the current thread's hold
 *     count on it is 1; a violation throws, and an exception is never a valid result.
 * </ul>
 * After every invocation {@link #keysAreClean()}: no key locked, nobody queued, and no record left bound
 * ({@code activeKeys() == 0}): the last user of each key unbound its record, whatever the interleaving.
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

    /** After every invocation: every key free, nobody queued, no record left bound. */
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
            throw new IllegalStateException(active + " record(s) left bound after every user left: " + locks);
        }
    }
}
