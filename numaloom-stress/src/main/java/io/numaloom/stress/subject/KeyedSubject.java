package io.numaloom.stress.subject;

import io.numaloom.KeyedLock;

import java.util.concurrent.TimeUnit;

/**
 * A lock per key as the keyed proofs see it: {@link KeyedLock}'s per-key operations and how many records are
 * still bound, so that one scenario checks the real {@code KeyedLock} and a planted one alike
 * ({@code io.numaloom.stress.planted.PlantedKeyedLock}).
 *
 * @param <K> the key type
 */
public interface KeyedSubject<K> {
    void lock(K key);

    void lockInterruptibly(K key) throws InterruptedException;

    boolean tryLock(K key);

    boolean tryLock(K key, long time, TimeUnit unit) throws InterruptedException;

    void unlock(K key);

    boolean isLocked(K key);

    boolean isHeldByCurrentThread(K key);

    int getHoldCount(K key);

    int getQueueLength(K key);

    /** Keys that still have a record bound (held, waited for, or leaked). */
    int boundKeys();

    /** {@code locks} seen as a subject. */
    static <K> KeyedSubject<K> of(KeyedLock<K> locks) {
        return new KeyedSubject<>() {
            @Override public void lock(K key) { locks.lock(key); }
            @Override public void lockInterruptibly(K key) throws InterruptedException { locks.lockInterruptibly(key); }
            @Override public boolean tryLock(K key) { return locks.tryLock(key); }
            @Override public boolean tryLock(K key, long time, TimeUnit unit) throws InterruptedException {
                return locks.tryLock(key, time, unit);
            }
            @Override public void unlock(K key) { locks.unlock(key); }
            @Override public boolean isLocked(K key) { return locks.isLocked(key); }
            @Override public boolean isHeldByCurrentThread(K key) { return locks.isHeldByCurrentThread(key); }
            @Override public int getHoldCount(K key) { return locks.getHoldCount(key); }
            @Override public int getQueueLength(K key) { return locks.getQueueLength(key); }
            @Override public int boundKeys() { return locks.activeKeys(); }
            @Override public String toString() { return locks.toString(); }
        };
    }
}
