package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Semantics, liveness and cancellation of {@link VnaLock}; see also the conformance suite in numaloom-stress. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class VnaLockTest {

    /** A lock with {@code queues} queues; threads are spread over them by thread id. */
    static VnaLock spread(int queues) {
        return VnaLock.withPlacement(queues, () -> (int) (Thread.currentThread().threadId() % queues));
    }

    // ------------------------------------------------------------------ ReentrantLock semantics

    @Test
    void reentrancyCountsHolds() {
        VnaLock lock = new VnaLock();
        assertEquals(0, lock.getHoldCount());
        assertFalse(lock.isLocked());
        lock.lock();
        lock.lock();
        assertTrue(lock.tryLock());
        assertEquals(3, lock.getHoldCount());
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
        lock.unlock();
        assertEquals(1, lock.getHoldCount());
        assertTrue(lock.isLocked());
        lock.unlock();
        assertEquals(0, lock.getHoldCount());
        assertFalse(lock.isLocked());
        assertFalse(lock.isHeldByCurrentThread());
    }

    @Test
    void unlockWithoutHoldingThrows() {
        VnaLock lock = new VnaLock();
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertTrue(e.getMessage().contains("not held"), e.getMessage());
    }

    @Test
    void unlockByNonOwnerThrowsAndLeavesTheLockHeld() throws Exception {
        VnaLock lock = new VnaLock();
        lock.lock();
        AtomicBoolean threw = new AtomicBoolean();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                lock.unlock();
            } catch (IllegalMonitorStateException expected) {
                threw.set(true);
            }
        });
        t.join();
        assertTrue(threw.get());
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
    }

    /**
     * A virtual thread has no name unless given one: the message of a wrong unlock names it by its id, and the
     * lock's {@code toString} an unnamed owner the same way (they printed an empty name).
     */
    @Test
    void anUnlockFromAnUnnamedVirtualThreadNamesItById() throws Exception {
        VnaLock lock = new VnaLock();
        lock.lock();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofVirtual().unstarted(() -> {
            try {
                lock.unlock();
            } catch (Throwable x) {
                thrown.set(x);
            }
        });
        t.start();
        t.join();
        assertTrue(thrown.get() instanceof IllegalMonitorStateException, String.valueOf(thrown.get()));
        String message = thrown.get().getMessage();
        assertTrue(message.contains(": current thread #" + t.threadId() + " (virtual) is not the owner"), message);
        assertFalse(message.contains("  "), message);
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();

        Thread owner = Thread.ofVirtual().unstarted(() -> {
            lock.lock();
            try {
                thrown.set(new AssertionError(lock.toString()));
            } finally {
                lock.unlock();
            }
        });
        owner.start();
        owner.join();
        assertTrue(thrown.get().getMessage().endsWith("[Locked by thread #" + owner.threadId() + " (virtual)]"),
                thrown.get().getMessage());
        Thread named = Thread.ofPlatform().name("worker-1").unstarted(() -> {
            try {
                lock.unlock();
            } catch (Throwable x) {
                thrown.set(x);
            }
        });
        named.start();
        named.join();
        assertTrue(thrown.get().getMessage().contains(": current thread \"worker-1\" #" + named.threadId()
                + " does not hold it (the lock is not held)"), thrown.get().getMessage());
    }

    @Test
    void aStaleUnlockCannotReleaseSomebodyElsesLock() throws Exception {
        VnaLock lock = new VnaLock();
        lock.lock();
        lock.unlock();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread other = Thread.ofPlatform().start(() -> {
            lock.lock();
            held.countDown();
            try {
                done.await();
            } catch (InterruptedException ignored) {
            } finally {
                lock.unlock();
            }
        });
        held.await();
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertTrue(lock.isLocked());
        assertFalse(lock.tryLock());
        done.countDown();
        other.join();
    }

    @Test
    void toStringNamesTheOwner() {
        VnaLock lock = new VnaLock();
        assertTrue(lock.toString().endsWith("[Unlocked]"), lock.toString());
        lock.lock();
        try {
            assertTrue(lock.toString().contains("[Locked by thread " + Thread.currentThread().getName() + "]"));
        } finally {
            lock.unlock();
        }
    }

    @Test
    void tryLockFailsWhileAnotherThreadHolds() throws Exception {
        VnaLock lock = new VnaLock();
        lock.lock();
        try {
            AtomicBoolean got = new AtomicBoolean(true);
            AtomicBoolean gotTimed = new AtomicBoolean(true);
            Thread t = Thread.ofVirtual().start(() -> {
                got.set(lock.tryLock());
                try {
                    gotTimed.set(lock.tryLock(20, TimeUnit.MILLISECONDS));
                } catch (InterruptedException e) {
                    fail(e);
                }
            });
            t.join();
            assertFalse(got.get());
            assertFalse(gotTimed.get());
            assertEquals(0, lock.getQueueLength());
        } finally {
            lock.unlock();
        }
    }

    @Test
    void queueLengthCountsWaiters() throws Exception {
        VnaLock lock = spread(2);
        lock.lock();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiters.add(Thread.ofVirtual().start(() -> {
                lock.lock();
                lock.unlock();
            }));
        }
        awaitCondition(() -> lock.getQueueLength() == 5, "5 queued threads");
        assertTrue(lock.hasQueuedThreads());
        lock.unlock();
        for (Thread t : waiters) {
            t.join();
        }
        assertEquals(0, lock.getQueueLength());
        assertFalse(lock.hasQueuedThreads());
        assertFalse(lock.isLocked());
    }

    @Test
    void interruptedLockInterruptiblyThrowsAndLeavesNoTrace() throws Exception {
        VnaLock lock = spread(2);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, lock::lockInterruptibly);
        assertFalse(Thread.interrupted());
        assertThrows(InterruptedException.class, () -> {
            Thread.currentThread().interrupt();
            lock.tryLock(1, TimeUnit.SECONDS);
        });
        assertFalse(lock.isLocked());

        lock.lock();
        AtomicBoolean threw = new AtomicBoolean();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                lock.lockInterruptibly();
                lock.unlock();
            } catch (InterruptedException e) {
                threw.set(true);
            }
        });
        awaitCondition(() -> lock.getQueueLength() == 1, "the waiter to queue");
        waiter.interrupt();
        waiter.join();
        assertTrue(threw.get());
        assertEquals(0, lock.getQueueLength());
        lock.unlock();
        assertTrue(lock.tryLock());
        lock.unlock();
    }

    @Test
    void lockIgnoresInterruptsButKeepsTheStatus() throws Exception {
        VnaLock lock = spread(2);
        lock.lock();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            stillInterrupted.set(Thread.currentThread().isInterrupted());
            lock.unlock();
        });
        awaitCondition(() -> lock.getQueueLength() == 1, "the waiter to queue");
        waiter.interrupt();
        Thread.sleep(20);
        assertTrue(waiter.isAlive(), "lock() must not give up on interrupt");
        lock.unlock();
        waiter.join();
        assertTrue(stillInterrupted.get());
    }

    @Test
    void conditionAwaitReleasesAndRestoresHolds() throws Exception {
        VnaLock lock = spread(2);
        Condition ready = lock.newCondition();
        AtomicInteger holdsAfterWake = new AtomicInteger();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread t = Thread.ofVirtual().start(() -> {
            lock.lock();
            lock.lock();
            try {
                waiting.countDown();
                ready.await();
                holdsAfterWake.set(lock.getHoldCount());
            } catch (InterruptedException e) {
                fail(e);
            } finally {
                lock.unlock();
                lock.unlock();
            }
        });
        waiting.await();
        lock.lock(); // possible only because await released both holds
        try {
            assertTrue(lock.hasWaiters(ready));
            assertEquals(1, lock.getWaitQueueLength(ready));
            ready.signal();
        } finally {
            lock.unlock();
        }
        t.join();
        assertEquals(2, holdsAfterWake.get());
    }

    /**
     * A signalled waiter, woken at the signal, does not return from {@code await} while its signaller still holds
     * the lock: it competes for the lock as any thread does, and returns once the signaller releases it.
     */
    @Test
    void aSignalledWaiterReturnsOnlyOnceItsSignallerReleases() throws Exception {
        VnaLock lock = spread(2);
        assertSignalledWaiterWaitsForRelease(lock, lock.newCondition());
    }

    /**
     * Holds {@code lock} and signals {@code c} while a virtual thread awaits it; while the signaller still holds the
     * lock the waiter has not returned, and the release lets it finish.
     */
    static void assertSignalledWaiterWaitsForRelease(java.util.concurrent.locks.Lock lock, Condition c)
            throws Exception {
        AtomicBoolean returned = new AtomicBoolean();
        Thread t = Thread.ofVirtual().start(() -> {
            lock.lock();
            try {
                c.awaitUninterruptibly();
                returned.set(true);
            } finally {
                lock.unlock();
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (LockSupport.getBlocker(t) != c) { // parked in the await, not just past its release
            assertTrue(System.nanoTime() < deadline, "the waiter never parked in await");
            Thread.sleep(1);
        }
        lock.lock();
        try {
            c.signal();
            Thread.sleep(50); // time enough for the woken waiter to run and queue for the lock
            assertFalse(returned.get(), "the waiter returned while its signaller held the lock");
        } finally {
            lock.unlock();
        }
        t.join();
        assertTrue(returned.get());
    }

    @Test
    void conditionMethodsRequireTheLock() {
        VnaLock lock = new VnaLock();
        Condition c = lock.newCondition();
        assertThrows(IllegalMonitorStateException.class, c::await);
        assertThrows(IllegalMonitorStateException.class, c::signal);
        assertThrows(IllegalMonitorStateException.class, c::signalAll);
        assertThrows(IllegalMonitorStateException.class, () -> c.awaitNanos(1));
        assertThrows(IllegalArgumentException.class, () -> lock.hasWaiters(new VnaLock().newCondition()));
    }

    @Test
    void placementIsValidated() {
        assertThrows(IllegalArgumentException.class, () -> VnaLock.withPlacement(0, () -> 0));
        assertThrows(NullPointerException.class, () -> VnaLock.withPlacement(null));
        // out-of-range queue answers are clamped, not trusted
        VnaLock lock = VnaLock.withPlacement(2, () -> -7);
        assertEquals(2, lock.queueCount());
        runContended(lock, 4, 2_000, false, false);
    }

    // ------------------------------------------------------------------ mutual exclusion and liveness

    @ParameterizedTest(name = "{0} queues")
    @ValueSource(ints = {1, 2, 4})
    void mutualExclusionOnPlatformThreads(int queues) {
        runContended(spread(queues), 4, 50_000, false, false);
    }

    @ParameterizedTest(name = "{0} queues")
    @ValueSource(ints = {1, 2, 4})
    void mutualExclusionOnVirtualThreadsThatYieldInside(int queues) {
        runContended(spread(queues), 64, 500, true, true);
    }

    @Test
    void defaultAndPerSocketLocksWork() {
        runContended(new VnaLock(), 16, 1_000, true, true);
        runContended(VnaLock.perSocket(), 16, 1_000, true, true);
    }

    /**
     * How long a contended run may take before the test calls it a hang (a lost wake-up): many times
     * what it takes on a busy machine.
     */
    static final Duration HANG_CAP = Duration.ofSeconds(60);

    /**
     * {@code threads} threads increment a plain counter {@code iterations} times each under the
     * lock; an "inside" flag catches two threads in the critical section at once.
     */
    static void runContended(VnaLock lock, int threads, int iterations, boolean virtual, boolean yieldInside) {
        assertTimeoutPreemptively(HANG_CAP, () -> {
            long[] counter = new long[1];
            AtomicBoolean inside = new AtomicBoolean();
            AtomicInteger overlaps = new AtomicInteger();
            Thread[] ts = new Thread[threads];
            for (int i = 0; i < threads; i++) {
                Runnable body = () -> {
                    for (int j = 0; j < iterations; j++) {
                        lock.lock();
                        try {
                            if (!inside.compareAndSet(false, true)) {
                                overlaps.incrementAndGet();
                            }
                            long c = counter[0];
                            if (yieldInside) {
                                Thread.yield();
                            }
                            counter[0] = c + 1;
                            inside.set(false);
                        } finally {
                            lock.unlock();
                        }
                    }
                };
                ts[i] = virtual ? Thread.ofVirtual().start(body) : Thread.ofPlatform().start(body);
            }
            for (Thread t : ts) {
                t.join();
            }
            assertEquals(0, overlaps.get(), "threads inside the critical section together");
            assertEquals((long) threads * iterations, counter[0]);
            assertFalse(lock.isLocked());
            assertEquals(0, lock.getQueueLength());
        });
    }

    // ------------------------------------------------------------------ cancellation storms

    /**
     * Lockers that never give up, timed waiters that time out, and interruptible waiters that get
     * interrupted, all on one lock whose holder yields inside: every locker must finish, the
     * counter must be exact, and the queue must end empty. A lost wake-up hangs the test.
     *
     * <p>A storm needs waits cancelled in the queue: a timed wait that timed out (a positive
     * timeout; a zero one fails at once without queueing) and an interruptible wait interrupted
     * while it waited. On a busy machine the lock may be free whenever a timed waiter comes, and
     * the interrupter, a platform thread, may not run for a while; so the workers go on past their
     * {@value #STORM_ITERATIONS} iterations until both kinds of cancellation have happened, for up
     * to {@link #STORM_CAP}, and the test fails if they never did.
     */
    @ParameterizedTest(name = "{0} queues")
    @ValueSource(ints = {1, 2, 4})
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void timeoutAndInterruptStormsLoseNoWakeUp(int queues) {
        VnaLock lock = spread(queues);
        assertTimeoutPreemptively(STORM_CAP.plus(HANG_CAP), () -> {
            AtomicLong acquired = new AtomicLong();
            long[] counter = new long[1];
            AtomicInteger timeouts = new AtomicInteger();        // timed waits that timed out in the queue
            AtomicInteger refusals = new AtomicInteger();        // tryLock(0) on a held lock: no wait at all
            AtomicInteger interrupts = new AtomicInteger();      // interruptible waits interrupted while waiting
            AtomicInteger entryInterrupts = new AtomicInteger(); // interrupted before the call: thrown on entry
            long stormDeadline = System.nanoTime() + STORM_CAP.toNanos();
            java.util.function.BooleanSupplier goOn = () -> (timeouts.get() == 0 || interrupts.get() == 0)
                    && System.nanoTime() - stormDeadline < 0;
            List<Thread> all = new ArrayList<>();
            List<Thread> interruptible = new ArrayList<>();
            for (int i = 0; i < 48; i++) {
                int kind = i % 3;
                Thread t = Thread.ofVirtual().unstarted(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    for (int j = 0; j < STORM_ITERATIONS || goOn.getAsBoolean(); j++) {
                        if (j >= STORM_ITERATIONS) {
                            // Going on for the cancellations: park briefly, which frees the carrier for the others.
                            // On one carrier, a worker that yields with nothing in the carrier's own queue is
                            // resubmitted to the carrier's submission queue, which the carrier may keep serving,
                            // while the threads that an interrupt or a timeout woke wait in other queues.
                            LockSupport.parkNanos(20_000);
                        }
                        boolean got;
                        int timeoutMicros = rnd.nextInt(0, 50);
                        boolean interruptedBefore = Thread.currentThread().isInterrupted();
                        try {
                            got = switch (kind) {
                                case 0 -> { lock.lock(); yield true; }
                                case 1 -> lock.tryLock(timeoutMicros, TimeUnit.MICROSECONDS);
                                default -> { lock.lockInterruptibly(); yield true; }
                            };
                        } catch (InterruptedException e) {
                            (interruptedBefore ? entryInterrupts : interrupts).incrementAndGet();
                            continue;
                        }
                        if (!got) {
                            (timeoutMicros > 0 ? timeouts : refusals).incrementAndGet();
                            continue;
                        }
                        try {
                            long c = counter[0];
                            if (rnd.nextInt(4) == 0) {
                                Thread.yield();
                            }
                            counter[0] = c + 1;
                            acquired.incrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                });
                all.add(t);
                if (kind == 2) {
                    interruptible.add(t);
                }
            }
            all.forEach(Thread::start);
            Thread interrupter = Thread.ofPlatform().start(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (interruptible.stream().anyMatch(Thread::isAlive)) {
                    interruptible.get(rnd.nextInt(interruptible.size())).interrupt();
                    Thread.onSpinWait();
                    LockSupportSleep.micros(50);
                }
            });
            for (Thread t : all) {
                t.join();
            }
            interrupter.join();
            assertEquals(acquired.get(), counter[0]);
            assertFalse(lock.isLocked());
            assertEquals(0, lock.getQueueLength());
            assertTrue(timeouts.get() > 0 && interrupts.get() > 0, "the storm cancelled too little in the queue in "
                    + STORM_CAP.toSeconds() + " s: not a storm (" + timeouts + " timed waits timed out, " + interrupts
                    + " waits interrupted; " + refusals + " tryLock(0) refused, " + entryInterrupts
                    + " calls interrupted on entry)");
            // The lock is still fully functional after the storm.
            runContended(lock, 8, 200, true, true);
        });
    }

    /** Iterations each storm worker makes at least. */
    static final int STORM_ITERATIONS = 400;
    /** How long storm workers go on past their iterations for the cancellations a storm needs. */
    static final Duration STORM_CAP = Duration.ofSeconds(30);

    @Test
    void timedOutWaitersLeaveTheQueueUsable() throws Exception {
        VnaLock lock = spread(2);
        lock.lock();
        List<Thread> quitters = new ArrayList<>();
        AtomicInteger failed = new AtomicInteger();
        for (int i = 0; i < 20; i++) {
            quitters.add(Thread.ofVirtual().start(() -> {
                try {
                    if (!lock.tryLock(10, TimeUnit.MILLISECONDS)) {
                        failed.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    fail(e);
                }
            }));
        }
        Thread patient = Thread.ofVirtual().start(() -> {
            lock.lock();
            lock.unlock();
        });
        for (Thread t : quitters) {
            t.join();
        }
        assertEquals(20, failed.get());
        awaitCondition(() -> lock.getQueueLength() == 1, "only the patient waiter left");
        lock.unlock();
        patient.join(PATIENCE);
        assertFalse(patient.isAlive(), "the patient waiter was stranded behind cancelled nodes");
        assertEquals(0, lock.getQueueLength());
    }

    // ------------------------------------------------------------------ helpers

    /**
     * How long a test waits for something that must happen (a state, a thread to finish) before it
     * fails instead of hanging: reached only when the lock is broken, so generous enough for a
     * machine busy with other work.
     */
    static final Duration PATIENCE = Duration.ofSeconds(30);

    /** Polls {@code condition} until it holds, failing after {@link #PATIENCE}. */
    static void awaitCondition(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + PATIENCE.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    /** Sleeps without throwing: the interrupter thread is never interrupted itself. */
    static final class LockSupportSleep {
        static void micros(long micros) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(micros));
        }
    }
}
