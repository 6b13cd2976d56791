package io.numaloom.bench.jmh.counter;

import java.util.concurrent.locks.StampedLock;

/**
 * Baseline from the seed-003 thread: a {@link StampedLock} as a reader-writer lock, acquire as
 * {@code tryReadLock}, release as {@code tryUnlockRead}, close as a {@code tryWriteLock} that is never
 * released. Readers still CAS one state word (the thread reports it scaled like the single CAS).
 */
final class StampedLockCounter {
    private final StampedLock lock = new StampedLock();

    int tryAcquire() {
        return lock.tryReadLock() != 0L ? 0 : -1;
    }

    void release(int ticket) {
        if (!lock.tryUnlockRead()) {
            throw new IllegalStateException("released more often than acquired");
        }
    }

    boolean tryClose() {
        return lock.tryWriteLock() != 0L;
    }
}
