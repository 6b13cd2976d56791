package io.numaloom;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link KeyedLock} on one carrier ({@code -Djdk.virtualThreadScheduler.parallelism=1}, the
 * {@code parallelism1} surefire execution): a virtual thread whose interrupt status is set and that
 * waits in {@code lock(key)} for a bucket guard held by a parked virtual thread must unmount, or
 * the guard's holder never gets the carrier back. Before the fix the guard's wait was a
 * {@code parkNanos} that returns at once while the status is set: the review's set-up hung 4 of 4.
 */
@Tag("parallelism1")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KeyedLockParallelismOneTest {

    @BeforeAll
    static void theJvmIsConfigured() {
        assertEquals("1", System.getProperty("jdk.virtualThreadScheduler.parallelism"),
                "run through the parallelism1 surefire execution");
    }

    /** A key of one hash whose {@code equals} parks its caller until released, once armed. */
    static final class ParkingKey {
        final int id;
        final CountDownLatch entered = new CountDownLatch(1), release = new CountDownLatch(1);
        volatile boolean armed;

        ParkingKey(int id) {
            this.id = id;
        }

        @Override public int hashCode() { return 42; }

        @Override public boolean equals(Object o) {
            if (armed) {
                armed = false;
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            return o instanceof ParkingKey k && k.id == id;
        }
    }

    @Test
    void anInterruptedWaiterForABucketGuardLetsTheGuardsParkedHolderRun() throws Exception {
        KeyedLock<ParkingKey> locks = new KeyedLock<>();
        ParkingKey x = new ParkingKey(1), y = new ParkingKey(2), z = new ParkingKey(3);
        // x is held thin by a platform thread: no record, so y's lookup calls equals only under the guard.
        CountDownLatch xHeld = new CountDownLatch(1), xDone = new CountDownLatch(1);
        Thread thin = Thread.ofPlatform().daemon().start(() -> {
            locks.lock(x);
            xHeld.countDown();
            try {
                xDone.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            locks.unlock(x);
        });
        xHeld.await();
        // A virtual thread takes the bucket's guard and parks inside y.equals, compared to x's hold.
        y.armed = true;
        Thread guardHolder = Thread.ofVirtual().start(() -> {
            locks.lock(y);
            locks.unlock(y);
        });
        y.entered.await();
        // An interrupted virtual thread waits for that guard in lock(z), on the one carrier.
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread interrupted = Thread.ofVirtual().start(() -> {
            Thread.currentThread().interrupt();
            waiting.countDown();
            locks.lock(z);
            stillInterrupted.set(Thread.currentThread().isInterrupted());
            locks.unlock(z);
        });
        waiting.await();
        // Give it time to reach the guard's sleeping wait; no verdict depends on this pause.
        Thread.sleep(200);
        y.release.countDown(); // the guard's holder needs the carrier to finish equals
        assertTrue(guardHolder.join(java.time.Duration.ofSeconds(60)), "the guard's holder never ran again");
        assertTrue(interrupted.join(java.time.Duration.ofSeconds(60)), "the interrupted waiter never got the guard");
        assertTrue(stillInterrupted.get(), "lock(key) cleared the interrupt status");
        xDone.countDown();
        thin.join();
        assertFalse(locks.isLocked(x));
        assertEquals(0, locks.activeKeys());
    }
}
