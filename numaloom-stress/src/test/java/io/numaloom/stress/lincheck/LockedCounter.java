package io.numaloom.stress.lincheck;

import io.numaloom.stress.subject.InspectableLock;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;

import java.util.concurrent.TimeUnit;

/**
 * The Lincheck scenario: a sequential counter guarded by the lock under test. Lincheck builds one instance per
 * invocation, runs random operations from two threads, explores their interleavings (model checking) and checks
 * that the results are those of some sequential order, that no operation threw, that no interleaving deadlocks,
 * and, after every invocation, {@link #lockIsClean()}.
 *
 * <ul>
 * <li>{@link #lockAndIncrement()} and {@link #lockInterruptiblyAndIncrement()} return the counter value they
 *     wrote: linearizability of these results is mutual exclusion plus visibility.
 * <li>{@link #tryLockAndCheck()} and {@link #timedTryLockAndCheck()} may fail whenever the other thread holds the
 *     lock, which no sequential order can express; so they return nothing and do not touch the counter. Inside,
 *     they (like every critical section here) check that nobody else is in the critical section and that the
 *     hold count is 1: a violation throws, and an exception is never a valid result.
 * </ul>
 * The interleaving of the timed tryLock covers its timeout: Lincheck's model checker lets a timed park time out
 * at any point.
 */
public abstract class LockedCounter {

    /** The timeout of the timed tryLock; under model checking its expiry is one more scheduling choice. */
    static final long TIMEOUT_MICROS = 100;

    private final InspectableLock lock;
    private int counter;
    private Thread inside;

    protected LockedCounter(InspectableLock lock) {
        this.lock = lock;
    }

    @Operation
    public int lockAndIncrement() {
        lock.lock();
        try {
            return criticalSection();
        } finally {
            lock.unlock();
        }
    }

    @Operation
    public int lockInterruptiblyAndIncrement() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            return criticalSection();
        } finally {
            lock.unlock();
        }
    }

    @Operation
    public void tryLockAndCheck() {
        if (lock.tryLock()) {
            try {
                enterAndLeave();
            } finally {
                lock.unlock();
            }
        }
    }

    @Operation
    public void timedTryLockAndCheck() throws InterruptedException {
        if (lock.tryLock(TIMEOUT_MICROS, TimeUnit.MICROSECONDS)) {
            try {
                enterAndLeave();
            } finally {
                lock.unlock();
            }
        }
    }

    private int criticalSection() {
        enter();
        int value = ++counter;
        leave();
        return value;
    }

    private void enterAndLeave() {
        enter();
        leave();
    }

    private void enter() {
        if (inside != null) {
            throw new IllegalStateException("two threads in the critical section: " + inside.getName() + " and "
                    + Thread.currentThread().getName());
        }
        if (lock.getHoldCount() != 1 || !lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("hold count " + lock.getHoldCount() + " inside the critical section");
        }
        inside = Thread.currentThread();
    }

    private void leave() {
        if (inside != Thread.currentThread()) {
            throw new IllegalStateException("someone else got into the critical section: " + inside);
        }
        inside = null;
    }

    /** After every invocation: the lock is free and nobody is queued (a timed-out waiter left cleanly). */
    @Validate
    public void lockIsClean() {
        if (lock.isLocked()) {
            throw new IllegalStateException("lock left locked: " + lock);
        }
        if (lock.hasQueuedThreads() || lock.getQueueLength() != 0) {
            throw new IllegalStateException("threads left queued: " + lock.getQueueLength());
        }
    }
}
