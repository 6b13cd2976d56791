package io.numaloom.bench;

import io.numaloom.bench.locks.Locks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * Mutual exclusion as the bench suite sees it: "run this critical section while holding the lock".
 *
 * <p>The abstraction is a section runner rather than {@code enter()}/{@code exit()} because one of the
 * contenders, {@value Locks#SYNCHRONIZED}, is the JVM's intrinsic monitor: a {@code synchronized} block has
 * no separate enter and exit in Java source, so it can only be measured as a block around the section.
 * Both implementations do exactly what application code does:
 * <ul>
 * <li>{@link LockMutex}: {@code lock.lock(); try { section.run(); } finally { lock.unlock(); }} on a lock
 *     from the registry {@link Locks#create(String)};</li>
 * <li>{@link MonitorMutex}: {@code synchronized (monitor) { section.run(); }}.</li>
 * </ul>
 * A measured JVM (one JMH fork) only ever holds one kind of mutex, so the call sites stay monomorphic and
 * the JIT inlines the lock's fast path as it would in an application.
 */
public sealed interface Mutex permits LockMutex, MonitorMutex {

    /** Runs {@code section} while holding this mutex; releases it even when the section throws. */
    void runExclusively(Runnable section);

    /**
     * A new condition of this mutex, for sections that wait (a bounded buffer's notFull and notEmpty). Where it
     * comes from:
     * <ul>
     * <li>a {@link LockMutex} whose lock has conditions (VnaLock, ReentrantLock): the lock's own
     *     {@link Lock#newCondition()};</li>
     * <li>a {@link LockMutex} whose lock has none (the baselines): a {@link ParkingCondition}, a FIFO queue of
     *     parked waiters kept under the lock, as application code over such a lock would write it;</li>
     * <li>a {@link MonitorMutex}: the monitor's {@code wait}/{@code notifyAll}, as a {@code synchronized} class
     *     does; a monitor has one wait set for all its conditions, so a signal wakes every waiter, and each
     *     re-checks its own predicate.</li>
     * </ul>
     */
    MutexCondition newCondition();

    /** The registry name this mutex was created from. */
    String name();

    /**
     * Whether the owner may acquire this mutex again while holding it. Probed once, on an unheld mutex,
     * with {@link Lock#tryLock()} while holding it (a non-reentrant lock answers {@code false}, it does not
     * deadlock). Needed by the nested {@code sync} workload.
     */
    boolean isReentrant();

    /** A new, unheld mutex of the named kind: {@value Locks#SYNCHRONIZED} or any {@link Locks#names()}. */
    static Mutex create(String name) {
        return Locks.isSynchronized(name) ? new MonitorMutex() : new LockMutex(name, Locks.create(name));
    }

    /** Every name {@link #create(String)} accepts: the registry's, then {@value Locks#SYNCHRONIZED}. */
    static List<String> names() {
        List<String> names = new ArrayList<>(Locks.names());
        if (!names.contains(Locks.SYNCHRONIZED)) {
            names.add(Locks.SYNCHRONIZED);
        }
        return List.copyOf(names);
    }
}
