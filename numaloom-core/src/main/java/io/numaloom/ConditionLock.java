package io.numaloom;

/**
 * What a {@link VnaCondition} needs from the lock it belongs to: {@link VnaLock} itself, or one key
 * of a {@link KeyedLock} seen through {@link KeyedLock#forKey}. Package-private: it only lets the
 * two share one condition implementation.
 */
abstract class ConditionLock {

    ConditionLock() {
    }

    /**
     * Releases every hold of the current thread for {@code waiter}, which is about to wait, and
     * returns the hold count to restore. A key's lock records in {@code waiter} the key's record
     * that the wait keeps bound ({@link VnaConditionWaiter#keyRecord}), so that nothing after the
     * release has to find it again through the key's {@code hashCode} and {@code equals}.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock;
     *         {@code action} completes the message ("await on")
     */
    abstract int releaseFully(String action, VnaConditionWaiter waiter);

    /**
     * Re-acquires after a condition wait, uninterruptibly, restoring {@code saved} holds; a
     * {@code waiter} that was signalled then stops being reported as queued for the lock
     * ({@link SignalledWaiters}). It runs no user code that may throw (a custom placement's failure
     * is absorbed, a key's methods are not called), so it returns holding the lock: {@code await}
     * must, and the turn of the next signalled waiter depends on it.
     */
    abstract void reacquire(int saved, VnaConditionWaiter waiter);

    /** @throws IllegalMonitorStateException unless the current thread holds the lock */
    abstract void checkOwner(String action);

    /**
     * Called by the owner for a waiter it has just signalled, before the waiter is woken: reports it
     * as queued for the lock until it holds the lock again ({@link SignalledWaiters},
     * {@link VnaConditionWakes}).
     */
    abstract void queueSignalled(VnaConditionWaiter waiter);

    /** The lock that JFR events name: this one, or the {@link KeyedLock} of a key's lock. */
    Object reportedLock() {
        return this;
    }

    /** The key's {@code hashCode} that JFR events carry for a key's lock; 0 for a plain lock. */
    int reportedKeyHash() {
        return 0;
    }

    /** The key of a key's lock, whose {@code toString} JFR events may carry; null for a plain lock. */
    Object reportedKey() {
        return null;
    }
}
