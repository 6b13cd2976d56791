package io.numaloom.stress.subject;

import java.util.concurrent.locks.Lock;

/**
 * A {@link Lock} with the introspection methods of {@link java.util.concurrent.locks.ReentrantLock}, so that one
 * test can run over every lock under test. {@link Lock} itself has no way to ask who holds a lock or how many
 * threads wait for it; {@code ReentrantLock}, {@code io.numaloom.VnaLock} and the planted locks all answer these
 * with the same meaning.
 */
public interface InspectableLock extends Lock {

    /** Number of holds on this lock by the current thread; 0 when it does not hold it. */
    int getHoldCount();

    /** Whether the current thread holds this lock. */
    boolean isHeldByCurrentThread();

    /** Whether any thread holds this lock. */
    boolean isLocked();

    /** Whether any thread may be waiting to acquire this lock (an estimate while the queue changes). */
    boolean hasQueuedThreads();

    /** Estimated number of threads waiting to acquire this lock. */
    int getQueueLength();

    /**
     * Whether any thread may be waiting on {@code condition}, one of this lock's conditions.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold this lock
     */
    boolean hasWaiters(java.util.concurrent.locks.Condition condition);
}
