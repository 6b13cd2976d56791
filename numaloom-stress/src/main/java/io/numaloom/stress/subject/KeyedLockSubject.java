package io.numaloom.stress.subject;

import io.numaloom.KeyedLock;

import java.util.concurrent.TimeUnit;

/**
 * {@link KeyedLock} seen through {@link KeyedSubject}: every call is forwarded unchanged to the keyed lock's own
 * method, so the scenario exercises its lock-free lookup, binding, pinning and deflation on every operation.
 */
public final class KeyedLockSubject<K> implements KeyedSubject<K> {
    private final KeyedLock<K> locks;

    public KeyedLockSubject(KeyedLock<K> locks) {
        this.locks = locks;
    }

    /** The keyed lock under test. */
    public KeyedLock<K> unwrap() {
        return locks;
    }

    @Override public void lock(K key) { locks.lock(key); }
    @Override public void lockInterruptibly(K key) throws InterruptedException { locks.lockInterruptibly(key); }
    @Override public boolean tryLock(K key) { return locks.tryLock(key); }
    @Override public boolean tryLock(K key, long time, TimeUnit unit) throws InterruptedException { return locks.tryLock(key, time, unit); }
    @Override public void unlock(K key) { locks.unlock(key); }
    @Override public int getHoldCount(K key) { return locks.getHoldCount(key); }
    @Override public boolean isHeldByCurrentThread(K key) { return locks.isHeldByCurrentThread(key); }
    @Override public boolean isLocked(K key) { return locks.isLocked(key); }
    @Override public boolean hasQueuedThreads(K key) { return locks.getQueueLength(key) > 0; }
    @Override public int activeKeys() { return locks.activeKeys(); }
    @Override public int releaseIdleKeys() { return locks.releaseIdleKeys(); }
    @Override public String toString() { return locks.toString(); }
}
