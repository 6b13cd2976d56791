package io.numaloom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code tryLock()} on a lock that no thread holds but a heir has reserved: it may fail while the heir
 * can take the lock, never for long (see {@link VnaLock#RESERVATION_GRACE_NANOS}). On this JVM's
 * default scheduler (one carrier per CPU); the same scenarios on one carrier are in
 * {@link VnaLockParallelismOneTest}. Timing enters only as liveness bounds thousands of times the
 * grace; the longest refusal measured is printed, not asserted.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VnaLockTryLockTest {

    @AfterEach
    void removeSeams() {
        VnaSeams.installed = null;
    }

    @ParameterizedTest(name = "spinners: {0}, virtual: {1}")
    @CsvSource({"1, true", "2, true", "1, false", "2, false"})
    void spinnersGetALockTheirReleaseLeftReservedForAHeir(int spinners, boolean virtual) throws Exception {
        ReservedLockScenario.Outcome o = ReservedLockScenario.runRepeatedly(
                () -> ReservedLockScenario.Scenario.of(VnaLock.withPlacement(1, () -> 0)), spinners,
                virtual ? Thread.ofVirtual() : Thread.ofPlatform());
        System.out.println("VnaLock, " + spinners + " spinners, virtual " + virtual + ": " + o);
        o.assertEverySpinnerAcquired();
    }

    @ParameterizedTest(name = "spinners: {0}")
    @CsvSource({"1", "2"})
    void spinnersGetAKeyTheirReleaseLeftReservedForAHeir(int spinners) throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        String key = "account-7";
        ReservedLockScenario.Outcome o = ReservedLockScenario.runRepeatedly(
                () -> ReservedLockScenario.Scenario.of(locks, key), spinners, Thread.ofVirtual());
        System.out.println("KeyedLock key, " + spinners + " spinners: " + o);
        o.assertEverySpinnerAcquired();
        assertFalse(locks.isLocked(key));
        assertEquals(0, locks.activeKeys());
    }

    /**
     * The reservation lapses: a heir that reserved and then cannot run (held by a test seam between
     * its read of the released lock and its CAS, as a descheduled thread would be) does not keep a
     * lock that no thread holds from {@code tryLock()} for longer than the grace. When the heir runs
     * again it finds the lock held, reserves again and gets it at the next release.
     */
    @Test
    void aReservationWhoseHeirDoesNotRunLapsesForTryLock() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        HeldHeir held = HeldHeir.releaseTo(lock);
        long start = System.nanoTime();
        long failures = 0;
        while (!lock.tryLock()) {
            failures++;
            assertTrue(System.nanoTime() - start < ReservedLockScenario.GIVE_UP_NANOS,
                    "tryLock() failed for 10 s on a lock no thread held, reserved by a heir that could not run");
            Thread.onSpinWait();
        }
        long refusedNanos = System.nanoTime() - start;
        System.out.printf("a lapsed reservation: tryLock() failed %d times over %.3f ms%n", failures, refusedNanos / 1e6);
        assertFalse(held.acquired.get(), "the heir got the lock while held by the seam");
        assertTrue(lock.isHeldByCurrentThread());
        held.letGo();
        // The heir's CAS from RESERVED now fails; it is still overdue, reserves again and waits.
        VnaLockTest.awaitCondition(() -> ReservedLockScenario.reserved(lock), "the heir to reserve again");
        assertTrue(lock.tryLock(), "re-entry");
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        held.heir.join(TimeUnit.SECONDS.toMillis(30));
        assertTrue(held.acquired.get(), "the heir did not get the lock at the next release");
        assertFalse(lock.isLocked());
    }

    /**
     * While the heir can take a reserved lock, {@code tryLock()} leaves it to the heir: a reservation
     * lapses only for a heir that does not take the lock, so the bound on overtaking holds for
     * threads that do run. Checked on the lock word: one failed {@code tryLock()} on a free reserved
     * lock starts the clock and does not take the lock.
     */
    @Test
    void tryLockLeavesAFreshReservationToTheHeir() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        AtomicLong refusals = new AtomicLong();
        HeldHeir held = HeldHeir.releaseTo(lock);
        Thread other = Thread.ofPlatform().start(() -> {
            if (!lock.tryLock()) {
                refusals.incrementAndGet();
            } else {
                lock.unlock();
            }
        });
        other.join();
        assertEquals(1, refusals.get(), "the first tryLock() took a fresh reservation from its heir");
        assertEquals(VnaLock.RESERVED, lock.word());
        held.letGo();
        held.heir.join(TimeUnit.SECONDS.toMillis(30));
        assertTrue(held.acquired.get(), "the heir did not take its reservation");
        assertFalse(lock.isLocked());
    }

    /**
     * A platform heir that cannot run at the moment it matters: the current thread holds {@code lock}; the heir
     * queues behind it and reserves; the current thread releases; the seam then holds the heir between its read
     * of the free reserved lock and its CAS until {@link #letGo()}, as a descheduled thread would stay there.
     */
    private static final class HeldHeir {
        final AtomicBoolean acquired = new AtomicBoolean();
        final CountDownLatch stuck = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);
        final Thread heir;

        private HeldHeir(VnaLock lock) {
            heir = Thread.ofPlatform().unstarted(() -> {
                lock.lock();
                acquired.set(true);
                lock.unlock();
            });
            VnaSeams.installed = new VnaSeams() {
                @Override
                void heirReadFree() {
                    if (Thread.currentThread() != heir || stuck.getCount() == 0
                            || lock.word() != VnaLock.RESERVED) {
                        return;
                    }
                    stuck.countDown();
                    try {
                        go.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            };
        }

        /** Locks {@code lock}, lets the heir queue and reserve, releases, and returns once the seam holds it. */
        static HeldHeir releaseTo(VnaLock lock) throws InterruptedException {
            lock.lock();
            HeldHeir h = new HeldHeir(lock);
            h.heir.start();
            VnaLockTest.awaitCondition(() -> ReservedLockScenario.reserved(lock), "the heir to reserve the lock");
            lock.unlock();
            assertTrue(h.stuck.await(30, TimeUnit.SECONDS), "the heir never read the reserved lock free");
            return h;
        }

        void letGo() {
            go.countDown();
        }
    }
}
