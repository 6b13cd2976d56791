package io.numaloom.bench;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * A condition for a {@link Lock} that has none (the baselines of {@code io.numaloom.bench.locks}, whose
 * {@link Lock#newCondition()} throws): what application code over such a lock would write. The waiters are a
 * FIFO queue of records kept under the lock itself; {@link #await()} enqueues a record, unlocks, parks until the
 * record is marked signalled, and locks again; {@link #signal()} dequeues the first record, marks it and unparks
 * its thread. Nothing but the lock's own {@code lock()} and {@code unlock()} is needed, so any lock that the
 * awaiting thread holds once can have conditions this way (a nested hold would stay held while the thread
 * parks).
 *
 * <p>The queue is only touched with the lock held. The signalled mark is volatile because the waiter reads it
 * after it unlocked; a wake-up that finds it unset (a spurious unpark) parks again. An interrupted waiter takes
 * the lock again and leaves the queue if no signal took it out first; a signal that did is kept (the call returns
 * normally, with the interrupt status set again), so no signal is lost to an interrupt.
 *
 * <p>Thread-safety: as {@link MutexCondition}; every method is called holding the lock.
 */
final class ParkingCondition implements MutexCondition {
    private final Lock lock;
    /** Waiters in arrival order; guarded by {@link #lock}. */
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

    /** One waiting thread. */
    private static final class Waiter {
        final Thread thread = Thread.currentThread();
        volatile boolean signalled;
    }

    ParkingCondition(Lock lock) {
        this.lock = lock;
    }

    @Override
    public void await() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Waiter me = new Waiter();
        waiters.addLast(me);
        lock.unlock();
        boolean interrupted = false;
        try {
            while (!me.signalled) {
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    interrupted = true;
                    break;
                }
            }
        } finally {
            lock.lock();
        }
        if (interrupted) {
            if (waiters.removeFirstOccurrence(me)) {
                throw new InterruptedException();
            }
            Thread.currentThread().interrupt(); // signalled meanwhile: keep the signal and the interrupt
        }
    }

    @Override
    public void signal() {
        Waiter first = waiters.pollFirst();
        if (first != null) {
            first.signalled = true;
            LockSupport.unpark(first.thread);
        }
    }

    @Override
    public void signalAll() {
        while (!waiters.isEmpty()) {
            signal();
        }
    }

    /** Threads waiting; for tests, with the lock held. */
    int waiting() {
        return waiters.size();
    }
}
