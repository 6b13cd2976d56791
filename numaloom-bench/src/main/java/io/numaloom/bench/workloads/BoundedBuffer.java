package io.numaloom.bench.workloads;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.MutexCondition;

/**
 * A bounded FIFO buffer over one {@link Mutex} and two of its conditions, laid out as
 * {@link java.util.concurrent.ArrayBlockingQueue} is: a ring of {@code capacity} slots with a put index, a take
 * index and a count, all guarded by the mutex. A put waits on {@code notFull} while every slot is taken, stores
 * the element and signals {@code notEmpty}; a take waits on {@code notEmpty} while no slot is, clears the slot and
 * signals {@code notFull}. The sections run through {@link Mutex#runExclusively(Runnable)}, so every lock of the
 * bench (and {@code synchronized}) is measured with the code an application would write over it.
 *
 * <p>Each thread uses its own {@link Producer} or {@link Consumer} handle: the handle is the critical section,
 * so a put or a take allocates nothing. An interrupt while waiting ends the call with
 * {@link InterruptedException} (the round's timeout interrupts stuck workers).
 *
 * <p>Thread-safety: the ring is guarded by the mutex; the handles are confined to their thread.
 */
class BoundedBuffer {
    private final Mutex mutex;
    private final MutexCondition notFull;
    private final MutexCondition notEmpty;
    private final Object[] slots;
    /** Guarded by {@link #mutex}. */
    private int putIndex;
    private int takeIndex;
    private int count;

    BoundedBuffer(Mutex mutex, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.mutex = mutex;
        this.notFull = mutex.newCondition();
        this.notEmpty = mutex.newCondition();
        this.slots = new Object[capacity];
    }

    /** Stores {@code element} in the next free slot; called holding the mutex with a free slot. Overridden by tests. */
    void enqueue(Object element) {
        slots[putIndex] = element;
        if (++putIndex == slots.length) {
            putIndex = 0;
        }
        count++;
        notEmpty.signal();
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
        notFull.signal();
        return element;
    }

    /** The elements stored; read holding the mutex (or after every thread was joined). */
    int size() {
        return count;
    }

    int capacity() {
        return slots.length;
    }

    /** A putting thread's handle. */
    Producer producer() {
        return new Producer();
    }

    /** A taking thread's handle. */
    Consumer consumer() {
        return new Consumer();
    }

    /** The put section of one thread. */
    final class Producer implements Runnable, ProducerConsumer.Putter {
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
                    notFull.await();
                }
            } catch (InterruptedException e) {
                interrupted = e;
                return;
            }
            enqueue(element);
        }
    }

    /** The take section of one thread. */
    final class Consumer implements Runnable, ProducerConsumer.Taker {
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
                    notEmpty.await();
                }
            } catch (InterruptedException e) {
                interrupted = e;
                return;
            }
            element = dequeue();
        }
    }
}
