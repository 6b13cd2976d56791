package io.numaloom.stress.subject;

import io.numaloom.VnaLock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * {@link VnaLock} seen through {@link InspectableLock}: every call is forwarded unchanged (a monomorphic
 * delegation the JIT inlines), so the tests exercise the lock's own code paths.
 */
public final class InspectableVnaLock implements InspectableLock {
    private final VnaLock lock;

    public InspectableVnaLock(VnaLock lock) {
        this.lock = lock;
    }

    /** The lock under test. */
    public VnaLock unwrap() {
        return lock;
    }

    @Override public void lock() { lock.lock(); }
    @Override public void lockInterruptibly() throws InterruptedException { lock.lockInterruptibly(); }
    @Override public boolean tryLock() { return lock.tryLock(); }
    @Override public boolean tryLock(long time, TimeUnit unit) throws InterruptedException { return lock.tryLock(time, unit); }
    @Override public void unlock() { lock.unlock(); }
    @Override public Condition newCondition() { return lock.newCondition(); }
    @Override public int getHoldCount() { return lock.getHoldCount(); }
    @Override public boolean isHeldByCurrentThread() { return lock.isHeldByCurrentThread(); }
    @Override public boolean isLocked() { return lock.isLocked(); }
    @Override public boolean hasQueuedThreads() { return lock.hasQueuedThreads(); }
    @Override public int getQueueLength() { return lock.getQueueLength(); }
    @Override public boolean hasWaiters(Condition condition) { return lock.hasWaiters(condition); }
    @Override public String toString() { return lock.toString(); }
}
