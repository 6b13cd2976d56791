package io.numaloom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * How the heir parks behind an owner that barged in (see "The benign race" in
 * {@link VnaHeirWait}). While the heir has not read the lock free since it registered, the owner may
 * have read a stale "quiet" hint before the registration, so the heir parks with a timeout (the
 * recovery). Once it has read the lock free, every later owner acquired after that read and so
 * releases through the fenced path: the heir parks without a timeout, which spares virtual
 * threads the scheduler's timer thread, and the owner's release must wake it.
 *
 * <p>A platform thread parked with a timeout is {@code TIMED_WAITING}, without one
 * {@code WAITING}: that is how the tests tell the two parks apart. A heir also parks, with a
 * timeout, when it naps after losing a spin to a barger ({@link VnaHeirWait#HEIR_NAP_NANOS}), and it
 * does not announce a nap; so the state is read only while the heir is inside an announced park
 * ({@code VnaQueueNode.PARKED} set, no park started since), never from a single look at a thread that
 * may be napping. The interleaving where the heir reads the lock free and a barger takes it
 * before the heir's CAS is forced through {@link VnaSeams#heirReadFree}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class VnaLockHeirParkTest {

    @AfterEach
    void removeSeams() {
        VnaSeams.installed = null;
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
        assertEquals(Thread.State.TIMED_WAITING, awaitAnnouncedPark(lock, heir),
                "a heir that never saw the lock free must keep the recovery timeout");
        lock.unlock();
        heir.join(VnaLockTest.PATIENCE);
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
     * A virtual heir that wakes from a park (here its recovery timeout, since the main thread holds
     * the lock from before it queued) and finds the lock held throughout its next spin is told to nap
     * instead of parking again (see "A virtual heir woken to a held lock" in {@link VnaHeirWait}).
     */
    @Test
    void aVirtualHeirWokenToAHeldLockIsToldToNap() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        lock.lock();
        CountDownLatch told = new CountDownLatch(1);
        AtomicBoolean acquired = new AtomicBoolean();
        Thread heir = startHeirToldToNap(lock, Thread.ofVirtual(), acquired, told::countDown);
        assertTrue(told.await(VnaLockTest.PATIENCE.toMillis(), TimeUnit.MILLISECONDS),
                "a virtual heir woken to a held lock was never told to nap");
        assertFalse(acquired.get(), "the heir took a lock the main thread holds");
        lock.unlock();
        heir.join(VnaLockTest.PATIENCE);
        assertTrue(acquired.get());
    }

    /**
     * A platform heir woken to a held lock parks again: the nap for a woken heir was measured to cost
     * platform threads. The main thread holds the lock until the heir has parked three times, each
     * park ended by its recovery timeout: two of its spins followed a park and found the lock held.
     */
    @Test
    void aPlatformHeirWokenToAHeldLockIsNotToldToNap() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        lock.lock();
        AtomicInteger told = new AtomicInteger();
        AtomicBoolean acquired = new AtomicBoolean();
        Thread heir = startHeirToldToNap(lock, Thread.ofPlatform(), acquired, told::incrementAndGet);
        VnaLockTest.awaitCondition(() -> {
            VnaQueueNode q = heirNode(lock);
            return q != null && q.thread == heir && q.parks >= 3;
        }, "the heir to park three times");
        assertEquals(0, told.get(), "a platform heir was told to nap after a park");
        lock.unlock();
        heir.join(VnaLockTest.PATIENCE);
        assertTrue(acquired.get());
    }

    /**
     * Starts, from {@code builder}, a heir that locks {@code lock} (which the main thread holds),
     * sets {@code acquired} and unlocks; {@code onToldToNap} runs each time the seam
     * {@link VnaSeams#heirWokenToHeldLock} fires on that heir.
     */
    private static Thread startHeirToldToNap(VnaLock lock, Thread.Builder builder, AtomicBoolean acquired,
                                             Runnable onToldToNap) {
        Thread heir = builder.unstarted(() -> {
            lock.lock();
            acquired.set(true);
            lock.unlock();
        });
        VnaSeams.installed = new VnaSeams() {
            @Override
            void heirWokenToHeldLock() {
                if (Thread.currentThread() == heir) {
                    onToldToNap.run();
                }
            }
        };
        heir.start();
        return heir;
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
        VnaSeams.installed = new VnaSeams() {
            @Override
            void heirReadFree() {
                if (Thread.currentThread() != heir || readFree.getCount() == 0) {
                    return;
                }
                readFree.countDown();
                long deadline = System.nanoTime() + VnaLockTest.PATIENCE.toNanos();
                while ((lock.word() & (VnaLock.LOCKED | VnaLock.RESERVED)) == 0
                        && System.nanoTime() < deadline) {
                    Thread.yield();
                }
            }
        };
        heir.start();
        VnaLockTest.awaitCondition(() -> heirThread(lock) == heir, "the waiter to become heir");
        lock.unlock();
        assertTrue(readFree.await(VnaLockTest.PATIENCE.toMillis(), TimeUnit.MILLISECONDS),
                "the heir never read the released lock");
        lock.lock(); // barges in: a free, unreserved lock is taken by CAS; a reserved one is waited for
        if (acquired.get()) {
            lock.unlock();
            heir.join();
            return false;
        }
        assertEquals(Thread.State.WAITING, awaitAnnouncedPark(lock, heir),
                "a heir that saw the lock free must park without a timeout");
        lock.unlock();
        heir.join(VnaLockTest.PATIENCE);
        assertTrue(acquired.get(), "the barger's release did not wake the heir");
        assertFalse(lock.isLocked());
        return true;
    }

    private static VnaQueueNode heirNode(VnaLock lock) {
        VnaWaiters w = lock.waitersVolatile();
        return w == null ? null : w.heir();
    }

    private static Thread heirThread(VnaLock lock) {
        VnaQueueNode h = heirNode(lock);
        return h == null ? null : h.thread;
    }

    /**
     * Waits until {@code heir} is the heir and parked in an announced park, and returns the state
     * it was seen in there. The heir also parks, with a timeout, when it naps after losing a spin
     * to a barger, and a nap is not announced; between parks it runs. So one read of the state can
     * catch a nap or a thread between parks, and the state counts only when it was read inside an
     * announced park: {@code PARKED} set and the node's park count unchanged before and after the
     * read. {@code PARKED} is set before the announced park starts (and its count rises) and
     * cleared after it ends; a nap, which happens with {@code PARKED} clear, raises the count
     * before it parks. A parked state read between two such looks is therefore the announced
     * park's. Under load the heir may be seen between parks many times: it is looked at again
     * until such an observation is made, for up to {@link VnaLockTest#PATIENCE}.
     */
    private static Thread.State awaitAnnouncedPark(VnaLock lock, Thread heir) throws InterruptedException {
        long deadline = System.nanoTime() + VnaLockTest.PATIENCE.toNanos();
        Thread.State last = null;
        int looks = 0;
        for (;;) {
            VnaQueueNode q = heirNode(lock);
            if (q != null && q.thread == heir && (boolean) VnaQueueNode.PARKED.getVolatile(q)) {
                int parks = q.parks;
                Thread.State s = heir.getState();
                VarHandle.fullFence();
                if ((s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) && q.parks == parks
                        && (boolean) VnaQueueNode.PARKED.getVolatile(q) && heirNode(lock) == q) {
                    return s;
                }
                last = s;
                looks++;
            }
            if (System.nanoTime() - deadline > 0) {
                fail("the heir " + heir + " was never seen in an announced park in "
                        + VnaLockTest.PATIENCE.toSeconds() + " s (heir now " + heirThread(lock) + "; " + looks
                        + " looks while it was announced, the last one " + last + ")");
            }
            Thread.sleep(1);
        }
    }
}
