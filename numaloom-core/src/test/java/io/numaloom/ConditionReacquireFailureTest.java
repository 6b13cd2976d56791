package io.numaloom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The re-acquisition at the end of a condition wait meets user code that throws: a {@link KeyedLock}
 * key whose {@code hashCode} throws on the waiter's thread, a {@link VnaLock#withPlacement custom
 * placement} that throws a {@link RuntimeException} or an {@link Error}. {@code await} must return (or
 * throw its own {@link InterruptedException}) holding the lock, as the {@link Condition} contract says,
 * and the next signalled waiter, whose wake-up waits for that re-acquisition (one in transit per
 * condition, {@link VnaConditionWakes}), must still be woken; nothing may stay counted or pinned.
 *
 * <p>Each test forces its interleaving through latches and {@link VnaSeams}, not through timing: a
 * waiter that never returns fails the test at its join's bound, which a passing run never waits for.
 */
@Timeout(120)
class ConditionReacquireFailureTest {

    private static final long JOIN_MILLIS = 60_000;

    @AfterEach
    void removeSeams() {
        VnaSeams.installed = null;
    }

    /** A key whose {@code hashCode} and {@code equals} throw on one thread while it is trapped. */
    static final class TrapKey {
        private final String name;
        volatile Thread trapped;

        TrapKey(String name) {
            this.name = name;
        }

        private void check(String method) {
            if (Thread.currentThread() == trapped) {
                throw new IllegalStateException(method + " trapped on " + Thread.currentThread().getName());
            }
        }

        @Override
        public int hashCode() {
            check("hashCode");
            return name.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            check("equals");
            return o instanceof TrapKey k && k.name.equals(name);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** What one waiter saw: whether its await returned (or threw InterruptedException) holding the lock. */
    static final class Outcome {
        volatile boolean returned;
        volatile boolean heldAfter;
        volatile Throwable thrown;

        @Override
        public String toString() {
            return "returned " + returned + ", held after " + heldAfter + ", threw " + thrown;
        }
    }

    private static Thread.Builder builder(String kind) {
        return kind.equals("virtual") ? Thread.ofVirtual() : Thread.ofPlatform();
    }

    /**
     * Starts a waiter that awaits {@code condition} (untimed, uninterruptibly) and returns only once
     * it waits: the condition's order is the order of these calls. {@code afterAwait} runs first thing
     * after the await returns, holding the lock.
     */
    private static Thread startWaiter(Thread.Builder builder, String name, Lock lock, Condition condition,
                                      Outcome outcome, Runnable afterAwait) {
        AtomicInteger waiting = new AtomicInteger();
        Thread t = builder.name(name).start(() -> {
            lock.lock();
            try {
                waiting.set(1);
                condition.awaitUninterruptibly();
                afterAwait.run();
                outcome.returned = true;
                outcome.heldAfter = heldByCurrentThread(lock);
            } catch (Throwable e) {
                outcome.thrown = e;
            } finally {
                if (heldByCurrentThread(lock)) {
                    lock.unlock();
                }
            }
        });
        while (waiting.get() == 0) {
            Thread.onSpinWait();
        }
        lock.lock(); // succeeds once the waiter's await has released the lock
        lock.unlock();
        return t;
    }

    private static boolean heldByCurrentThread(Lock lock) {
        return lock instanceof VnaLock v ? v.isHeldByCurrentThread()
                : ((KeyedLock<?>.KeyLock) lock).isHeldByCurrentThread();
    }

    /** Joins W1 and W2 (failing if either never returns) and checks that each await returned holding the lock. */
    private static void bothReturnedHoldingTheLock(Thread w1, Outcome o1, Thread w2, Outcome o2) throws InterruptedException {
        joinOrFail(w1, o1);
        joinOrFail(w2, o2);
        assertNull(o1.thrown, "W1");
        assertTrue(o1.returned && o1.heldAfter, "W1: " + o1);
        assertNull(o2.thrown, "W2");
        assertTrue(o2.returned && o2.heldAfter, "W2: " + o2);
    }

    private static void joinOrFail(Thread t, Outcome outcome) throws InterruptedException {
        t.join(JOIN_MILLIS);
        assertFalse(t.isAlive(), t.getName() + " never returned from await: " + outcome);
    }

    /**
     * W1 and W2 await one key's condition; {@code signalAll} makes W1 the waiter in transit; the key's
     * {@code hashCode} and {@code equals} throw on W1's thread from the signal until W1's await returns.
     * W1 re-acquires all the same (the re-acquisition does not run the key's methods), and W2 is woken.
     */
    @ParameterizedTest(name = "{0} threads")
    @ValueSource(strings = {"platform", "virtual"})
    void aKeyThatThrowsOnTheWaiterInTransitStrandsNobody(String kind) throws InterruptedException {
        KeyedLock<TrapKey> keyed = new KeyedLock<>();
        TrapKey key = new TrapKey("k");
        KeyedLock<TrapKey>.KeyLock lock = keyed.forKey(key);
        Condition condition = lock.newCondition();
        Outcome o1 = new Outcome();
        Outcome o2 = new Outcome();
        Thread w1 = startWaiter(builder(kind), "W1", lock, condition, o1, () -> key.trapped = null);
        Thread w2 = startWaiter(builder(kind), "W2", lock, condition, o2, () -> { });

        lock.lock();
        try {
            assertEquals(2, lock.getWaitQueueLength(condition));
            key.trapped = w1;
            condition.signalAll();
        } finally {
            lock.unlock();
        }
        bothReturnedHoldingTheLock(w1, o1, w2, o2);
        assertEquals(0, lock.getQueueLength());
        assertFalse(lock.hasQueuedThread(w1));
        assertFalse(lock.hasQueuedThread(w2));
        assertEquals(0, keyed.activeKeys(), "the key stays pinned");
        assertFalse(lock.isLocked());
    }

    /** A placement of two queues whose {@code currentQueue} throws on the threads it is told to. */
    static final class TrapPlacement implements QueuePlacement {
        final CountDownLatch thrown = new CountDownLatch(1);
        volatile Thread trapped;
        volatile boolean throwError;

        @Override
        public int queueCount() {
            return 2;
        }

        @Override
        public int currentQueue() {
            Thread t = trapped;
            if (t != null && (t == Thread.currentThread())) {
                thrown.countDown();
                if (throwError) {
                    throw new AssertionError("placement trapped (an Error)");
                }
                throw new IllegalStateException("placement trapped");
            }
            return 1;
        }
    }

    /**
     * W1 and W2 await; {@code signalAll} makes W1 the waiter in transit; W1 is held (by a seam) just
     * before its re-acquisition until the signaller has taken the lock again, so that it re-acquires
     * through the contended path, where the placement throws on its thread. W1 must wait on a queue
     * that cannot fail and return holding the lock, and W2 must be woken after it.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"RuntimeException", "Error"})
    void aPlacementThatThrowsOnTheWaiterInTransitStrandsNobody(String what) throws InterruptedException {
        TrapPlacement placement = new TrapPlacement();
        placement.throwError = what.equals("Error");
        VnaLock lock = VnaLock.withPlacement(placement);
        Condition condition = lock.newCondition();
        Outcome o1 = new Outcome();
        Outcome o2 = new Outcome();
        Thread w1 = startWaiter(Thread.ofPlatform(), "W1", lock, condition, o1, () -> { });
        Thread w2 = startWaiter(Thread.ofPlatform(), "W2", lock, condition, o2, () -> { });

        CountDownLatch w1Ended = new CountDownLatch(1);
        CountDownLatch letW1Go = new CountDownLatch(1);
        VnaSeams.installed = new VnaSeams() {
            @Override
            void conditionWaitEnded() {
                if (Thread.currentThread() == w1) {
                    w1Ended.countDown();
                    try {
                        letW1Go.await();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        };
        placement.trapped = w1;
        lock.lock();
        condition.signalAll();
        lock.unlock(); // wakes W1 (in transit); W2 waits for W1's re-acquisition
        assertTrue(w1Ended.await(JOIN_MILLIS, TimeUnit.MILLISECONDS), "W1 was never woken");
        lock.lock();
        try {
            letW1Go.countDown();
            assertTrue(placement.thrown.await(JOIN_MILLIS, TimeUnit.MILLISECONDS),
                    "W1 did not re-acquire through the contended path");
        } finally {
            lock.unlock();
        }
        bothReturnedHoldingTheLock(w1, o1, w2, o2);
        assertEquals(0, lock.getQueueLength());
        assertFalse(lock.isLocked());
    }

    /**
     * A waiter whose wait ends without a signal (it times out, or it is interrupted) while another
     * thread holds the lock re-acquires through the contended path; the placement throws there on its
     * thread. {@code await} must still return (false for the timeout, InterruptedException for the
     * interrupt) holding the lock, and the caller's {@code unlock} must succeed.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"timeout", "interrupt", "timeout, Error"})
    void anUnsignalledWaiterReacquiresDespiteAThrowingPlacement(String how) throws InterruptedException {
        TrapPlacement placement = new TrapPlacement();
        placement.throwError = how.endsWith("Error");
        VnaLock lock = VnaLock.withPlacement(placement);
        Condition condition = lock.newCondition();
        boolean interrupt = how.equals("interrupt");
        AtomicReference<Boolean> awaitResult = new AtomicReference<>();
        Outcome o = new Outcome();
        AtomicInteger waiting = new AtomicInteger();
        Thread w = Thread.ofPlatform().name("W").start(() -> {
            lock.lock();
            try {
                placement.trapped = Thread.currentThread();
                waiting.set(1);
                if (interrupt) {
                    condition.await();
                } else {
                    awaitResult.set(condition.await(50, TimeUnit.MILLISECONDS));
                }
                o.returned = true;
                o.heldAfter = lock.isHeldByCurrentThread();
            } catch (InterruptedException e) {
                o.thrown = e;
                o.heldAfter = lock.isHeldByCurrentThread();
            } catch (Throwable e) {
                o.thrown = e;
            } finally {
                if (lock.isHeldByCurrentThread()) {
                    lock.unlock();
                }
            }
        });
        while (waiting.get() == 0) {
            Thread.onSpinWait();
        }
        // Hold the lock while W waits, so that its re-acquisition finds it held.
        for (;;) {
            if (lock.tryLock()) {
                if (lock.hasWaiters(condition)) {
                    break;
                }
                lock.unlock();
            }
            Thread.onSpinWait();
        }
        try {
            if (interrupt) {
                w.interrupt();
            }
            assertTrue(placement.thrown.await(JOIN_MILLIS, TimeUnit.MILLISECONDS),
                    "W did not re-acquire through the contended path");
        } finally {
            lock.unlock();
        }
        joinOrFail(w, o);

        if (interrupt) {
            assertTrue(o.thrown instanceof InterruptedException, "W: " + o);
        } else {
            assertNull(o.thrown, "W");
            assertTrue(o.returned, "W: " + o);
            assertEquals(Boolean.FALSE, awaitResult.get(), "a wait that timed out returns false");
        }
        assertTrue(o.heldAfter, "W left await without the lock: " + o);
        assertEquals(0, lock.getQueueLength());
        assertFalse(lock.isLocked());
    }
}
