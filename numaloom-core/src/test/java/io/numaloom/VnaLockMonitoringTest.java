package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ReentrantLock's monitoring methods on VnaLock: isFair, hasQueuedThread, getQueuedThreads. */
@Timeout(30)
class VnaLockMonitoringTest {

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(1);
        }
    }

    static Thread.Builder builder(boolean virtual) {
        return virtual ? Thread.ofVirtual() : Thread.ofPlatform();
    }

    @Test
    void isNotFairAsANonFairReentrantLock() {
        assertFalse(new VnaLock().isFair());
        assertFalse(VnaLock.perSocket().isFair());
        assertEquals(new ReentrantLock().isFair(), new VnaLock().isFair());
    }

    @Test
    void nullThreadIsRefused() {
        assertThrows(NullPointerException.class, () -> new VnaLock().hasQueuedThread(null));
    }

    /** Threads blocked in lock() are reported, on every queue, and no longer once they have the lock. */
    @ParameterizedTest(name = "virtual {0}")
    @ValueSource(booleans = {false, true})
    void threadsWaitingInLockAreReportedUntilTheyAcquire(boolean virtual) throws Exception {
        VnaLock lock = VnaLockTest.spread(2);
        Thread me = Thread.currentThread();
        assertFalse(lock.hasQueuedThread(me));
        assertTrue(lock.getQueuedThreads().isEmpty());
        lock.lock();
        Thread[] waiters = new Thread[3];
        for (int i = 0; i < waiters.length; i++) {
            waiters[i] = builder(virtual).start(() -> {
                lock.lock();
                lock.unlock();
            });
        }
        for (Thread t : waiters) {
            await(() -> lock.hasQueuedThread(t), t + " reported while it waits in lock()");
        }
        assertEquals(3, lock.getQueuedThreads().size(), lock.getQueuedThreads().toString());
        assertFalse(lock.hasQueuedThread(me), "the owner is not queued");
        assertTrue(lock.hasQueuedThreads());
        lock.unlock();
        for (Thread t : waiters) {
            t.join();
            assertFalse(lock.hasQueuedThread(t), t + " acquired and left");
        }
        assertTrue(lock.getQueuedThreads().isEmpty());
    }

    /** A waiter that gives up, by timeout or interrupt, is no longer reported; the one behind it still is. */
    @ParameterizedTest(name = "virtual {0}")
    @ValueSource(booleans = {false, true})
    void aWaiterThatGaveUpIsNoLongerReported(boolean virtual) throws Exception {
        VnaLock lock = new VnaLock();
        lock.lock();
        AtomicBoolean timedOut = new AtomicBoolean();
        Thread timed = builder(virtual).start(() -> {
            try {
                timedOut.set(!lock.tryLock(300, TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread interruptible = builder(virtual).start(() -> {
            try {
                lock.lockInterruptibly();
                lock.unlock();
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        Thread patient = builder(virtual).start(() -> {
            lock.lock();
            lock.unlock();
        });
        for (Thread t : new Thread[] {timed, interruptible, patient}) {
            await(() -> lock.hasQueuedThread(t), t + " reported while it waits");
        }
        timed.join();
        assertTrue(timedOut.get(), "the timed tryLock gave up");
        assertFalse(lock.hasQueuedThread(timed), "a waiter that timed out is not reported");
        interruptible.interrupt();
        interruptible.join();
        assertTrue(interrupted.get());
        assertFalse(lock.hasQueuedThread(interruptible), "a waiter that was interrupted is not reported");
        assertTrue(lock.hasQueuedThread(patient), "the waiter behind them still is");
        assertEquals(1, lock.getQueuedThreads().size(), lock.getQueuedThreads().toString());
        lock.unlock();
        patient.join();
        assertFalse(lock.hasQueuedThread(patient));
    }

    /** As with ReentrantLock: a thread awaiting a condition is not queued for the lock until signalled. */
    @Test
    void aConditionWaiterIsNotAQueuedThread() throws Exception {
        VnaLock lock = new VnaLock();
        Condition c = lock.newCondition();
        Thread waiter = Thread.ofVirtual().start(() -> {
            lock.lock();
            try {
                c.awaitUninterruptibly();
            } finally {
                lock.unlock();
            }
        });
        await(() -> {
            lock.lock();
            try {
                return lock.hasWaiters(c);
            } finally {
                lock.unlock();
            }
        }, "the waiter awaits");
        lock.lock();
        assertFalse(lock.hasQueuedThread(waiter));
        c.signal();
        lock.unlock();
        waiter.join();
        assertFalse(lock.hasQueuedThread(waiter));
    }
}
