package io.numaloom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the heir parks behind an owner that barged in (see "Unlock and the benign race" in
 * {@link VnaLock}). While the heir has not read the lock free since it registered, the owner may
 * have read a stale "quiet" hint before the registration, so the heir parks with a timeout (the
 * recovery). Once it has read the lock free, every later owner acquired after that read and so
 * releases through the fenced path: the heir parks without a timeout, which spares virtual
 * threads the scheduler's timer thread, and the owner's release must wake it.
 *
 * <p>A platform thread parked with a timeout is {@code TIMED_WAITING}, without one
 * {@code WAITING}: that is how the tests tell the two parks apart. The interleaving where the
 * heir reads the lock free and a barger takes it before the heir's CAS is forced through
 * {@link VnaLock.Seams#heirReadFree}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VnaLockHeirParkTest {

    @AfterEach
    void removeSeams() {
        VnaLock.Seams.installed = null;
    }

    @Test
    void aHeirThatNeverReadTheLockFreeParksWithATimeout() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        lock.lock();
        AtomicBoolean acquired = new AtomicBoolean();
        Thread heir = Thread.ofPlatform().start(() -> {
            lock.lock();
            acquired.set(true);
            lock.unlock();
        });
        assertEquals(Thread.State.TIMED_WAITING, awaitParkedHeir(lock, heir),
                "a heir that never saw the lock free must keep the recovery timeout");
        lock.unlock();
        heir.join(TimeUnit.SECONDS.toMillis(10));
        assertTrue(acquired.get());
    }

    @Test
    void aHeirThatReadTheLockFreeParksWithoutTimeoutAndTheBargersReleaseWakesIt() throws Exception {
        for (int attempt = 1; !bargerTakesTheLockUnderTheHeirsNose(); attempt++) {
            // The heir reserved the lock before the main thread released it (a busy machine took more
            // than the heir's patience between designation and release): the barge cannot happen.
            assertTrue(attempt < 20, "the interleaving was not reached in 20 attempts");
        }
    }

    /**
     * The main thread holds the lock; the heir waits. The main thread releases; the seam holds the
     * heir between its read of the free lock and its CAS until the main thread has taken the lock
     * back. The heir must then park without a timeout, and the main thread's release wake it.
     * Returns false if the heir had reserved the lock, so that the main thread could not barge.
     */
    private static boolean bargerTakesTheLockUnderTheHeirsNose() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        lock.lock();
        CountDownLatch readFree = new CountDownLatch(1);
        AtomicBoolean acquired = new AtomicBoolean();
        Thread heir = Thread.ofPlatform().unstarted(() -> {
            lock.lock();
            acquired.set(true);
            lock.unlock();
        });
        VnaLock.Seams.installed = new VnaLock.Seams() {
            @Override
            void heirReadFree() {
                if (Thread.currentThread() != heir || readFree.getCount() == 0) {
                    return;
                }
                readFree.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (((int) VnaLock.STATE.getVolatile(lock) & (VnaLock.LOCKED | VnaLock.RESERVED)) == 0
                        && System.nanoTime() < deadline) {
                    Thread.yield();
                }
            }
        };
        heir.start();
        VnaLockTest.awaitCondition(() -> heirThread(lock) == heir, "the waiter to become heir");
        lock.unlock();
        assertTrue(readFree.await(10, TimeUnit.SECONDS), "the heir never read the released lock");
        lock.lock(); // barges in: a free, unreserved lock is taken by CAS; a reserved one is waited for
        if (acquired.get()) {
            lock.unlock();
            heir.join();
            return false;
        }
        assertEquals(Thread.State.WAITING, awaitParkedHeir(lock, heir),
                "a heir that saw the lock free must park without a timeout");
        lock.unlock();
        heir.join(TimeUnit.SECONDS.toMillis(10));
        assertTrue(acquired.get(), "the barger's release did not wake the heir");
        assertFalse(lock.isLocked());
        return true;
    }

    private static Thread heirThread(VnaLock lock) {
        VnaLock.Waiters w = (VnaLock.Waiters) VnaLock.WAITERS.getVolatile(lock);
        VnaLock.QNode h = w == null ? null : w.heir();
        return h == null ? null : h.thread;
    }

    /**
     * Waits until {@code heir} is the heir and parked (its spin lasts microseconds) and returns the
     * state it was seen parked in: a timed park ends and starts again, so the state is read once.
     */
    private static Thread.State awaitParkedHeir(VnaLock lock, Thread heir) throws InterruptedException {
        Thread.State[] seen = new Thread.State[1];
        VnaLockTest.awaitCondition(() -> {
            seen[0] = heir.getState();
            return heirThread(lock) == heir
                    && (seen[0] == Thread.State.WAITING || seen[0] == Thread.State.TIMED_WAITING);
        }, "the heir to park");
        return seen[0];
    }
}
