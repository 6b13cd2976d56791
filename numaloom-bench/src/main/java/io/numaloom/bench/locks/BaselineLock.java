package io.numaloom.bench.locks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * What the baselines share beyond their algorithm: the {@link Lock} methods an algorithm does not define
 * throw {@link UnsupportedOperationException} with the reason. Queue locks cannot abandon a queue position,
 * so timed and interruptible acquisition are refused here; {@link PollingLock} provides them for the locks
 * that are a loop of {@link #tryLock()}.
 */
abstract class BaselineLock implements Lock {

    /** Conditions are not part of any algorithm of the family; the bench measures lock and unlock. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException(getClass().getSimpleName()
                + " has no condition variables: they are not part of the algorithm, and the bench measures lock/unlock only");
    }

    /** Queue locks: a waiter cannot leave the queue. {@link PollingLock} overrides this. */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + ".lockInterruptibly(): " + whyNoAbort());
    }

    /** Queue locks: a waiter cannot leave the queue. {@link PollingLock} overrides this. */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + ".tryLock(time, unit): " + whyNoAbort());
    }

    /** Why the algorithm cannot give up waiting; the message of the exceptions above. */
    String whyNoAbort() {
        return "a waiter cannot leave the queue once enqueued (the algorithm has no abort protocol), "
                + "so timed and interruptible acquisition are not supported; use lock() or tryLock()";
    }
}
