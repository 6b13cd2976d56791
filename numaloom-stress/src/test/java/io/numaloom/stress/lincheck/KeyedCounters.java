package io.numaloom.stress.lincheck;

import io.numaloom.stress.subject.KeyedSubject;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;

import java.util.concurrent.TimeUnit;

/**
 * The Lincheck scenario of a lock per key, over a small key space: keys 0 and 1, each guarding its own counter,
 * as {@link LockedCounter} does for one lock. Every operation names its key through a fresh, equal
 * {@code String}, so the lock must find, bind, pin and unbind records by {@code equals} on every call: the race
 * between a locker that found a record and the thread that unbinds it is in every scenario where two operations
 * on one key overlap.
 *
 * <ul>
 * <li>{@link #lockAndIncrement(int)} and {@link #lockInterruptiblyAndIncrement(int)} return the value they wrote
 *     to the key's counter: linearizable results are per-key mutual exclusion plus visibility.</li>
 * <li>{@link #tryLockAndCheck(int)} and {@link #timedTryLockAndCheck(int)} may fail while the key is held, which
 *     no sequential order can express, so they return nothing and leave the counter alone; inside, like every
 *     critical section here, they check that nobody else holds the key and that the hold count is 1 (a violation
 *     throws, and an exception is never a valid result).</li>
 * </ul>
 * {@link #nothingIsLeftBehind()} runs after every invocation: no key locked or queued, and no record bound.
 */
@Param(name = "key", gen = IntGen.class, conf = "0:1")
public abstract class KeyedCounters {

    private static final int KEYS = 2;

    private final KeyedSubject<String> locks;
    private final int[] counters = new int[KEYS];
    private final Thread[] inside = new Thread[KEYS];

    protected KeyedCounters(KeyedSubject<String> locks) {
        this.locks = locks;
    }

    /** A fresh key object equal to every other one for {@code k}. */
    private static String key(int k) {
        return new StringBuilder("key-").append(k).toString();
    }

    @Operation
    public int lockAndIncrement(@Param(name = "key") int k) {
        locks.lock(key(k));
        try {
            return criticalSection(k);
        } finally {
            locks.unlock(key(k));
        }
    }

    @Operation
    public int lockInterruptiblyAndIncrement(@Param(name = "key") int k) throws InterruptedException {
        locks.lockInterruptibly(key(k));
        try {
            return criticalSection(k);
        } finally {
            locks.unlock(key(k));
        }
    }

    @Operation
    public void tryLockAndCheck(@Param(name = "key") int k) {
        if (locks.tryLock(key(k))) {
            try {
                enter(k);
                leave(k);
            } finally {
                locks.unlock(key(k));
            }
        }
    }

    @Operation
    public void timedTryLockAndCheck(@Param(name = "key") int k) throws InterruptedException {
        if (locks.tryLock(key(k), LockedCounter.TIMEOUT_MICROS, TimeUnit.MICROSECONDS)) {
            try {
                enter(k);
                leave(k);
            } finally {
                locks.unlock(key(k));
            }
        }
    }

    private int criticalSection(int k) {
        enter(k);
        int value = ++counters[k];
        leave(k);
        return value;
    }

    private void enter(int k) {
        if (inside[k] != null) {
            throw new IllegalStateException("two threads in the critical section of key " + k + ": "
                    + inside[k].getName() + " and " + Thread.currentThread().getName());
        }
        if (locks.getHoldCount(key(k)) != 1 || !locks.isHeldByCurrentThread(key(k))) {
            throw new IllegalStateException("hold count " + locks.getHoldCount(key(k)) + " inside key " + k);
        }
        inside[k] = Thread.currentThread();
    }

    private void leave(int k) {
        if (inside[k] != Thread.currentThread()) {
            throw new IllegalStateException("someone else got into the critical section of key " + k + ": " + inside[k]);
        }
        inside[k] = null;
    }

    /**
     * The scenario of the lock-vs-unbind race, for a targeted check: thread 1 locks key 0 twice, thread 2 once.
     * Thread 2 may find and pin the record that thread 1 is about to unbind after its first unlock; then thread 1's
     * second lock must wait for thread 2, not bind a second record for the same key.
     */
    static org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario lockVsUnbind() {
        try {
            java.lang.reflect.Method lock = KeyedCounters.class.getMethod("lockAndIncrement", int.class);
            org.jetbrains.kotlinx.lincheck.Actor onKey0 = new org.jetbrains.kotlinx.lincheck.Actor(lock, java.util.List.of(0));
            return new org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario(java.util.List.of(),
                    java.util.List.of(java.util.List.of(onKey0, onKey0), java.util.List.of(onKey0)), java.util.List.of(), null);
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    @Validate
    public void nothingIsLeftBehind() {
        for (int k = 0; k < KEYS; k++) {
            if (locks.isLocked(key(k)) || locks.getQueueLength(key(k)) != 0) {
                throw new IllegalStateException("key " + k + " left locked or queued: " + locks);
            }
        }
        if (locks.boundKeys() != 0) {
            throw new IllegalStateException(locks.boundKeys() + " record(s) left bound: " + locks);
        }
    }
}
