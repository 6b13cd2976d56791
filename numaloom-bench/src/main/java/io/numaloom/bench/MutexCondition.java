package io.numaloom.bench;

/**
 * A condition of a {@link Mutex}: a thread that holds the mutex waits on it until another holder signals it,
 * as with {@link java.util.concurrent.locks.Condition}. {@link Mutex#newCondition()} says where it comes from for
 * each kind of mutex.
 *
 * <p>Every method must be called by a thread that holds the mutex (once: a condition may not release a nested
 * hold), inside {@link Mutex#runExclusively(Runnable)}. As with any condition, a return from {@link #await()}
 * says only that the predicate may have changed: callers wait in a loop that re-checks it.
 */
public interface MutexCondition {

    /**
     * Releases the mutex, waits until signalled (or woken spuriously), and takes the mutex again before it
     * returns, also when it throws.
     *
     * @throws InterruptedException if the thread was interrupted before or while it waited; the mutex is held
     */
    void await() throws InterruptedException;

    /** Wakes at least one thread waiting on this condition, if there is one. */
    void signal();

    /** Wakes every thread waiting on this condition. */
    void signalAll();
}
