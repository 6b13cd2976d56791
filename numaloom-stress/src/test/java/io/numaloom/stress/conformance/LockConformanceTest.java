package io.numaloom.stress.conformance;

import io.numaloom.stress.subject.InspectableLock;
import io.numaloom.stress.subject.Subject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static io.numaloom.stress.conformance.Worker.PATIENCE;
import static io.numaloom.stress.conformance.Worker.SHORT_MS;
import static io.numaloom.stress.conformance.Worker.eventually;
import static io.numaloom.stress.conformance.Worker.sleep;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Conformance of a lock to the {@link java.util.concurrent.locks.Lock} specification and to the documented
 * behaviour of {@link java.util.concurrent.locks.ReentrantLock} (hold counts, ownership, interruption, timeouts,
 * queue introspection), run over every {@link Subject}; {@code ReentrantLock} must pass as the reference.
 *
 * <p>Written from the javadoc of {@code Lock} and {@code ReentrantLock}: each test names the clause it checks.
 * Timing assertions only bound from below ("not before the timeout") and, generously, from above ("within
 * {@link Worker#PATIENCE}"); how fast a lock is belongs to the benchmarks.
 *
 * <p>To run it over another lock, add a {@link Subject}.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(Subject.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockConformanceTest {

    @Parameter
    Subject subject;

    InspectableLock lock;

    private final List<Worker> workers = new ArrayList<>();

    @BeforeEach
    void createLock() {
        lock = subject.create();
    }

    @AfterEach
    void cleanUp() {
        Thread.interrupted();
        for (Worker w : workers) {
            if (!w.finished()) {
                w.interrupt();
            }
        }
    }

    private Worker start(String name, Worker.Body body) {
        return start(name, false, body);
    }

    private Worker start(String name, boolean virtual, Worker.Body body) {
        Worker w = Worker.start(subject + "-" + name, virtual, body);
        workers.add(w);
        return w;
    }

    /** Starts a thread that takes the lock and holds it until {@code release} is counted down. */
    private Worker holder(CountDownLatch release) {
        CountDownLatch acquired = new CountDownLatch(1);
        Worker w = start("holder", () -> {
            lock.lock();
            try {
                acquired.countDown();
                release.await();
            } finally {
                lock.unlock();
            }
        });
        await(acquired);
        return w;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(PATIENCE.toMillis(), MILLISECONDS), "latch not released within " + PATIENCE);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private void assertFree() {
        assertFalse(lock.isLocked(), "isLocked");
        assertFalse(lock.isHeldByCurrentThread(), "isHeldByCurrentThread");
        assertEquals(0, lock.getHoldCount(), "getHoldCount");
    }

    private void assertQueueLength(int expected) {
        eventually("getQueueLength() == " + expected + " (is " + lock.getQueueLength() + ")",
                () -> lock.getQueueLength() == expected && lock.hasQueuedThreads() == (expected > 0));
    }

    /** Takes and releases the lock from the current thread, proving it is free and usable. */
    private void assertUsable() throws InterruptedException {
        assertTrue(lock.tryLock(PATIENCE.toMillis(), MILLISECONDS), "lock could not be taken again");
        try {
            assertEquals(1, lock.getHoldCount());
        } finally {
            lock.unlock();
        }
        assertFree();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Holds and ownership

    /** A new lock is unlocked and has no waiters. */
    @Test
    void newLockIsFreeAndHasNoQueue() {
        assertFree();
        assertFalse(lock.hasQueuedThreads());
        assertEquals(0, lock.getQueueLength());
    }

    /** getHoldCount: every acquisition method adds a hold, each unlock removes one; the last frees the lock. */
    @Test
    void everyAcquisitionAddsAHoldAndUnlockRemovesOne() throws InterruptedException {
        lock.lock();
        assertEquals(1, lock.getHoldCount());
        assertTrue(lock.isHeldByCurrentThread());
        assertTrue(lock.isLocked());
        lock.lockInterruptibly();
        assertEquals(2, lock.getHoldCount());
        assertTrue(lock.tryLock());
        assertEquals(3, lock.getHoldCount());
        assertTrue(lock.tryLock(1, MILLISECONDS));
        assertEquals(4, lock.getHoldCount());
        assertTrue(lock.tryLock(0, NANOSECONDS), "an owner re-acquires even with a zero timeout");
        assertEquals(5, lock.getHoldCount());
        for (int held = 5; held > 0; held--) {
            assertTrue(lock.isLocked());
            assertEquals(held, lock.getHoldCount());
            lock.unlock();
        }
        assertFree();
        assertUsable();
    }

    /** A thread can re-acquire a lock it holds many times over. */
    @Test
    void deepReentrancyUnwinds() throws InterruptedException {
        int depth = 10_000;
        for (int i = 0; i < depth; i++) {
            switch (i & 3) {
                case 0 -> lock.lock();
                case 1 -> lock.lockInterruptibly();
                case 2 -> assertTrue(lock.tryLock());
                default -> assertTrue(lock.tryLock(1, TimeUnit.SECONDS));
            }
        }
        assertEquals(depth, lock.getHoldCount());
        for (int i = depth; i > 0; i--) {
            lock.unlock();
        }
        assertFree();
        assertUsable();
    }

    /** unlock: IllegalMonitorStateException if the current thread does not hold the lock (here: nobody does). */
    @Test
    void unlockOfFreeLockThrowsAndLeavesItUsable() throws InterruptedException {
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertFree();
        assertUsable();
    }

    /** One unlock too many throws and leaves the lock free. */
    @Test
    void extraUnlockThrows() throws InterruptedException {
        lock.lock();
        lock.lock();
        lock.unlock();
        lock.unlock();
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertFree();
        assertUsable();
    }

    /** unlock by a thread that is not the owner throws and does not release the owner's holds. */
    @Test
    void unlockByNonOwnerThrowsAndKeepsTheOwner() throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch checked = new CountDownLatch(1);
        Worker owner = start("owner", () -> {
            lock.lock();
            lock.lock();
            held.countDown();
            checked.await();
            assertEquals(2, lock.getHoldCount(), "the owner's holds survived a foreign unlock");
            assertTrue(lock.isHeldByCurrentThread());
            lock.unlock();
            lock.unlock();
        });
        await(held);
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertTrue(lock.isLocked());
        assertFalse(lock.isHeldByCurrentThread());
        assertEquals(0, lock.getHoldCount());
        assertFalse(lock.tryLock(), "still held by the owner");
        checked.countDown();
        owner.join();
        assertUsable();
    }

    /** Other threads see the lock held but not owned; tryLock fails at once; timed tryLock with 0 or less too. */
    @Test
    void otherThreadsSeeTheLockHeld() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Worker holder = holder(release);
        assertTrue(lock.isLocked());
        assertFalse(lock.isHeldByCurrentThread());
        assertEquals(0, lock.getHoldCount());
        assertFalse(lock.tryLock());
        assertFalse(lock.tryLock(0, MILLISECONDS));
        assertFalse(lock.tryLock(-1, MILLISECONDS));
        assertFalse(lock.tryLock(Long.MIN_VALUE, NANOSECONDS));
        assertEquals(0, lock.getHoldCount(), "failed attempts add no holds");
        release.countDown();
        holder.join();
        assertUsable();
    }

    /** tryLock(time): if the lock is available it returns true at once, even for a zero or negative time. */
    @Test
    void timedTryLockOnFreeLockSucceedsWithAnyTimeout() throws InterruptedException {
        for (long t : new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE}) {
            assertTrue(lock.tryLock(t, NANOSECONDS), "timeout " + t);
            assertEquals(1, lock.getHoldCount());
            lock.unlock();
        }
        assertTrue(lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS));
        lock.unlock();
        assertFree();
    }

    /** tryLock(time): returns false when the time elapses, not before; a failed waiter leaves no trace. */
    @Test
    void timedTryLockTimesOutOnTime() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Worker holder = holder(release);
        long start = System.nanoTime();
        assertFalse(lock.tryLock(SHORT_MS, MILLISECONDS));
        long elapsed = System.nanoTime() - start;
        assertTrue(elapsed >= MILLISECONDS.toNanos(SHORT_MS), "returned after " + elapsed + " ns, before the timeout");
        assertTrue(elapsed < PATIENCE.toNanos(), "returned after " + elapsed + " ns");
        assertEquals(0, lock.getHoldCount());
        assertQueueLength(0);
        release.countDown();
        holder.join();
        assertUsable();
    }

    /** tryLock(time) with a huge timeout waits for the release (no overflow into "already expired"). */
    @Test
    void timedTryLockWithHugeTimeoutGetsTheLockWhenReleased() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Worker holder = holder(release);
        Worker waiter = start("waiter", () -> {
            assertTrue(lock.tryLock(Long.MAX_VALUE, NANOSECONDS));
            assertEquals(1, lock.getHoldCount());
            lock.unlock();
        });
        waiter.awaitBlocked();
        waiter.assertStillWaiting("the lock is still held");
        release.countDown();
        holder.join();
        waiter.join();
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Interruption

    /** lockInterruptibly: interrupted status set on entry gives InterruptedException and clears it, lock free or not. */
    @Test
    void lockInterruptiblyThrowsWhenInterruptedOnEntry() throws InterruptedException {
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, lock::lockInterruptibly);
        assertFalse(Thread.currentThread().isInterrupted(), "interrupted status cleared");
        assertFree();

        lock.lock();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, lock::lockInterruptibly, "even for the owner");
        assertFalse(Thread.currentThread().isInterrupted());
        assertEquals(1, lock.getHoldCount(), "the failed re-acquisition added no hold");
        lock.unlock();
        assertUsable();
    }

    /** tryLock(time): interrupted status set on entry gives InterruptedException and clears it. */
    @Test
    void timedTryLockThrowsWhenInterruptedOnEntry() throws InterruptedException {
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> lock.tryLock(1, TimeUnit.SECONDS));
        assertFalse(Thread.currentThread().isInterrupted());
        assertFree();

        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> lock.tryLock(0, TimeUnit.SECONDS), "even with no time to wait");
        assertFalse(Thread.currentThread().isInterrupted());
        assertFree();
        assertUsable();
    }

    /** lock() and tryLock() do not respond to interruption: they acquire and leave the status set. */
    @Test
    void lockAndTryLockIgnoreInterruptedStatus() {
        Thread.currentThread().interrupt();
        lock.lock();
        assertTrue(Thread.currentThread().isInterrupted(), "lock() keeps the interrupted status");
        assertTrue(lock.tryLock());
        assertTrue(Thread.currentThread().isInterrupted(), "tryLock() keeps the interrupted status");
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        assertTrue(Thread.interrupted());
        assertFree();
    }

    /** lockInterruptibly: a thread interrupted while waiting throws, clears its status and leaves the queue. */
    @Test
    void lockInterruptiblyInterruptedWhileWaiting() throws InterruptedException {
        interruptedWhileWaiting(lock::lockInterruptibly);
    }

    /** tryLock(time): a thread interrupted while waiting throws, clears its status and leaves the queue. */
    @Test
    void timedTryLockInterruptedWhileWaiting() throws InterruptedException {
        interruptedWhileWaiting(() -> lock.tryLock(PATIENCE.toMillis() * 10, MILLISECONDS));
    }

    private void interruptedWhileWaiting(Worker.Body acquire) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Worker holder = holder(release);
        Worker waiter = start("waiter", () -> {
            assertThrows(InterruptedException.class, acquire::run);
            assertFalse(Thread.currentThread().isInterrupted(), "interrupted status cleared");
            assertFalse(lock.isHeldByCurrentThread());
            assertEquals(0, lock.getHoldCount());
        });
        waiter.awaitBlocked();
        assertQueueLength(1);
        waiter.interrupt();
        waiter.join();
        assertQueueLength(0);
        assertTrue(lock.isLocked(), "the holder still holds the lock");
        release.countDown();
        holder.join();
        assertUsable();
    }

    /** lock(): interruption while waiting does not abort it; the status is set again when it returns. */
    @Test
    void lockKeepsWaitingWhenInterruptedAndKeepsTheStatus() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Worker holder = holder(release);
        Worker waiter = start("waiter", () -> {
            lock.lock();
            try {
                assertTrue(Thread.currentThread().isInterrupted(), "interrupted status survives lock()");
                assertEquals(1, lock.getHoldCount());
            } finally {
                lock.unlock();
            }
        });
        waiter.awaitBlocked();
        waiter.interrupt();
        waiter.assertStillWaiting("lock() is not interruptible and the lock is held");
        release.countDown();
        holder.join();
        waiter.join();
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Queue

    /** getQueueLength/hasQueuedThreads count the waiters of every acquisition method; all get the lock in turn. */
    @Test
    void queueCountsWaitersAndDrains() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Worker holder = holder(release);
        AtomicInteger served = new AtomicInteger();
        List<Worker> waiters = List.of(
                start("lock", () -> { lock.lock(); served.incrementAndGet(); lock.unlock(); }),
                start("interruptibly", () -> { lock.lockInterruptibly(); served.incrementAndGet(); lock.unlock(); }),
                start("timed", () -> {
                    assertTrue(lock.tryLock(PATIENCE.toMillis(), MILLISECONDS));
                    served.incrementAndGet();
                    lock.unlock();
                }),
                start("virtual", true, () -> { lock.lock(); served.incrementAndGet(); lock.unlock(); }));
        for (Worker w : waiters) {
            w.awaitBlocked();
        }
        assertQueueLength(waiters.size());
        assertEquals(0, served.get());
        release.countDown();
        holder.join();
        waiters.forEach(Worker::join);
        assertEquals(waiters.size(), served.get());
        assertQueueLength(0);
        assertUsable();
    }

    /** A waiter that times out leaves; the waiters around it still get the lock. */
    @Test
    void timedOutWaiterLeavesTheQueueIntact() throws InterruptedException {
        leavingWaiterLeavesTheQueueIntact(false);
    }

    /** An interrupted waiter leaves; the waiters around it still get the lock. */
    @Test
    void interruptedWaiterLeavesTheQueueIntact() throws InterruptedException {
        leavingWaiterLeavesTheQueueIntact(true);
    }

    /**
     * Long enough, on a quiet machine, for the test to queue a waiter behind the one that will time out; doubled
     * for each retry.
     */
    private static final long LEAVING_TIMEOUT_MS = 500;

    /**
     * The waiter that leaves must still be queued when the last one queues behind it. An interrupted waiter waits
     * until it is interrupted, but a timed one only until its timeout, which a busy machine may let run out before
     * the last waiter has queued: such a round shows nothing about the waiters around a leaving one, so it is run
     * again with twice the timeout, until all three were seen queued at once (up to {@link Worker#PATIENCE}).
     */
    private void leavingWaiterLeavesTheQueueIntact(boolean interrupt) throws InterruptedException {
        for (long timeoutMs = LEAVING_TIMEOUT_MS; !leavingWaiterRound(interrupt, timeoutMs); timeoutMs *= 2) {
            assertTrue(timeoutMs < PATIENCE.toMillis(), "the last waiter never queued before the timed one ("
                    + timeoutMs + " ms) left");
        }
    }

    /** One round; returns whether the leaving waiter, first and last were all seen queued at once. */
    private boolean leavingWaiterRound(boolean interrupt, long timeoutMs) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Worker holder = holder(release);
        AtomicInteger served = new AtomicInteger();
        Worker first = start("first", () -> { lock.lock(); served.incrementAndGet(); lock.unlock(); });
        first.awaitBlocked();
        Worker leaving = start("leaving", () -> {
            if (interrupt) {
                assertThrows(InterruptedException.class, lock::lockInterruptibly);
            } else {
                assertFalse(lock.tryLock(timeoutMs, MILLISECONDS));
            }
            assertEquals(0, lock.getHoldCount());
        });
        leaving.awaitBlockedOrFinished();
        Worker last = start("last", true, () -> { lock.lock(); served.incrementAndGet(); lock.unlock(); });
        last.awaitBlocked();
        boolean allQueued = lock.getQueueLength() == 3;
        assertQueueLength(interrupt ? 3 : 2, 3);
        if (interrupt) {
            leaving.interrupt();
        }
        leaving.join();
        assertQueueLength(2);
        release.countDown();
        holder.join();
        first.join();
        last.join();
        assertEquals(2, served.get());
        assertQueueLength(0);
        assertUsable();
        return interrupt || allQueued;
    }

    /** The queue length is in [low, high] (a timed waiter may already have left by the time we look). */
    private void assertQueueLength(int low, int high) {
        eventually("getQueueLength() in [" + low + ", " + high + "] (is " + lock.getQueueLength() + ")",
                () -> lock.getQueueLength() >= low && lock.getQueueLength() <= high);
    }

    /**
     * Rounds of many waiters that time out or are interrupted at random while the lock changes hands: every
     * waiter that did not give up gets the lock, and nothing is left queued.
     */
    @Test
    void cancellationStormLosesNoWakeUp() throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int round = 0; round < 10; round++) {
            CountDownLatch release = new CountDownLatch(1);
            Worker holder = holder(release);
            AtomicInteger served = new AtomicInteger();
            AtomicInteger gaveUp = new AtomicInteger();
            List<Worker> stayers = new ArrayList<>();
            List<Worker> leavers = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                boolean virtual = (i & 1) == 0;
                switch (i % 3) {
                    case 0 -> stayers.add(start("stayer-" + i, virtual, () -> {
                        lock.lock();
                        served.incrementAndGet();
                        lock.unlock();
                    }));
                    case 1 -> {
                        long timeoutMicros = random.nextLong(1, 20_000);
                        leavers.add(start("timed-" + i, virtual, () -> {
                            boolean acquired;
                            try {
                                acquired = lock.tryLock(timeoutMicros, TimeUnit.MICROSECONDS);
                            } catch (InterruptedException e) {
                                acquired = false;
                            }
                            if (acquired) {
                                served.incrementAndGet();
                                lock.unlock();
                            } else {
                                gaveUp.incrementAndGet();
                            }
                        }));
                    }
                    default -> leavers.add(start("interruptible-" + i, virtual, () -> {
                        try {
                            lock.lockInterruptibly();
                        } catch (InterruptedException e) {
                            gaveUp.incrementAndGet();
                            return;
                        }
                        served.incrementAndGet();
                        lock.unlock();
                    }));
                }
            }
            sleep(random.nextLong(1, 10));
            for (Worker w : leavers) {
                if (random.nextBoolean()) {
                    w.interrupt();
                }
            }
            release.countDown();
            holder.join();
            for (Worker w : leavers) {
                w.interrupt();
            }
            stayers.forEach(Worker::join);
            leavers.forEach(Worker::join);
            assertEquals(12, served.get() + gaveUp.get());
            assertQueueLength(0);
            assertUsable();
        }
    }

    /** A stray LockSupport.unpark of a waiter must not let it return from lock() without the lock. */
    @Test
    void strayUnparkDoesNotGrantTheLock() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Worker holder = holder(release);
        AtomicBoolean released = new AtomicBoolean();
        Worker waiter = start("waiter", () -> {
            lock.lock();
            try {
                assertTrue(released.get(), "lock() returned while the holder still held the lock");
                assertEquals(1, lock.getHoldCount());
            } finally {
                lock.unlock();
            }
        });
        waiter.awaitBlocked();
        for (int i = 0; i < 100; i++) {
            LockSupport.unpark(waiter.thread());
            if (i % 10 == 0) {
                sleep(1);
            }
        }
        waiter.assertStillWaiting("the lock is still held");
        released.set(true);
        release.countDown();
        holder.join();
        waiter.join();
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Exclusion and visibility

    /**
     * Mutual exclusion and visibility under contention, platform and virtual threads, every acquisition method:
     * no two holders at once and no lost increment of a plain counter.
     */
    @Test
    void holdersExcludeEachOtherAndSeeEachOthersWrites() throws InterruptedException {
        int threads = 8;
        int rounds = 2_000;
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Worker> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            all.add(start("contender-" + t, (t & 1) == 1, () -> {
                int done = 0;
                for (int i = 0; done < rounds; i++) {
                    boolean acquired = switch ((i + id) & 3) {
                        case 0 -> { lock.lock(); yield true; }
                        case 1 -> { lock.lockInterruptibly(); yield true; }
                        case 2 -> lock.tryLock();
                        default -> lock.tryLock(100, TimeUnit.MICROSECONDS);
                    };
                    if (!acquired) {
                        continue;
                    }
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        counter[0]++;
                        if ((i & 63) == 0) {
                            Thread.yield();
                        }
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                    done++;
                }
            }));
        }
        all.forEach(Worker::join);
        assertEquals(0, overlaps.get(), "two holders at once");
        lock.lock();
        try {
            assertEquals(threads * rounds, counter[0], "lost increments");
        } finally {
            lock.unlock();
        }
        assertQueueLength(0);
        assertUsable();
    }

    /** Virtual threads hold and wait like platform threads. */
    @Test
    void virtualThreadsHoldAndWait() throws InterruptedException {
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Worker holder = start("virtual-holder", true, () -> {
            lock.lock();
            try {
                acquired.countDown();
                release.await();
            } finally {
                lock.unlock();
            }
        });
        await(acquired);
        Worker waiter = start("virtual-waiter", true, () -> {
            lock.lock();
            try {
                assertTrue(lock.isHeldByCurrentThread());
            } finally {
                lock.unlock();
            }
        });
        waiter.awaitBlocked();
        waiter.assertStillWaiting("the lock is held");
        release.countDown();
        holder.join();
        waiter.join();
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // toString

    /** toString names the owner while the lock is held, and no thread once it is free. */
    @Test
    void toStringNamesTheOwner() throws InterruptedException {
        String name = "owner-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Worker owner = Worker.start(name, () -> {
            lock.lock();
            try {
                acquired.countDown();
                release.await();
            } finally {
                lock.unlock();
            }
        });
        workers.add(owner);
        await(acquired);
        assertTrue(lock.toString().contains(name), () -> "toString while held: " + lock);
        release.countDown();
        owner.join();
        assertFalse(lock.toString().contains(name), () -> "toString once free: " + lock);
    }
}
