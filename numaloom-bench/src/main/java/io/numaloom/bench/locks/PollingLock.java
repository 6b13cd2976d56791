package io.numaloom.bench.locks;

import java.util.concurrent.TimeUnit;

/**
 * A baseline whose acquisition is a loop of {@link #tryLock()} (TAS, TTAS, HSPIN): nothing is queued, so
 * giving up costs nothing, and timed and interruptible acquisition poll {@code tryLock()} with the family's
 * spin-yield-sleep policy ({@link Spin#pause}). A waiter that gives up leaves no trace in the lock.
 */
abstract class PollingLock extends BaselineLock {

    @Override
    public final void lockInterruptibly() throws InterruptedException {
        for (int spins = 0; !tryLock(); spins = Spin.pause(spins)) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    @Override
    public final boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(time);
        for (int spins = 0; !tryLock(); spins = Spin.pause(spins)) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (deadline - System.nanoTime() <= 0) {
                return false;
            }
        }
        return true;
    }
}
