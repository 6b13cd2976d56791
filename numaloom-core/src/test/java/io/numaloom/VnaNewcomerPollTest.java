package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The newcomer's poll ({@link VnaNewcomerPoll}) on its own: what it takes, what it leaves, and that
 * it is bounded. Whether it pays is for the benches.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VnaNewcomerPollTest {

    @Test
    void aFreeLockIsTakenAsTheFastPathTakesIt() {
        VnaLock lock = new VnaLock();
        boolean took = VnaNewcomerPoll.poll(lock, Thread.currentThread());
        assertEquals(VnaCarriers.maySpin(Thread.currentThread()), took, "only a thread that may spin polls");
        if (took) {
            assertTrue(lock.isHeldByCurrentThread());
            assertEquals(1, lock.getHoldCount());
            lock.unlock();
        }
        assertFalse(lock.isLocked());
    }

    @Test
    void aLockHeldThroughThePollIsLeftToItsOwnerAndNothingIsQueued() throws Exception {
        VnaLock lock = new VnaLock();
        lock.lock(); // the test thread owns it until every poll has returned
        try {
            for (Thread.Builder builder : new Thread.Builder[] {Thread.ofPlatform(), Thread.ofVirtual()}) {
                AtomicBoolean took = new AtomicBoolean(true);
                Thread poller = builder.start(() -> took.set(VnaNewcomerPoll.poll(lock, Thread.currentThread())));
                poller.join(); // bounded: a fixed number of polls, then it returns
                assertFalse(took.get(), "the poll cannot take a held lock");
                assertTrue(lock.isHeldByCurrentThread(), "the owner still holds it");
                assertEquals(0, lock.getQueueLength(), "a poll does not queue");
                assertFalse(lock.hasQueuedThread(poller));
            }
        } finally {
            lock.unlock();
        }
        assertFalse(lock.isLocked());
    }

    @Test
    void aReservedLockIsNotTakenEvenWhenFree() {
        VnaLock lock = new VnaLock();
        lock.setWordRelease(VnaLock.RESERVED); // free, but reserved for a heir
        try {
            assertFalse(VnaNewcomerPoll.poll(lock, Thread.currentThread()), "the time bound: only the heir takes it");
            assertFalse(lock.isHeldByCurrentThread());
        } finally {
            lock.setWordRelease(0);
        }
        assertFalse(lock.isLocked());
    }
}
