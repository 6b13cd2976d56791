package io.numaloom.stress.conformance;

import io.numaloom.stress.subject.InspectableLock;
import io.numaloom.stress.subject.Subject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;

import static io.numaloom.stress.conformance.Worker.PATIENCE;
import static io.numaloom.stress.conformance.Worker.SHORT_MS;
import static io.numaloom.stress.conformance.Worker.eventually;
import static io.numaloom.stress.conformance.Worker.sleep;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Conformance of {@code lock.newCondition()} to the {@link Condition} specification with the semantics of
 * {@code AbstractQueuedSynchronizer.ConditionObject} (the conditions of {@code ReentrantLock}), run over every
 * {@link Subject}: ownership checks, release of every hold and re-acquisition with the same hold count,
 * interruption on entry and while waiting, timeouts and the values the timed waits return, signal order,
 * signalAll, and tolerance of stray wake-ups.
 *
 * <p>Where the {@code Condition} javadoc leaves room ("spurious wakeups"), a test either waits in the
 * predicate loop the javadoc prescribes, or, where it checks {@code ConditionObject}'s stronger guarantee (a
 * signal wakes the longest-waiting thread, and nothing else wakes it), says so.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(Subject.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConditionConformanceTest {

    @Parameter
    Subject subject;

    InspectableLock lock;
    Condition condition;

    /** Guarded by {@link #lock}: the predicate waiters wait for. */
    boolean ready;

    private final List<Worker> workers = new ArrayList<>();

    @BeforeEach
    void createLock() {
        lock = subject.create();
        condition = lock.newCondition();
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

    private Worker start(String name, boolean virtual, Worker.Body body) {
        Worker w = Worker.start(subject + "-" + name, virtual, body);
        workers.add(w);
        return w;
    }

    private Worker start(String name, Worker.Body body) {
        return start(name, false, body);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(PATIENCE.toMillis(), MILLISECONDS), "latch not released within " + PATIENCE);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Starts a waiter that takes the lock, counts down {@code entered}, and runs {@code body} (which waits on the
     * condition) before unlocking; returns once the waiter is inside the wait, which the caller proves by taking
     * the lock itself: the waiter held the lock from {@code entered} until its wait released it.
     */
    private Worker waiter(String name, boolean virtual, Worker.Body body) {
        CountDownLatch entered = new CountDownLatch(1);
        Worker w = start(name, virtual, () -> {
            lock.lock();
            try {
                entered.countDown();
                body.run();
            } finally {
                lock.unlock();
            }
        });
        await(entered);
        lock.lock();
        lock.unlock();
        return w;
    }

    private void signalUnderLock(boolean all) {
        lock.lock();
        try {
            if (all) {
                condition.signalAll();
            } else {
                condition.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether a thread waits on {@link #condition}, asked holding the lock (as hasWaiters requires). */
    private boolean waitsOnCondition() {
        lock.lock();
        try {
            return lock.hasWaiters(condition);
        } finally {
            lock.unlock();
        }
    }

    private void assertUsable() throws InterruptedException {
        assertTrue(lock.tryLock(PATIENCE.toMillis(), MILLISECONDS), "lock could not be taken again");
        lock.unlock();
        assertFalse(lock.isLocked());
        eventually("no queued threads", () -> !lock.hasQueuedThreads() && lock.getQueueLength() == 0);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Ownership

    /** Each lock hands out distinct conditions. */
    @Test
    void newConditionReturnsADistinctCondition() {
        assertNotSame(condition, lock.newCondition());
    }

    /** Waiting: IllegalMonitorStateException when the lock is not held, neither by anyone nor by this thread. */
    @ParameterizedTest
    @EnumSource(AwaitMethod.class)
    void waitingRequiresTheLock(AwaitMethod method) throws InterruptedException {
        assertThrows(IllegalMonitorStateException.class, () -> method.await(condition), "lock free");
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        Worker other = start("holder", () -> {
            lock.lock();
            try {
                held.countDown();
                release.await();
            } finally {
                lock.unlock();
            }
        });
        await(held);
        assertThrows(IllegalMonitorStateException.class, () -> method.await(condition), "lock held by another thread");
        release.countDown();
        other.join();
        assertUsable();
    }

    /** signal and signalAll: IllegalMonitorStateException when the lock is not held by this thread. */
    @Test
    void signallingRequiresTheLock() throws InterruptedException {
        assertThrows(IllegalMonitorStateException.class, condition::signal);
        assertThrows(IllegalMonitorStateException.class, condition::signalAll);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        Worker other = start("holder", () -> {
            lock.lock();
            try {
                held.countDown();
                release.await();
            } finally {
                lock.unlock();
            }
        });
        await(held);
        assertThrows(IllegalMonitorStateException.class, condition::signal);
        assertThrows(IllegalMonitorStateException.class, condition::signalAll);
        release.countDown();
        other.join();
        assertUsable();
    }

    /** A condition belongs to its lock: holding another lock does not allow waiting on it or signalling it. */
    @Test
    void conditionRequiresItsOwnLock() throws InterruptedException {
        InspectableLock other = subject.create();
        Condition foreign = other.newCondition();
        lock.lock();
        try {
            assertThrows(IllegalMonitorStateException.class, foreign::await);
            assertThrows(IllegalMonitorStateException.class, foreign::signal);
            assertThrows(IllegalMonitorStateException.class, foreign::signalAll);
            assertEquals(1, lock.getHoldCount());
        } finally {
            lock.unlock();
        }
        assertFalse(other.isLocked());
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Release and re-acquisition

    /**
     * await releases every hold (another thread can take the lock), and returns only after re-acquiring it, with
     * the hold count it had, after the signaller unlocked.
     */
    @ParameterizedTest
    @EnumSource(AwaitMethod.class)
    void awaitReleasesEveryHoldAndRestoresThem(AwaitMethod method) throws InterruptedException {
        AtomicBoolean signallerUnlocked = new AtomicBoolean();
        Worker waiter = waiter("waiter", false, () -> {
            lock.lock();
            lock.lock();
            try {
                while (!ready) {
                    assertTrue(method.await(condition), () -> method + " reported a timeout although it was signalled");
                }
                assertTrue(signallerUnlocked.get(), "returned before the signaller released the lock");
                assertTrue(lock.isHeldByCurrentThread());
                assertEquals(3, lock.getHoldCount());
            } finally {
                lock.unlock();
                lock.unlock();
            }
        });
        lock.lock();
        try {
            assertEquals(1, lock.getHoldCount(), "the waiter released all three of its holds");
            assertTrue(lock.isHeldByCurrentThread());
            ready = true;
            condition.signal();
            waiter.assertStillWaiting("the signaller still holds the lock");
            signallerUnlocked.set(true);
        } finally {
            lock.unlock();
        }
        waiter.join();
        assertUsable();
    }

    /** A waiter whose time runs out while another thread holds the lock returns only after re-acquiring it. */
    @Test
    void timedOutWaiterReacquiresBeforeReturning() throws InterruptedException {
        AtomicBoolean released = new AtomicBoolean();
        AtomicLong remaining = new AtomicLong(1);
        Worker waiter = waiter("waiter", false, () -> {
            remaining.set(condition.awaitNanos(MILLISECONDS.toNanos(SHORT_MS)));
            assertTrue(released.get(), "returned while the lock was held by another thread");
            assertEquals(1, lock.getHoldCount());
        });
        lock.lock();
        try {
            sleep(SHORT_MS * 3);
            assertFalse(waiter.finished());
            released.set(true);
        } finally {
            lock.unlock();
        }
        waiter.join();
        assertTrue(remaining.get() <= 0, "awaitNanos reported " + remaining.get() + " ns left after timing out");
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Timeouts and return values

    /**
     * Runs {@code body} on another thread and waits for it, so that a wait that never returns fails the test
     * with the stuck thread's stack after {@link Worker#PATIENCE} instead of hanging it.
     */
    private void bounded(Worker.Body body) {
        start("bounded", false, body).join();
    }

    /** Timed waits with no signal return "timed out" (<= 0 / false), not before the time, holding the lock. */
    @Test
    void timedWaitsTimeOutOnTime() throws InterruptedException {
        bounded(this::timedWaitsTimeOutOnTimeBody);
        assertUsable();
    }

    private void timedWaitsTimeOutOnTimeBody() throws InterruptedException {
        long timeout = MILLISECONDS.toNanos(SHORT_MS);
        lock.lock();
        lock.lock();
        try {
            long start = System.nanoTime();
            long left = condition.awaitNanos(timeout);
            assertOnTime(start, timeout);
            assertTrue(left <= 0, "awaitNanos returned " + left);
            assertEquals(2, lock.getHoldCount());

            start = System.nanoTime();
            assertFalse(condition.await(SHORT_MS, MILLISECONDS));
            assertOnTime(start, timeout);
            assertEquals(2, lock.getHoldCount());

            Date deadline = new Date(System.currentTimeMillis() + SHORT_MS);
            assertFalse(condition.awaitUntil(deadline));
            assertTrue(System.currentTimeMillis() >= deadline.getTime(), "awaitUntil returned before its deadline");
            assertEquals(2, lock.getHoldCount());
            assertTrue(lock.isHeldByCurrentThread());
        } finally {
            lock.unlock();
            lock.unlock();
        }
    }

    private static void assertOnTime(long start, long timeoutNanos) {
        long elapsed = System.nanoTime() - start;
        assertTrue(elapsed >= timeoutNanos, "returned after " + elapsed + " ns, before the timeout " + timeoutNanos);
        assertTrue(elapsed < PATIENCE.toNanos(), "returned after " + elapsed + " ns");
    }

    /** Timed waits with no time left return "timed out" at once, still holding the lock. */
    @Test
    void timedWaitsWithNoTimeLeftReturnAtOnce() throws InterruptedException {
        bounded(() -> {
            lock.lock();
            try {
                for (long nanos : new long[] {0, -1, -MILLISECONDS.toNanos(SHORT_MS), Long.MIN_VALUE}) {
                    long left = condition.awaitNanos(nanos);
                    assertTrue(left <= 0, "awaitNanos(" + nanos + ") returned " + left);
                    assertEquals(1, lock.getHoldCount());
                }
                assertFalse(condition.await(0, TimeUnit.SECONDS));
                assertFalse(condition.await(-1, TimeUnit.SECONDS));
                assertFalse(condition.await(Long.MIN_VALUE, TimeUnit.NANOSECONDS));
                assertFalse(condition.awaitUntil(new Date(System.currentTimeMillis() - 1_000)));
                assertFalse(condition.awaitUntil(new Date(0)));
                assertFalse(condition.awaitUntil(new Date(Long.MIN_VALUE)));
                assertTrue(lock.isHeldByCurrentThread());
                assertEquals(1, lock.getHoldCount());
            } finally {
                lock.unlock();
            }
        });
        assertUsable();
    }

    /** awaitNanos returns an estimate of the time left: positive when signalled, timeout minus time waited. */
    @Test
    void awaitNanosReturnsTheTimeLeft() throws InterruptedException {
        for (long timeout : new long[] {PATIENCE.toNanos() * 2, Long.MAX_VALUE}) {
            ready = false;
            AtomicLong left = new AtomicLong();
            AtomicLong waited = new AtomicLong();
            Worker waiter = waiter("waiter", false, () -> {
                long start = System.nanoTime();
                long nanos = timeout;
                while (!ready && nanos > 0) {
                    nanos = condition.awaitNanos(nanos);
                }
                waited.set(System.nanoTime() - start);
                left.set(nanos);
            });
            lock.lock();
            try {
                ready = true;
                condition.signal();
            } finally {
                lock.unlock();
            }
            waiter.join();
            long l = left.get();
            assertTrue(l > 0, "signalled, yet awaitNanos(" + timeout + ") returned " + l);
            assertTrue(l <= timeout, "more time left than given: " + l);
            assertTrue(l >= timeout - waited.get(),
                    "returned " + l + " ns left of " + timeout + " after waiting only " + waited.get() + " ns");
        }
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Interruption

    /** Interruptible waits: interrupted status on entry gives InterruptedException, clears it, keeps the holds. */
    @ParameterizedTest
    @EnumSource(value = AwaitMethod.class, names = "AWAIT_UNINTERRUPTIBLY", mode = EnumSource.Mode.EXCLUDE)
    void interruptedOnEntryThrowsAtOnce(AwaitMethod method) throws InterruptedException {
        lock.lock();
        lock.lock();
        try {
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, () -> method.await(condition));
            assertFalse(Thread.currentThread().isInterrupted(), "interrupted status cleared");
            assertTrue(lock.isHeldByCurrentThread());
            assertEquals(2, lock.getHoldCount());
        } finally {
            lock.unlock();
            lock.unlock();
        }
        assertUsable();
    }

    /**
     * Interruptible waits: interruption while waiting throws InterruptedException, but only once the lock is
     * re-acquired, with the holds restored and the status cleared.
     */
    @ParameterizedTest
    @EnumSource(value = AwaitMethod.class, names = "AWAIT_UNINTERRUPTIBLY", mode = EnumSource.Mode.EXCLUDE)
    void interruptedWhileWaitingThrowsAfterReacquiring(AwaitMethod method) throws InterruptedException {
        AtomicBoolean released = new AtomicBoolean();
        Worker waiter = waiter("waiter", false, () -> {
            lock.lock();
            try {
                assertThrows(InterruptedException.class, () -> method.await(condition));
                assertTrue(released.get(), "threw before re-acquiring the lock");
                assertFalse(Thread.currentThread().isInterrupted(), "interrupted status cleared");
                assertTrue(lock.isHeldByCurrentThread());
                assertEquals(2, lock.getHoldCount());
            } finally {
                lock.unlock();
            }
        });
        lock.lock();
        try {
            waiter.interrupt();
            waiter.assertStillWaiting("the lock is held by the interrupter");
            released.set(true);
        } finally {
            lock.unlock();
        }
        waiter.join();
        assertUsable();
    }

    /** awaitUninterruptibly keeps waiting through interrupts (also one pending on entry) and keeps the status. */
    @Test
    void awaitUninterruptiblyIgnoresInterruptsAndKeepsTheStatus() throws InterruptedException {
        Worker waiter = waiter("waiter", false, () -> {
            Thread.currentThread().interrupt();
            while (!ready) {
                condition.awaitUninterruptibly();
            }
            assertTrue(Thread.currentThread().isInterrupted(), "interrupted status kept");
            assertEquals(1, lock.getHoldCount());
        });
        waiter.interrupt();
        waiter.assertStillWaiting("nobody signalled");
        lock.lock();
        try {
            ready = true;
            condition.signal();
        } finally {
            lock.unlock();
        }
        waiter.join();
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // signal and signalAll

    /**
     * ConditionObject.signal "moves the longest-waiting thread": three waiters wake in the order they started
     * waiting, one per signal, and none without a signal (ConditionObject never wakes spuriously).
     */
    @Test
    void signalWakesTheLongestWaitingThreadFirst() throws InterruptedException {
        ConcurrentLinkedQueue<Integer> woken = new ConcurrentLinkedQueue<>();
        List<Worker> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int id = i;
            waiters.add(waiter("waiter-" + i, (i & 1) == 1, () -> {
                condition.await();
                woken.add(id);
            }));
        }
        for (int i = 0; i < 3; i++) {
            int expected = i + 1;
            signalUnderLock(false);
            eventually(expected + " waiter(s) woken", () -> woken.size() >= expected);
            waiters.get(i).join();
            if (i < 2) {
                waiters.get(i + 1).assertStillWaiting("only " + expected + " signal(s) were sent");
            }
        }
        assertEquals(List.of(0, 1, 2), List.copyOf(woken));
        assertUsable();
    }

    /** signalAll wakes every waiter, whatever method it waits with, platform or virtual. */
    @Test
    void signalAllWakesEveryWaiter() throws InterruptedException {
        AtomicInteger woken = new AtomicInteger();
        List<Worker> waiters = new ArrayList<>();
        AwaitMethod[] methods = AwaitMethod.values();
        for (int i = 0; i < 2 * methods.length; i++) {
            AwaitMethod method = methods[i % methods.length];
            waiters.add(waiter("waiter-" + i, (i & 1) == 1, () -> {
                while (!ready) {
                    assertTrue(method.await(condition), () -> method + " reported a timeout although it was signalled");
                }
                assertEquals(1, lock.getHoldCount());
                woken.incrementAndGet();
            }));
        }
        lock.lock();
        try {
            assertTrue(lock.hasWaiters(condition), "hasWaiters with " + waiters.size() + " waiters");
            ready = true;
            condition.signalAll();
            assertFalse(lock.hasWaiters(condition), "hasWaiters right after signalAll");
        } finally {
            lock.unlock();
        }
        waiters.forEach(Worker::join);
        assertEquals(waiters.size(), woken.get());
        assertUsable();
    }

    /** signal wakes one waiter; the others keep waiting until signalled. */
    @Test
    void signalWakesOneWaiterOnly() throws InterruptedException {
        int[] permits = {0};
        AtomicInteger woken = new AtomicInteger();
        List<Worker> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiters.add(waiter("waiter-" + i, (i & 1) == 0, () -> {
                while (permits[0] == 0) {
                    condition.await();
                }
                permits[0]--;
                woken.incrementAndGet();
            }));
        }
        lock.lock();
        try {
            permits[0] = 1;
            condition.signal();
        } finally {
            lock.unlock();
        }
        eventually("one waiter woken", () -> woken.get() == 1);
        Worker.sleep(Worker.OBSERVE_MS);
        assertEquals(1, woken.get(), "one signal woke more than one waiter for good");
        lock.lock();
        try {
            permits[0] = 3;
            condition.signalAll();
        } finally {
            lock.unlock();
        }
        waiters.forEach(Worker::join);
        assertEquals(4, woken.get());
        assertUsable();
    }

    /** A signal with no waiter is harmless and is not remembered for a later waiter. */
    @Test
    void signalWithoutWaitersIsNotRemembered() throws InterruptedException {
        signalUnderLock(false);
        signalUnderLock(true);
        AtomicBoolean signalled = new AtomicBoolean();
        Worker waiter = waiter("waiter", false, () -> {
            condition.await();
            assertTrue(signalled.get(), "woken by a signal sent before it waited");
        });
        waiter.assertStillWaiting("the only signals were sent before it waited");
        lock.lock();
        try {
            signalled.set(true);
            condition.signal();
        } finally {
            lock.unlock();
        }
        waiter.join();
        assertUsable();
    }

    /** Conditions of one lock are independent: signalling one does not wake a waiter of the other. */
    @Test
    void conditionsAreIndependent() throws InterruptedException {
        Condition other = lock.newCondition();
        AtomicBoolean signalled = new AtomicBoolean();
        Worker waiter = waiter("waiter", false, () -> {
            while (!signalled.get()) {
                other.await();
            }
        });
        signalUnderLock(true);
        waiter.assertStillWaiting("only the other condition was signalled");
        lock.lock();
        try {
            signalled.set(true);
            other.signal();
        } finally {
            lock.unlock();
        }
        waiter.join();
        assertUsable();
    }

    /** Waiters that leave by interruption or timeout do not swallow the signal meant for the one behind them. */
    @Test
    void leavingWaitersDoNotSwallowSignals() throws InterruptedException {
        Worker interrupted = waiter("interrupted", false,
                () -> assertThrows(InterruptedException.class, condition::await));
        Worker timedOut = waiter("timed-out", true,
                () -> assertTrue(condition.awaitNanos(MILLISECONDS.toNanos(SHORT_MS)) <= 0));
        Worker staying = waiter("staying", false, condition::await);
        interrupted.interrupt();
        interrupted.join();
        timedOut.join();
        staying.assertStillWaiting("nobody signalled yet");
        signalUnderLock(false);
        staying.join();
        lock.lock();
        try {
            assertFalse(lock.hasWaiters(condition), "a waiter that left is still counted on the condition");
        } finally {
            lock.unlock();
        }
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Stray wake-ups

    /**
     * A stray LockSupport.unpark of a waiting thread neither breaks the lock nor returns the wait without the lock:
     * a waiter in the predicate loop always comes back holding the lock with its holds, and leaves only on signal.
     */
    @Test
    void strayUnparksDoNotBreakAwait() throws InterruptedException {
        AtomicInteger returns = new AtomicInteger();
        Worker waiter = waiter("waiter", false, () -> {
            lock.lock();
            try {
                while (!ready) {
                    condition.await();
                    returns.incrementAndGet();
                    assertTrue(lock.isHeldByCurrentThread());
                    assertEquals(2, lock.getHoldCount());
                }
            } finally {
                lock.unlock();
            }
        });
        for (int i = 0; i < 100; i++) {
            LockSupport.unpark(waiter.thread());
            if (i % 10 == 0) {
                sleep(1);
            }
        }
        waiter.assertStillWaiting("the predicate is false");
        signalUnderLock(false);
        // Back in await before the second signal: on a busy machine the woken waiter may not have re-acquired
        // yet, and a signal sent before it waits again would find nobody (with any lock).
        eventually("the waiter returned once and waits again", () -> returns.get() == 1 && waitsOnCondition());
        waiter.assertStillWaiting("the predicate is still false");
        lock.lock();
        try {
            ready = true;
            condition.signal();
        } finally {
            lock.unlock();
        }
        waiter.join();
        assertTrue(returns.get() >= 2, "the waiter returned " + returns.get() + " time(s) for 2 signals");
        assertUsable();
    }

    /** A timed predicate loop under stray unparks ends at its deadline, not before (awaitNanos counts down). */
    @Test
    void strayUnparksDoNotShortenATimedWait() throws InterruptedException {
        long timeout = MILLISECONDS.toNanos(SHORT_MS * 4);
        AtomicLong waited = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        Worker waiter = waiter("waiter", false, () -> {
            long start = System.nanoTime();
            long nanos = timeout;
            while (!ready && nanos > 0) {
                nanos = condition.awaitNanos(nanos);
                assertEquals(1, lock.getHoldCount());
            }
            waited.set(System.nanoTime() - start);
            done.set(true);
        });
        while (!done.get()) {
            LockSupport.unpark(waiter.thread());
            sleep(1);
        }
        waiter.join();
        assertTrue(waited.get() >= timeout, "timed loop ended after " + waited.get() + " of " + timeout + " ns");
        assertTrue(waited.get() < PATIENCE.toNanos(), "timed loop took " + waited.get() + " ns");
        assertUsable();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Use

    /** A bounded buffer with two conditions, on virtual threads: every item is taken exactly once. */
    @Test
    void boundedBufferOnVirtualThreads() throws InterruptedException {
        Condition notFull = lock.newCondition();
        Condition notEmpty = lock.newCondition();
        int capacity = 4;
        long[] slots = new long[capacity];
        int[] headTailCount = new int[3];
        int producers = 4;
        int items = 2_000;
        AtomicLong taken = new AtomicLong();
        List<Worker> all = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            all.add(start("producer-" + p, true, () -> {
                for (int i = 1; i <= items; i++) {
                    lock.lock();
                    try {
                        while (headTailCount[2] == capacity) {
                            notFull.await();
                        }
                        slots[headTailCount[1]] = i;
                        headTailCount[1] = (headTailCount[1] + 1) % capacity;
                        headTailCount[2]++;
                        notEmpty.signal();
                    } finally {
                        lock.unlock();
                    }
                }
            }));
            all.add(start("consumer-" + p, true, () -> {
                for (int i = 0; i < items; i++) {
                    long item;
                    lock.lock();
                    try {
                        while (headTailCount[2] == 0) {
                            notEmpty.await();
                        }
                        item = slots[headTailCount[0]];
                        headTailCount[0] = (headTailCount[0] + 1) % capacity;
                        headTailCount[2]--;
                        notFull.signal();
                    } finally {
                        lock.unlock();
                    }
                    taken.addAndGet(item);
                }
            }));
        }
        all.forEach(Worker::join);
        assertEquals((long) producers * items * (items + 1) / 2, taken.get());
        assertEquals(0, headTailCount[2]);
        assertUsable();
    }
}
