package io.numaloom;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** API placeholder while the implementation is written (same public API as the final class). */
public class VnaLock implements Lock {
    public VnaLock() {}
    public static VnaLock perSocket() { return new VnaLock(); }
    @Override public void lock() { throw new UnsupportedOperationException(); }
    @Override public void lockInterruptibly() throws InterruptedException { throw new UnsupportedOperationException(); }
    @Override public boolean tryLock() { throw new UnsupportedOperationException(); }
    @Override public boolean tryLock(long time, TimeUnit unit) throws InterruptedException { throw new UnsupportedOperationException(); }
    @Override public void unlock() { throw new UnsupportedOperationException(); }
    @Override public Condition newCondition() { throw new UnsupportedOperationException(); }
    public int getHoldCount() { throw new UnsupportedOperationException(); }
    public boolean isHeldByCurrentThread() { throw new UnsupportedOperationException(); }
    public boolean isLocked() { throw new UnsupportedOperationException(); }
    public boolean hasQueuedThreads() { throw new UnsupportedOperationException(); }
    public int getQueueLength() { throw new UnsupportedOperationException(); }
}
