package io.numaloom.stress.subject;

import io.numaloom.VnaReentrantLock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link VnaReentrantLock} seen through {@link InspectableLock}, held as a {@link ReentrantLock} as the code it is made
 * for holds it: every call goes through {@code ReentrantLock}'s virtual methods, which the lock overrides. The queue's
 * monitoring goes through {@link VnaReentrantLock#hasQueuedThreads(ReentrantLock)} and
 * {@link VnaReentrantLock#getQueueLength(ReentrantLock)}: {@code ReentrantLock} declares those two final, so a direct
 * call reads the superclass's queue, which this lock does not use (documented on the class).
 */
public final class InspectableVnaReentrantLock implements InspectableLock {
    private final ReentrantLock lock = new VnaReentrantLock();

    @Override public void lock() { lock.lock(); }
    @Override public void lockInterruptibly() throws InterruptedException { lock.lockInterruptibly(); }
    @Override public boolean tryLock() { return lock.tryLock(); }
    @Override public boolean tryLock(long time, TimeUnit unit) throws InterruptedException { return lock.tryLock(time, unit); }
    @Override public void unlock() { lock.unlock(); }
    @Override public Condition newCondition() { return lock.newCondition(); }
    @Override public int getHoldCount() { return lock.getHoldCount(); }
    @Override public boolean isHeldByCurrentThread() { return lock.isHeldByCurrentThread(); }
    @Override public boolean isLocked() { return lock.isLocked(); }
    @Override public boolean hasQueuedThreads() { return VnaReentrantLock.hasQueuedThreads(lock); }
    @Override public int getQueueLength() { return VnaReentrantLock.getQueueLength(lock); }
    @Override public boolean hasWaiters(Condition condition) { return lock.hasWaiters(condition); }
    @Override public String toString() { return lock.toString(); }
}
