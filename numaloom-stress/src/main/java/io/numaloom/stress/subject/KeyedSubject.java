package io.numaloom.stress.subject;

import java.util.concurrent.TimeUnit;

/**
 * A lock per key with the introspection the keyed proofs need, so that one scenario runs over
 * {@code io.numaloom.KeyedLock} ({@link KeyedLockSubject}) and over the planted keyed lock that shows the scenario
 * catches a broken bind/pin/deflate protocol. Keys are compared by {@code equals}. Each method means what the
 * {@code ReentrantLock} method of the same name means for the lock of {@code key}. A key's record may stay bound
 * while the key is idle; {@link #releaseIdleKeys()} deflates the idle ones, and {@link #activeKeys()} counts only
 * the keys in use.
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

    /**
     * The number of keys in use now: held, waited for, awaited, or in the middle of being locked (pinned); zero
     * when nobody uses the lock. Idle keys whose record is still bound do not count.
     */
    int activeKeys();

    /**
     * Deflates every idle key now: its record is unbound and the lock keeps no reference to the key; keys in use
     * are left alone. May race every other method.
     *
     * @return how many keys it released
     */
    int releaseIdleKeys();
}
