package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
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
 * replaced the count-based one (the reservation). The stale-heir and phantom-waiter tests are
 * deterministic and fail on the code before their fix. The bound itself is measured under barging
 * hammers by {@code OvertakingBoundTest} in numaloom-stress (3 s in CI, 60 s under -Pstress).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
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
        VnaQueueNode stale = VnaQueueNode.forCurrentThread(Thread.currentThread()); // not queued anywhere
        VnaWaiters w = lock.waitersVolatile();
        w.heir = stale;
        AtomicBoolean acquired = new AtomicBoolean();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            acquired.set(true);
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> lock.getQueueLength() == 1, "the waiter to queue");
        lock.unlock();
        waiter.join(VnaLockTest.PATIENCE);
        assertTrue(acquired.get(), "the waiter was never woken: the stale heir blocked designation");
        assertFalse(lock.hasQueuedThreads());
    }

    /** The heir slot of a lock after its waiter left: a stale node there is cleared on the next release. */
    @Test
    void aStaleHeirIsClearedByTheNextContendedRelease() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        inflate(lock);
        VnaWaiters w = lock.waitersVolatile();
        lock.lock();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> w.heir() != null, "the waiter to become heir");
        VnaQueueNode stale = VnaQueueNode.forCurrentThread(Thread.currentThread());
        // Replace the live heir by a stale node, as a slow installer would have.
        VnaQueueNode live = w.heir();
        w.heir = stale;
        lock.unlock();
        waiter.join(VnaLockTest.PATIENCE);
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
        second.join(VnaLockTest.PATIENCE);
        assertFalse(second.isAlive());
        assertFalse(lock.isLocked());
    }

    /**
     * The heir's deadline: {@link VnaLock#PATIENCE_NANOS} after its designation, or
     * {@link VnaLock#STARVATION_NANOS} after it queued if that is earlier, so a thread that waited
     * behind others reserves as soon as it is heir. Checked on the computed deadline, with the
     * clock readings passed in, so that no timing enters the test.
     */
    @Test
    void aHeirThatQueuedLongAgoIsOverdueSoonerThanItsPatience() {
        VnaQueueNode q = VnaQueueNode.forCurrentThread(Thread.currentThread());
        long before = System.nanoTime();
        q.queuedAt = before;
        VnaSuccession.designate(q);
        long after = System.nanoTime();
        assertFalse(q.overdue(before + VnaLock.PATIENCE_NANOS - 1), "overdue before its patience ran out");
        assertTrue(q.overdue(after + VnaLock.PATIENCE_NANOS), "not overdue after its patience ran out");

        long halfPatience = VnaLock.PATIENCE_NANOS / 2;
        q.queuedAt = before - VnaLock.STARVATION_NANOS + halfPatience; // queued long ago
        VnaSuccession.designate(q);
        assertFalse(q.overdue(before + halfPatience - 1));
        assertTrue(q.overdue(before + halfPatience), "the starvation deadline did not come first");

        q.queuedAt = before - 2 * VnaLock.STARVATION_NANOS; // already starving when designated
        VnaSuccession.designate(q);
        assertTrue(q.overdue(before), "a starving heir must be overdue at once");
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
        VnaLockTest.awaitCondition(() -> reserved(lock), "the heir to reserve the lock");
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
        waiter.join(VnaLockTest.PATIENCE);
        assertTrue(acquired.get());
        assertEquals(0, lock.word(), "the reservation outlived the heir");
    }

    /**
     * A heir that reserved the lock and then times out leaves it free for everybody. The heir must
     * reserve before its timed wait ends, which a busy machine may not let it do (it reserves only
     * when it runs): a wait that ended before the reservation was seen proves nothing, and is tried
     * again, twice as long, up to 16 s.
     */
    @Test
    void aHeirThatGivesUpClearsItsReservation() throws Exception {
        for (long millis = 250; !aHeirReservesAndGivesUp(millis); millis *= 2) {
            assertTrue(millis < 16_000, "the heir never reserved the lock within a timed wait of " + millis + " ms");
        }
    }

    /**
     * The main thread holds the lock; the heir waits {@code millis} with a timed tryLock. Checks that
     * the lock is free of any reservation once the heir has given up. Returns whether the heir was
     * seen to reserve the lock before it gave up.
     */
    private static boolean aHeirReservesAndGivesUp(long millis) throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        lock.lock();
        AtomicBoolean timedOut = new AtomicBoolean();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                timedOut.set(!lock.tryLock(millis, TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        VnaLockTest.awaitCondition(() -> reserved(lock) || !waiter.isAlive(),
                "the heir to reserve the lock or give up");
        boolean reserved = reserved(lock);
        waiter.join();
        assertTrue(timedOut.get());
        assertEquals(VnaLock.LOCKED, lock.word(), "the reservation outlived the heir");
        lock.unlock();
        AtomicBoolean taken = new AtomicBoolean();
        Thread other = Thread.ofPlatform().start(() -> taken.set(lock.tryLock()));
        other.join();
        assertTrue(taken.get(), "a free lock was not taken by tryLock after the heir left");
        return reserved;
    }

    private static boolean reserved(VnaLock lock) {
        return (lock.word() & VnaLock.RESERVED) != 0;
    }

    /** Without {@code -Dnumaloom.diagnostics=true} nothing is counted (see LockDiagnosticsTest for counting). */
    @Test
    void diagnosticsAreOffByDefault() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        inflate(lock);
        assertFalse(LockDiagnostics.enabled());
        assertEquals(new LockDiagnostics.Counts(0, 0, 0, 0, 0, 0, 0), LockDiagnostics.snapshot());
    }

    /** Creates the lock's VnaWaiters record by one timed-out contended attempt. */
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
        assertSame(VnaWaiters.class, lock.waitersVolatile().getClass());
        assertEquals(0, lock.getQueueLength());
    }
}
