package io.numaloom.stress.subject;

import java.util.concurrent.TimeUnit;

/**
 * A lock per key with the introspection the keyed proofs need, so that one scenario runs over
 * {@code io.numaloom.KeyedLock} ({@link KeyedLockSubject}) and over the planted keyed lock that shows the scenario
 * catches a broken bind/pin/unbind protocol. Keys are compared by {@code equals}. Each method means what the
 * {@code ReentrantLock} method of the same name means for the lock of {@code key}; {@link #activeKeys()} is the
 * number of per-key records bound now, zero when nobody uses the lock.
 */
public interface KeyedSubject<K> {

    void lock(K key);

    void lockInterruptibly(K key) throws InterruptedException;

    boolean tryLock(K key);

    boolean tryLock(K key, long time, TimeUnit unit) throws InterruptedException;

    void unlock(K key);

    int getHoldCount(K key);

    boolean isHeldByCurrentThread(K key);

    boolean isLocked(K key);

    boolean hasQueuedThreads(K key);

    /** The number of keys that have a record bound now: held, waited for, or in the middle of a call. */
    int activeKeys();
}
