package io.numaloom;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contended-path counters. This class runs in the surefire execution that sets
 * {@code -Dnumaloom.diagnostics=true} (with parallelism 1 and two virtual nodes); the default
 * execution checks that counting is off without the property.
 */
@Tag("parallelism1")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockDiagnosticsTest {

    @Test
    void countsWhatAWaiterDid() throws Exception {
        assertTrue(LockDiagnostics.enabled(), "this execution runs with -Dnumaloom.diagnostics=true");
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        LockDiagnostics.Counts before = LockDiagnostics.snapshot();
        lock.lock();
        lock.unlock(); // uncontended: counts nothing
        assertEquals(before, LockDiagnostics.snapshot(), "the uncontended path counted something");
        lock.lock();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> lock.getQueueLength() == 1
                && LockDiagnostics.snapshot().minus(before).parks() >= 1, "the waiter to park");
        lock.unlock();
        waiter.join();
        LockDiagnostics.Counts d = LockDiagnostics.snapshot().minus(before);
        assertEquals(1, d.slowPaths(), d.toString());
        assertEquals(1, d.queuedAcquisitions(), d.toString());
        assertTrue(d.parks() >= 1, d.toString());
        // The owner here barged in, so the heir parks with its 1 ms recovery timeout: on a busy machine
        // it may wake by itself (no unpark), outlast its patience while this thread still holds the
        // lock, and reserve it, once (a held lock is reserved at most once). The waiter designated
        // itself, so no designation wake-up either: every wake-up counted answers a park.
        assertTrue(d.unparks() <= d.parks(), d.toString());
        assertTrue(d.reservations() <= 1, d.toString());
    }

    /** A heir behind a queued owner parks without a timeout, so the owner's release must wake it. */
    @Test
    void countsTheWakeUpOfAHeirBehindAQueuedOwner() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        lock.lock();
        Thread queuedOwner = Thread.ofPlatform().start(() -> {
            lock.lock(); // through the queue: this thread will be a queued owner
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> lock.getQueueLength() == 1, "the first waiter to queue");
        lock.unlock();
        held.await();
        LockDiagnostics.Counts before = LockDiagnostics.snapshot();
        Thread heir = Thread.ofPlatform().start(() -> {
            lock.lock();
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> LockDiagnostics.snapshot().minus(before).parks() >= 1, "the heir to park");
        release.countDown();
        queuedOwner.join();
        heir.join();
        LockDiagnostics.Counts d = LockDiagnostics.snapshot().minus(before);
        assertEquals(1, d.queuedAcquisitions(), d.toString());
        assertTrue(d.unparks() >= 1, "the queued owner's release woke the parked heir: " + d);
    }

    /** A heir kept waiting longer than its patience reserves the lock, and the count shows it. */
    @Test
    void countsAReservation() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        LockDiagnostics.Counts before = LockDiagnostics.snapshot();
        lock.lock();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> LockDiagnostics.snapshot().minus(before).reservations() == 1,
                "the heir to reserve the lock");
        lock.unlock();
        waiter.join();
    }
}
