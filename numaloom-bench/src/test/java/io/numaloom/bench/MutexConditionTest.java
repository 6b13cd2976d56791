package io.numaloom.bench;

import io.numaloom.bench.locks.Locks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every mutex of the bench gives conditions: the lock's own, the monitor's wait set, or a bench-made queue. */
class MutexConditionTest {
    /** A hang guard only: a condition that loses a wake-up fails here instead of hanging the build. */
    private static final Duration GUARD = Duration.ofSeconds(30);

    @Test
    void everyMutexHasConditionsThatWakeAWaiter() throws Exception {
        for (String name : Mutex.names()) {
            for (boolean virtual : new boolean[] {true, false}) {
                Mutex mutex = Mutex.create(name);
                MutexCondition ready = mutex.newCondition();
                MutexCondition other = mutex.newCondition();
                boolean[] flag = new boolean[1];
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Runnable waitForFlag = () -> {
                    try {
                        while (!flag[0]) {
                            ready.await();
                        }
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                };
                Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform();
                Thread waiter = builder.start(() -> {
                    try {
                        mutex.runExclusively(waitForFlag);
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                mutex.runExclusively(() -> {
                    flag[0] = true;
                    other.signal(); // a signal of another condition wakes nobody who counts on it, and breaks nothing
                    ready.signal();
                });
                assertTrue(waiter.join(GUARD), name + ": the waiter was woken");
                assertNull(failure.get(), name);
            }
        }
    }

    @Test
    void conditionsComeFromTheLockTheMonitorOrTheBench() {
        assertFalse(Mutex.create("VNA").newCondition() instanceof ParkingCondition, "VnaLock has its own");
        assertFalse(Mutex.create("UNFAIR_REENTRANT").newCondition() instanceof ParkingCondition);
        assertFalse(Mutex.create(Locks.SYNCHRONIZED).newCondition() instanceof ParkingCondition, "wait/notifyAll");
        for (String baseline : java.util.List.of("SHFL", "NUMA_MCS", "MCS", "TTAS", "RELAXED")) {
            assertInstanceOf(ParkingCondition.class, Mutex.create(baseline).newCondition(), baseline + " has none of its own");
        }
    }

    /** An interrupted waiter leaves the queue, holds the lock again, and the next signal goes to the next waiter. */
    @Test
    void anInterruptedParkingWaiterLeavesTheQueueHoldingTheLock() throws Exception {
        Lock lock = Locks.create("SHFL");
        ParkingCondition condition = new ParkingCondition(lock);
        AtomicBoolean interruptedWithLockHeld = new AtomicBoolean();
        AtomicBoolean secondWoken = new AtomicBoolean();
        Thread first = Thread.ofVirtual().start(() -> {
            lock.lock();
            try {
                condition.await();
            } catch (InterruptedException e) {
                // Holding the lock: the queue may be read, and no one else is in.
                interruptedWithLockHeld.set(condition.waiting() == 1);
            } finally {
                lock.unlock();
            }
        });
        awaitWaiters(lock, condition, 1);
        Thread second = Thread.ofPlatform().start(() -> {
            lock.lock();
            try {
                condition.await();
                secondWoken.set(true);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                lock.unlock();
            }
        });
        awaitWaiters(lock, condition, 2);
        first.interrupt();
        assertTrue(first.join(GUARD));
        assertTrue(interruptedWithLockHeld.get(), "the interrupted waiter took itself out, the other still waits");
        lock.lock();
        try {
            assertEquals(1, condition.waiting());
            condition.signal();
        } finally {
            lock.unlock();
        }
        assertTrue(second.join(GUARD));
        assertTrue(secondWoken.get());
    }

    /** Polls, with the lock held, until {@code n} threads wait; the deadline only guards against a hang. */
    private static void awaitWaiters(Lock lock, ParkingCondition condition, int n) throws InterruptedException {
        long deadline = System.nanoTime() + GUARD.toNanos();
        while (true) {
            lock.lock();
            try {
                if (condition.waiting() == n) {
                    return;
                }
            } finally {
                lock.unlock();
            }
            assertTrue(System.nanoTime() - deadline < 0, "hang guard: " + n + " waiters never showed up");
            Thread.sleep(1);
        }
    }
}
