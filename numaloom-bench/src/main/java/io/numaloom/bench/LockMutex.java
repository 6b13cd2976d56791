package io.numaloom.bench;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** A {@link Mutex} over a {@link Lock}: the {@code lock(); try { ... } finally { unlock(); }} idiom. */
public final class LockMutex implements Mutex {
    private final String name;
    private final Lock lock;

    LockMutex(String name, Lock lock) {
        this.name = name;
        this.lock = lock;
    }

    @Override
    public void runExclusively(Runnable section) {
        lock.lock();
        try {
            section.run();
        } finally {
            lock.unlock();
        }
    }

    /** The lock's own condition, or a {@link ParkingCondition} for a lock that has none. */
    @Override
    public MutexCondition newCondition() {
        Condition condition;
        try {
            condition = lock.newCondition();
        } catch (UnsupportedOperationException e) {
            return new ParkingCondition(lock);
        }
        return new MutexCondition() {
            @Override
            public void await() throws InterruptedException {
                condition.await();
            }

            @Override
            public void signal() {
                condition.signal();
            }

            @Override
            public void signalAll() {
                condition.signalAll();
            }
        };
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isReentrant() {
        lock.lock();
        try {
            if (lock.tryLock()) {
                lock.unlock();
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** The underlying lock, for the microbenchmarks that call it directly. */
    public Lock lock() {
        return lock;
    }
}
