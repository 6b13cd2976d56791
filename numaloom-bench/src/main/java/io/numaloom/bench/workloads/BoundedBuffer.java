package io.numaloom.bench.workloads;

import io.numaloom.bench.MonitorMutex;
import io.numaloom.bench.Mutex;
import io.numaloom.bench.MutexCondition;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A bounded FIFO buffer over one {@link Mutex} and two of its conditions, laid out as
 * {@link java.util.concurrent.ArrayBlockingQueue} is: a ring of {@code capacity} slots with a put index, a take
 * index and a count, all guarded by the mutex. A put waits on {@code notFull} while every slot is taken, stores
 * the element and signals {@code notEmpty}; a take waits on {@code notEmpty} while no slot is, clears the slot and
 * signals {@code notFull}. The sections run through {@link Mutex#runExclusively(Runnable)}, so every lock of the
 * bench (and {@code synchronized}) is measured with the code an application would write over it.
 *
 * <p>Each thread uses its own {@link Producer} or {@link Consumer} handle, made before the round is timed: the handle
 * is the critical section, so a put or a take allocates nothing (its histogram is sized for every value up front). An interrupt while waiting ends the call with
 * {@link InterruptedException} (the round's timeout interrupts stuck workers).
 *
 * <p>What the waits cost ({@link #waits()}), counted only on the paths that wait, in fields guarded by the mutex
 * or owned by a handle's thread (no shared atomic):
 * <ul>
 * <li><b>futile wake-ups</b>: a handle counts each return from an await after which it finds its predicate still
 *     false (the buffer still full, or still empty) and waits again: another thread got the slot or the element
 *     first, or the wake-up was meant for the other condition (a monitor has one wait set), or was spurious;</li>
 * <li><b>signal-to-lock time</b>: a signal sent while a thread waits on its condition stamps
 *     {@link System#nanoTime()} and a signal count (the stamp is written under the mutex, where the signal is
 *     sent anyway; a signal with nobody waiting stamps nothing). A thread that returns from an await holding the
 *     mutex, and sees the count changed since it began to wait, records the time since the latest stamp into its
 *     handle's histogram. Several signals before it runs: it is charged from the latest, so the value is a lower
 *     bound of its own wait; a monitor's conditions share one stamp, as they share one wait set, whose
 *     {@code notifyAll} wakes the waiters of both.</li>
 * </ul>
 *
 * <p>Thread-safety: the ring and the signal stamps are guarded by the mutex; the handles are confined to their
 * thread, and read by {@link #waits()} once every thread that used them was joined.
 */
class BoundedBuffer {
    private final Mutex mutex;
    private final MutexCondition notFull;
    private final MutexCondition notEmpty;
    private final Signals notFullSignals;
    private final Signals notEmptySignals;
    private final Object[] slots;
    /** Guarded by {@link #mutex}. */
    private int putIndex;
    private int takeIndex;
    private int count;
    /** Every handle made, for {@link #waits()}; guarded by itself. */
    private final List<Waiter> handles = new ArrayList<>();

    /** The waiters and the latest signal of a wait set; guarded by the mutex. */
    private static final class Signals {
        /** Threads inside an await on the condition. */
        int waiting;
        /** Signals sent while a thread waited. */
        long sent;
        /** {@link System#nanoTime()} of the latest of them. */
        long latestNanos;
    }

    BoundedBuffer(Mutex mutex, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.mutex = mutex;
        this.notFull = mutex.newCondition();
        this.notEmpty = mutex.newCondition();
        this.notFullSignals = new Signals();
        // A monitor's two conditions are one wait set: a signal of either wakes the waiters of both.
        this.notEmptySignals = mutex instanceof MonitorMutex ? notFullSignals : new Signals();
        this.slots = new Object[capacity];
    }

    /** Stores {@code element} in the next free slot; called holding the mutex with a free slot. Overridden by tests. */
    void enqueue(Object element) {
        slots[putIndex] = element;
        if (++putIndex == slots.length) {
            putIndex = 0;
        }
        count++;
        signal(notEmpty, notEmptySignals);
    }

    /** Removes the oldest element; called holding the mutex with at least one element. */
    private Object dequeue() {
        Object element = slots[takeIndex];
        if (element == null) {
            throw new IllegalStateException("queue: slot " + takeIndex + " is empty with " + count
                    + " elements counted: the ring's state was torn, " + mutex.name() + " let two threads in");
        }
        slots[takeIndex] = null;
        if (++takeIndex == slots.length) {
            takeIndex = 0;
        }
        count--;
        signal(notFull, notFullSignals);
        return element;
    }

    /** Signals {@code condition}, stamping the signal when a thread waits on it; holding the mutex. */
    private static void signal(MutexCondition condition, Signals signals) {
        if (signals.waiting > 0) {
            signals.sent++;
            signals.latestNanos = System.nanoTime();
        }
        condition.signal();
    }

    /** The elements stored; read holding the mutex (or after every thread was joined). */
    int size() {
        return count;
    }

    int capacity() {
        return slots.length;
    }

    /** Threads inside an await on notEmpty (on a monitor, on either condition); for tests, read holding the mutex. */
    int waitingToTake() {
        return notEmptySignals.waiting;
    }

    /** A putting thread's handle. */
    Producer producer() {
        return register(new Producer());
    }

    /** A taking thread's handle. */
    Consumer consumer() {
        return register(new Consumer());
    }

    private <W extends Waiter> W register(W handle) {
        synchronized (handles) {
            handles.add(handle);
        }
        return handle;
    }

    /**
     * The waits of every handle made so far, summed: call it once the threads that used them were joined (a
     * round's check), not while they run.
     */
    ConditionWaits waits() {
        long futile = 0;
        Histogram signalToLock = new Histogram(2);
        synchronized (handles) {
            for (Waiter w : handles) {
                futile += w.futileWakeups;
                signalToLock.add(w.signalToLock);
            }
        }
        return new ConditionWaits(futile, signalToLock);
    }

    /**
     * The longest signal-to-lock time a handle records as it is (a longer one is recorded as this): an hour. The
     * histograms cover it from the start, so that recording never resizes one (an allocation in the timed part).
     */
    static final long MAX_SIGNAL_TO_LOCK_NANOS = TimeUnit.HOURS.toNanos(1);

    /** A thread's handle: its waits on the conditions, counted by that thread only. */
    abstract class Waiter {
        /** Returns from await that found the predicate still false. */
        long futileWakeups;
        /** Nanoseconds from the latest signal to holding the mutex again, per signalled return from await. */
        final Histogram signalToLock = new Histogram(MAX_SIGNAL_TO_LOCK_NANOS, 2);

        private Waiter() {}

        /** Awaits {@code condition} once, holding the mutex, and records the signal-to-lock time if it was signalled. */
        final void await(MutexCondition condition, Signals signals) throws InterruptedException {
            long sent = signals.sent;
            signals.waiting++;
            try {
                condition.await();
            } finally {
                signals.waiting--;
            }
            if (signals.sent != sent) {
                long nanos = System.nanoTime() - signals.latestNanos;
                signalToLock.recordValue(Math.clamp(nanos, 0, MAX_SIGNAL_TO_LOCK_NANOS));
            }
        }
    }

    /** The put section of one thread. */
    final class Producer extends Waiter implements Runnable, ProducerConsumer.Putter {
        private Object element;
        private InterruptedException interrupted;

        private Producer() {}

        /** Waits for a free slot and stores {@code e}. */
        @Override
        public void put(Object e) throws InterruptedException {
            element = e;
            mutex.runExclusively(this);
            element = null;
            if (interrupted != null) {
                InterruptedException thrown = interrupted;
                interrupted = null;
                throw thrown;
            }
        }

        /** Inside the mutex; not for callers. */
        @Override
        public void run() {
            try {
                while (count == slots.length) {
                    await(notFull, notFullSignals);
                    if (count == slots.length) {
                        futileWakeups++;
                    }
                }
            } catch (InterruptedException e) {
                interrupted = e;
                return;
            }
            enqueue(element);
        }
    }

    /** The take section of one thread. */
    final class Consumer extends Waiter implements Runnable, ProducerConsumer.Taker {
        private Object element;
        private InterruptedException interrupted;

        private Consumer() {}

        /** Waits for an element and removes it. */
        @Override
        public Object take() throws InterruptedException {
            mutex.runExclusively(this);
            if (interrupted != null) {
                InterruptedException thrown = interrupted;
                interrupted = null;
                throw thrown;
            }
            Object e = element;
            element = null;
            return e;
        }

        /** Inside the mutex; not for callers. */
        @Override
        public void run() {
            try {
                while (count == 0) {
                    await(notEmpty, notEmptySignals);
                    if (count == 0) {
                        futileWakeups++;
                    }
                }
            } catch (InterruptedException e) {
                interrupted = e;
                return;
            }
            element = dequeue();
        }
    }
}
