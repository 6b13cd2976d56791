package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Regressions for the defects an adversarial review found in the contended path (a stale heir,
 * a fairness bound that did not hold, a phantom waiter), and the time-based fairness bound that
 * replaced the count-based one. Each test fails on the code before its fix; the stale-heir and
 * phantom-waiter tests are deterministic, the fairness test asserts a bound with a scheduling
 * slack generous enough for a loaded 2-core CI machine (its long version is in numaloom-stress).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VnaLockContendedPathTest {

    /**
     * A heir slot left holding a node that is no longer a candidate (its installer was
     * descheduled between the CAS and the undo) must not stop designation: the next thread that
     * looks at the slot clears it. Before the fix, the waiter below was never woken.
     */
    @Test
    void aStaleHeirIsClearedByWhoeverSeesIt() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        inflate(lock);
        lock.lock();
        VnaLock.QNode stale = VnaLock.QNode.forCurrentThread(Thread.currentThread()); // not queued anywhere
        VnaLock.Waiters w = (VnaLock.Waiters) VnaLock.WAITERS.getVolatile(lock);
        VnaLock.Waiters.HEIR.setVolatile(w, stale);
        AtomicBoolean acquired = new AtomicBoolean();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            acquired.set(true);
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> lock.getQueueLength() == 1, "the waiter to queue");
        lock.unlock();
        waiter.join(TimeUnit.SECONDS.toMillis(10));
        assertTrue(acquired.get(), "the waiter was never woken: the stale heir blocked designation");
        assertFalse(lock.hasQueuedThreads());
    }

    /** The heir slot of a lock after its waiter left: a stale node there is cleared on the next release. */
    @Test
    void aStaleHeirIsClearedByTheNextContendedRelease() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        inflate(lock);
        VnaLock.Waiters w = (VnaLock.Waiters) VnaLock.WAITERS.getVolatile(lock);
        lock.lock();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> w.heir() != null, "the waiter to become heir");
        VnaLock.QNode stale = VnaLock.QNode.forCurrentThread(Thread.currentThread());
        // Replace the live heir by a stale node, as a slow installer would have.
        VnaLock.QNode live = w.heir();
        VnaLock.Waiters.HEIR.setVolatile(w, stale);
        lock.unlock();
        waiter.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(waiter.isAlive(), "the live candidate " + live.thread + " was never designated");
    }

    /**
     * A placement that throws must leave the lock as it was: no phantom waiter in the queue
     * length, no fenced path forever after.
     */
    @Test
    void aThrowingPlacementLeavesNoPhantomWaiter() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        VnaLock lock = VnaLock.withPlacement(2, () -> {
            if (calls.getAndIncrement() == 0) {
                throw new IllegalStateException("placement failed");
            }
            return 1;
        });
        lock.lock();
        AtomicLong thrown = new AtomicLong();
        Thread t = Thread.ofPlatform().start(() -> {
            IllegalStateException e = assertThrows(IllegalStateException.class, lock::lock);
            assertEquals("placement failed", e.getMessage());
            assertFalse(lock.isHeldByCurrentThread());
            thrown.incrementAndGet();
        });
        t.join();
        assertEquals(1, thrown.get());
        assertEquals(0, lock.getQueueLength(), "a phantom waiter is counted");
        assertFalse(lock.hasQueuedThreads());
        lock.unlock();
        Thread second = Thread.ofPlatform().start(() -> {
            lock.lock();
            lock.unlock();
        });
        second.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(second.isAlive());
        assertFalse(lock.isLocked());
    }

    /**
     * Hammers of queue 0 barge on every iteration with no yield inside, on more than one carrier
     * (the regime where the old count-based bound was exceeded); a thread of queue 1 acquires
     * repeatedly. Each of its waits must stay within the documented bound in time plus a
     * scheduling slack. Without a bound (pure barging) the outsider waits until the hammers stop.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aWaiterOfAnotherQueueIsOvertakenForABoundedTime(boolean virtual) throws Exception {
        Result r = overtakingRun(virtual, 8, 200, TimeUnit.SECONDS.toNanos(20));
        System.out.printf("fairness (%s threads): %d acquisitions by the outsider, max wait %.2f ms"
                        + " (bound %.1f ms), %d by the hammers%n", virtual ? "virtual" : "platform",
                r.outsiderAcquisitions, r.maxWaitNanos / 1e6, boundNanos(2) / 1e6, r.hammerAcquisitions);
        assertEquals(200, r.outsiderAcquisitions, "the waiter of queue 1 starved");
        assertTrue(r.maxWaitNanos <= boundNanos(2) + SLACK_NANOS,
                "a wait of " + r.maxWaitNanos / 1_000_000 + " ms; bound " + boundNanos(2) / 1_000_000
                        + " ms plus " + SLACK_NANOS / 1_000_000 + " ms of scheduling slack");
    }

    /** Scheduling slack for a loaded 2-core machine: a descheduled heir, a GC pause. */
    static final long SLACK_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The documented bound for {@code queues} queues, without the critical sections and scheduling. */
    static long boundNanos(int queues) {
        return (queues - 1) * (VnaLock.TURN_NANOS + VnaLock.PATIENCE_NANOS) + VnaLock.PATIENCE_NANOS;
    }

    record Result(long outsiderAcquisitions, long maxWaitNanos, long hammerAcquisitions) {}

    /**
     * Runs {@code hammers} barging threads on queue 0 and one outsider on queue 1 that acquires
     * {@code rounds} times; returns the outsider's count and its longest wait.
     */
    static Result overtakingRun(boolean virtual, int hammers, int rounds, long capNanos) throws InterruptedException {
        ThreadLocal<Integer> queue = ThreadLocal.withInitial(() -> 0);
        VnaLock lock = VnaLock.withPlacement(2, queue::get);
        ThreadFactory factory = virtual ? Thread.ofVirtual().factory() : Thread.ofPlatform().factory();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong hammerAcquisitions = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < hammers; i++) {
            Thread t = factory.newThread(() -> {
                long mine = 0;
                while (!stop.get()) {
                    lock.lock();
                    try {
                        mine++;
                    } finally {
                        lock.unlock();
                    }
                }
                hammerAcquisitions.addAndGet(mine);
            });
            threads.add(t);
            t.start();
        }
        AtomicLong maxWait = new AtomicLong();
        AtomicLong done = new AtomicLong();
        Thread outsider = factory.newThread(() -> {
            queue.set(1);
            long deadline = System.nanoTime() + capNanos;
            for (int i = 0; i < rounds && System.nanoTime() < deadline; i++) {
                long start = System.nanoTime();
                lock.lock();
                try {
                    maxWait.accumulateAndGet(System.nanoTime() - start, Math::max);
                    done.incrementAndGet();
                } finally {
                    lock.unlock();
                }
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        });
        outsider.start();
        outsider.join(TimeUnit.NANOSECONDS.toMillis(capNanos) + 10_000);
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        assertFalse(lock.isLocked());
        return new Result(done.get(), maxWait.get(), hammerAcquisitions.get());
    }

    /**
     * A heir kept waiting longer than {@link VnaLock#PATIENCE_NANOS} reserves the lock: once
     * released, the lock is free but nobody else may take it, not even by tryLock, and the heir
     * gets it.
     */
    @Test
    void aHeirThatRanOutOfPatienceReservesTheLock() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        lock.lock();
        AtomicBoolean acquired = new AtomicBoolean();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            acquired.set(true);
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> ((int) VnaLock.STATE.getVolatile(lock) & VnaLock.RESERVED) != 0,
                "the heir to reserve the lock");
        lock.unlock();
        AtomicBoolean bargedIn = new AtomicBoolean();
        Thread barger = Thread.ofPlatform().start(() -> {
            if (lock.tryLock()) { // legitimate only if the heir already came and went
                bargedIn.set(!acquired.get());
                lock.unlock();
            }
        });
        barger.join();
        assertFalse(bargedIn.get(), "tryLock took a reserved lock");
        waiter.join(TimeUnit.SECONDS.toMillis(10));
        assertTrue(acquired.get());
        assertEquals(0, (int) VnaLock.STATE.getVolatile(lock), "the reservation outlived the heir");
    }

    /** A heir that reserved the lock and then times out leaves it free for everybody. */
    @Test
    void aHeirThatGivesUpClearsItsReservation() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        lock.lock();
        AtomicBoolean timedOut = new AtomicBoolean();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                timedOut.set(!lock.tryLock(200, TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        VnaLockTest.awaitCondition(() -> ((int) VnaLock.STATE.getVolatile(lock) & VnaLock.RESERVED) != 0,
                "the heir to reserve the lock");
        waiter.join();
        assertTrue(timedOut.get());
        assertEquals(VnaLock.LOCKED, (int) VnaLock.STATE.getVolatile(lock), "the reservation outlived the heir");
        lock.unlock();
        AtomicBoolean taken = new AtomicBoolean();
        Thread other = Thread.ofPlatform().start(() -> taken.set(lock.tryLock()));
        other.join();
        assertTrue(taken.get(), "a free lock was not taken by tryLock after the heir left");
    }

    /** Without {@code -Dnumaloom.diagnostics=true} nothing is counted (see LockDiagnosticsTest for counting). */
    @Test
    void diagnosticsAreOffByDefault() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        inflate(lock);
        assertFalse(LockDiagnostics.enabled());
        assertEquals(new LockDiagnostics.Counts(0, 0, 0, 0, 0), LockDiagnostics.snapshot());
    }

    /** Creates the lock's Waiters record by one timed-out contended attempt. */
    static void inflate(VnaLock lock) throws InterruptedException {
        lock.lock();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                assertFalse(lock.tryLock(1, TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        t.join();
        lock.unlock();
        assertSame(VnaLock.Waiters.class, VnaLock.WAITERS.getVolatile(lock).getClass());
        assertEquals(0, lock.getQueueLength());
    }
}
