package io.numaloom.stress.subject;

import io.numaloom.KeyedLock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * One key of a {@link KeyedLock} seen through {@link InspectableLock}: every call goes through
 * {@link KeyedLock#forKey}'s view, which looks the key's record up each time, so the suites exercise binding,
 * pinning and unbinding on every operation. Each operation uses a fresh, equal copy of the key, so equality,
 * not identity, is what makes two calls one lock.
 */
public final class InspectableKeyedLock implements InspectableLock {
    private final KeyedLock<String> locks;
    private final String key = "the-key";

    /**
     * One key of a {@code KeyedLock} that binds a record at a key's first lock
     * ({@code bindOnFirstLock(true)}), so that the suites exercise binding, the fast path on a bound record and
     * deflation; {@code KEYED_LOCK_THIN} covers thin holds.
     */
    public InspectableKeyedLock() {
        this(KeyedLock.builder().bindOnFirstLock(true).build());
    }

    /** One key of {@code locks}. */
    public InspectableKeyedLock(KeyedLock<String> locks) {
        this.locks = locks;
    }

    private KeyedLock<String>.KeyLock view() {
        return locks.forKey(new String(key));
    }

    /** The keyed lock under test. */
    public KeyedLock<String> unwrap() {
        return locks;
    }

    @Override public void lock() { view().lock(); }
    @Override public void lockInterruptibly() throws InterruptedException { view().lockInterruptibly(); }
    @Override public boolean tryLock() { return view().tryLock(); }
    @Override public boolean tryLock(long time, TimeUnit unit) throws InterruptedException { return view().tryLock(time, unit); }
    @Override public void unlock() { view().unlock(); }
    @Override public Condition newCondition() { return view().newCondition(); }
    @Override public int getHoldCount() { return view().getHoldCount(); }
    @Override public boolean isHeldByCurrentThread() { return view().isHeldByCurrentThread(); }
    @Override public boolean isLocked() { return view().isLocked(); }
    @Override public boolean hasQueuedThreads() { return view().hasQueuedThreads(); }
    @Override public int getQueueLength() { return view().getQueueLength(); }
    @Override public boolean hasWaiters(Condition condition) { return view().hasWaiters(condition); }
    @Override public String toString() { return view().toString(); }
}
