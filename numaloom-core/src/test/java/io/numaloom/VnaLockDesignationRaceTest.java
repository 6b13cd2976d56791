package io.numaloom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A designator paused between picking a candidate and installing it as heir must not leave a
 * waiter asleep: the interleaving that hung {@code VnaLock} (seen once in a loaded CI run, and
 * twice in about 121,000 rounds of four virtual threads on two carriers), forced step by step
 * through {@link VnaSeams}.
 *
 * <ol>
 * <li>P is heir behind the main thread; C queues behind P. The main thread releases; P acquires
 *     and passes the candidacy to C, which stays parked until someone designates it.
 * <li>P releases and, designating, picks C; the seam holds P before its CAS.
 * <li>The main thread locks and unlocks: its release designates C, which acquires. Q then
 *     acquires after C, and while Q holds the lock R queues (first, so candidate) and C queues
 *     again behind R, with the same node: a new wait of C's node.
 * <li>Q releases; R becomes heir and acquires, clearing the heir slot. The seam holds R there and
 *     lets P go: P's CAS installs C's node, whose thread is waiting in the queue. Then R passes
 *     the candidacy to C and releases.
 * </ol>
 * The old code left C's node installed: it looked like a woken heir, so R's release only "woke"
 * it through a flag C never set, and C slept forever. Now P sees that the node it installed is in
 * another wait, uninstalls it, and R's release designates and wakes C.
 *
 * <p>Every step waits for a state (a thread parked, a latch), not for time; the one sleep only
 * lets C consume P's stray unpark before R grants the candidacy, which is what made the old code
 * hang, so a slow machine can only make the test miss the old bug, never fail the new code.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class VnaLockDesignationRaceTest {

    @AfterEach
    void removeSeams() {
        VnaSeams.installed = null;
    }

    @Test
    void aDesignatorPausedAcrossAWaitOfItsCandidateWakesNobodyByMistake() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        CountDownLatch pAcquired = new CountDownLatch(1);
        CountDownLatch pMayUnlock = new CountDownLatch(1);
        CountDownLatch pPaused = new CountDownLatch(1);
        CountDownLatch pMayInstall = new CountDownLatch(1);
        CountDownLatch pUnlocked = new CountDownLatch(1);
        CountDownLatch cAcquired = new CountDownLatch(1);
        CountDownLatch cMayUnlock = new CountDownLatch(1);
        CountDownLatch cMayLockAgain = new CountDownLatch(1);
        CountDownLatch cAcquiredAgain = new CountDownLatch(1);
        CountDownLatch qAcquired = new CountDownLatch(1);
        CountDownLatch qMayUnlock = new CountDownLatch(1);

        lock.lock();
        Thread p = Thread.ofPlatform().name("P").start(() -> {
            lock.lock();
            pAcquired.countDown();
            await(pMayUnlock);
            lock.unlock(); // designates C, held by the seam before the CAS
            pUnlocked.countDown();
        });
        awaitState(() -> parked(p), "P parked as heir");
        Thread c = Thread.ofPlatform().name("C").start(() -> {
            lock.lock();
            cAcquired.countDown();
            await(cMayUnlock);
            lock.unlock();
            await(cMayLockAgain);
            lock.lock(); // queues behind R with the same node
            cAcquiredAgain.countDown();
            lock.unlock();
        });
        awaitState(() -> parked(c) && lock.getQueueLength() == 2, "C queued behind P");
        lock.unlock();
        await(pAcquired); // C is now the candidate, parked, not designated

        Thread[] r = new Thread[1];
        java.util.concurrent.atomic.AtomicBoolean holdP = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicBoolean holdR = new java.util.concurrent.atomic.AtomicBoolean(true);
        VnaSeams.installed = new VnaSeams() {
            @Override
            void beforeHeirInstall(Thread candidate) {
                if (Thread.currentThread() == p && candidate == c && holdP.compareAndSet(true, false)) {
                    pPaused.countDown();
                    await(pMayInstall);
                }
            }

            @Override
            void afterHeirCleared() {
                if (Thread.currentThread() == r[0] && holdR.compareAndSet(true, false)) {
                    pMayInstall.countDown();
                    await(pUnlocked);
                    sleep(100); // C consumes P's unpark, if there was one, before R grants it the candidacy
                }
            }
        };
        pMayUnlock.countDown();
        await(pPaused);

        lock.lock(); // P left the lock free before designating
        lock.unlock(); // designates C, which acquires
        await(cAcquired);
        Thread q = Thread.ofPlatform().name("Q").start(() -> {
            lock.lock();
            qAcquired.countDown();
            await(qMayUnlock);
            lock.unlock(); // designates R
        });
        awaitState(() -> parked(q), "Q queued behind C");
        cMayUnlock.countDown();
        await(qAcquired);
        r[0] = Thread.ofPlatform().name("R").unstarted(() -> {
            lock.lock(); // acquires as heir, held by the seam after clearing the heir slot
            lock.unlock();
        });
        r[0].start();
        awaitState(() -> parked(r[0]), "R queued as candidate");
        cMayLockAgain.countDown();
        // C was parked on cMayLockAgain before it called lock(): its state counts only once it is
        // queued, so the queue length is read first.
        awaitState(() -> lock.getQueueLength() == 2 && parked(c), "C queued again, behind R");
        qMayUnlock.countDown();

        assertTrue(cAcquiredAgain.await(VnaLockTest.PATIENCE.toMillis(), TimeUnit.MILLISECONDS),
                "C was never woken: " + lock + ", " + lock.getQueueLength() + " queued, C " + c.getState());
        for (Thread t : new Thread[] {p, c, q, r[0]}) {
            t.join(VnaLockTest.PATIENCE);
            assertTrue(!t.isAlive(), t.getName() + " did not finish");
        }
    }

    /**
     * A node that a slow designator installed for a moment in a wait it did not pick may reserve the
     * lock in that moment; if it then gives up while it is no longer heir, its reservation must not
     * outlive it, or the free lock would stay reserved with no heir to take it (every newcomer
     * queued, every {@code tryLock()} refused). The steps of the test above, with C's second wait
     * interruptible, and two more holds of P:
     * <ol>
     * <li>P's CAS installs C's node while C waits behind R; the seam holds P before its check of the
     *     node's wait. R acquires, passes the candidacy to C and releases; the main thread barges in.
     * <li>C, woken (as a spurious wake-up may), is the candidate, finds itself installed, and reserves
     *     the held lock once past its deadline.
     * <li>P checks, uninstalls C's node, picks it again and is held before installing it: no heir.
     *     C is interrupted and gives up.
     * </ol>
     * The old code cleared a reservation only when the leaving node was heir, and left it set here.
     */
    @Test
    void aNodeThatReservedWhileInstalledByMistakeClearsItsReservationWhenItLeaves() throws Exception {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        CountDownLatch pAcquired = new CountDownLatch(1);
        CountDownLatch pMayUnlock = new CountDownLatch(1);
        CountDownLatch pPaused = new CountDownLatch(1);
        CountDownLatch pMayInstall = new CountDownLatch(1);
        CountDownLatch pInstalled = new CountDownLatch(1);
        CountDownLatch pMayCheck = new CountDownLatch(1);
        CountDownLatch pPausedAgain = new CountDownLatch(1);
        CountDownLatch pMayInstallAgain = new CountDownLatch(1);
        CountDownLatch cAcquired = new CountDownLatch(1);
        CountDownLatch cMayUnlock = new CountDownLatch(1);
        CountDownLatch cMayLockAgain = new CountDownLatch(1);
        CountDownLatch cGaveUp = new CountDownLatch(1);
        CountDownLatch qAcquired = new CountDownLatch(1);
        CountDownLatch qMayUnlock = new CountDownLatch(1);

        lock.lock();
        Thread p = Thread.ofPlatform().name("P").start(() -> {
            lock.lock();
            pAcquired.countDown();
            await(pMayUnlock);
            lock.unlock(); // designates C: held before the install, after it, and before installing again
        });
        awaitState(() -> parked(p), "P parked as heir");
        Thread c = Thread.ofPlatform().name("C").start(() -> {
            lock.lock();
            cAcquired.countDown();
            await(cMayUnlock);
            lock.unlock();
            await(cMayLockAgain);
            try {
                lock.lockInterruptibly(); // queues behind R with the same node
                lock.unlock();
                throw new AssertionError("C acquired instead of giving up");
            } catch (InterruptedException expected) {
                cGaveUp.countDown();
            }
        });
        awaitState(() -> parked(c) && lock.getQueueLength() == 2, "C queued behind P");
        lock.unlock();
        await(pAcquired); // C is now the candidate, parked, not designated

        Thread[] r = new Thread[1];
        java.util.concurrent.atomic.AtomicInteger pInstalls = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean holdPAfterInstall = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicBoolean holdR = new java.util.concurrent.atomic.AtomicBoolean(true);
        VnaSeams.installed = new VnaSeams() {
            @Override
            void beforeHeirInstall(Thread candidate) {
                if (Thread.currentThread() != p || candidate != c) {
                    return;
                }
                int n = pInstalls.incrementAndGet();
                if (n == 1) {
                    pPaused.countDown();
                    await(pMayInstall);
                } else if (n == 2) {
                    pPausedAgain.countDown();
                    await(pMayInstallAgain);
                }
            }

            @Override
            void afterHeirInstall(Thread candidate) {
                if (Thread.currentThread() == p && candidate == c && holdPAfterInstall.compareAndSet(true, false)) {
                    pInstalled.countDown();
                    await(pMayCheck);
                }
            }

            @Override
            void afterHeirCleared() {
                if (Thread.currentThread() == r[0] && holdR.compareAndSet(true, false)) {
                    pMayInstall.countDown();
                    await(pInstalled);
                }
            }
        };
        pMayUnlock.countDown();
        await(pPaused);

        lock.lock(); // P left the lock free before designating
        lock.unlock(); // designates C, which acquires
        await(cAcquired);
        Thread q = Thread.ofPlatform().name("Q").start(() -> {
            lock.lock();
            qAcquired.countDown();
            await(qMayUnlock);
            lock.unlock(); // designates R
        });
        awaitState(() -> parked(q), "Q queued behind C");
        cMayUnlock.countDown();
        await(qAcquired);
        r[0] = Thread.ofPlatform().name("R").unstarted(() -> {
            lock.lock(); // acquires as heir; held by the seam until P has installed C's node
            lock.unlock();
        });
        r[0].start();
        awaitState(() -> parked(r[0]), "R queued as candidate");
        cMayLockAgain.countDown();
        awaitState(() -> parked(c) && lock.getQueueLength() == 2, "C queued again, behind R");
        qMayUnlock.countDown();
        r[0].join(30_000);
        assertTrue(!r[0].isAlive(), "R did not finish");
        await(pInstalled);

        lock.lock(); // barges in: the lock C's node will reserve
        java.util.concurrent.locks.LockSupport.unpark(c); // the candidate wakes, finds itself installed
        awaitState(() -> (lock.word() & VnaLock.RESERVED) != 0, "C to reserve the lock");
        pMayCheck.countDown(); // P uninstalls C's node, picks it again and is held before installing it
        await(pPausedAgain);
        c.interrupt();
        await(cGaveUp);
        int state = lock.word();
        pMayInstallAgain.countDown();
        assertEquals(VnaLock.LOCKED, state, "C gave up and left its reservation on the lock with no heir");
        lock.unlock();
        for (Thread t : new Thread[] {p, c, q, r[0]}) {
            t.join(10_000);
            assertTrue(!t.isAlive(), t.getName() + " did not finish");
        }
        assertFalse(lock.isLocked());
        assertTrue(lock.tryLock(), "the lock is free for everybody again");
        lock.unlock();
    }

    private static boolean parked(Thread t) {
        Thread.State s = t.getState();
        return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
    }

    private static void awaitState(BooleanSupplier condition, String what) throws InterruptedException {
        VnaLockTest.awaitCondition(condition, what);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(VnaLockTest.PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("a step of the interleaving never came");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
