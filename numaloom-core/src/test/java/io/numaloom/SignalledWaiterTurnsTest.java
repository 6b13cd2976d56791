package io.numaloom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The signalled waiters of one condition are woken one at a time, each by the re-acquisition of the
 * one before ({@link VnaConditionWakes}): none may be left asleep. The
 * turn passes over waiters that re-acquired on their own after their signal (a timeout or an
 * interrupt that came after the signal), which is where a broken hand-over would strand the rest.
 * Random rounds (seeded, so a failure names its seed) mix the await methods, platform and virtual
 * threads, {@code signal} and {@code signalAll}, interrupts after the signal and timed waits that run
 * out; every waiter must return, and the lock must end with nobody reported queued.
 */
@Timeout(120)
class SignalledWaiterTurnsTest {

    private static final int ROUNDS = 150;

    @AfterEach
    void removeSeams() {
        VnaSeams.installed = null;
    }

    /**
     * The interleaving that strands a waiter if the turn goes to a waiter that has already returned:
     * A, B and C wait, in that order; {@code signalAll} makes A the waiter in transit; B, interrupted
     * after its signal, re-acquires and returns while A is held (by {@link VnaSeams}) just before its
     * re-acquisition; then A goes on, and its turn must pass over B to C.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"VnaLock", "KeyedLock key"})
    void theTurnPassesOverAWaiterThatReturnedByItself(String which) throws InterruptedException {
        Lock lock = which.equals("VnaLock") ? new VnaLock() : new KeyedLock<String>().forKey("k");
        Condition condition = lock.newCondition();
        AtomicInteger waiting = new AtomicInteger();
        Thread[] threads = new Thread[3];
        boolean[] returned = new boolean[3];
        for (int i = 0; i < 3; i++) {
            int me = i;
            threads[i] = Thread.ofPlatform().name("waiter-" + "ABC".charAt(i)).start(() -> {
                lock.lock();
                try {
                    waiting.incrementAndGet();
                    condition.awaitUninterruptibly();
                    returned[me] = true; // guarded by the lock
                } finally {
                    lock.unlock();
                }
            });
            while (waiting.get() == i) { // each waits before the next starts: the condition's order is A, B, C
                Thread.onSpinWait();
            }
            lock.lock(); // the waiter holds the lock until its await has released it
            lock.unlock();
        }
        CountDownLatch aHeld = new CountDownLatch(1);
        CountDownLatch letAGo = new CountDownLatch(1);
        Thread a = threads[0];
        VnaSeams.installed = new VnaSeams() {
            @Override
            void conditionWaitEnded() {
                if (Thread.currentThread() == a) {
                    aHeld.countDown();
                    try {
                        letAGo.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        lock.lock();
        try {
            condition.signalAll(); // A in transit; B and C wait their turn
            threads[1].interrupt(); // B's wait ends at once: it goes for the lock on its own
        } finally {
            lock.unlock(); // wakes A, which the seam holds before it re-acquires
        }
        assertTrue(aHeld.await(30, TimeUnit.SECONDS), "A was not woken by the release after signalAll");
        threads[1].join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(threads[1].isAlive(), "B, interrupted after its signal, did not return on its own");
        letAGo.countDown();
        threads[0].join(TimeUnit.SECONDS.toMillis(30));
        threads[2].join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(threads[2].isAlive(), "C was never woken: the turn went to B, which had already returned");
        lock.lock();
        try {
            assertTrue(returned[0] && returned[1] && returned[2]);
        } finally {
            lock.unlock();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"VnaLock", "KeyedLock key"})
    void everySignalledWaiterGetsItsTurn(String which) throws InterruptedException {
        for (int round = 0; round < ROUNDS; round++) {
            long seed = 0x5EED_0000L + round;
            if (which.equals("VnaLock")) {
                VnaLock lock = new VnaLock();
                runRound(lock, lock.newCondition(), seed, lock::getQueueLength);
            } else {
                KeyedLock<String>.KeyLock lock = new KeyedLock<String>().forKey("k");
                runRound(lock, lock.newCondition(), seed, lock::getQueueLength);
            }
        }
    }

    private interface QueueLength {
        int get();
    }

    private static void runRound(Lock lock, Condition condition, long seed, QueueLength queueLength)
            throws InterruptedException {
        Random random = new Random(seed);
        int n = 2 + random.nextInt(4);
        CountDownLatch entered = new CountDownLatch(n);
        AtomicInteger returned = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int method = random.nextInt(4);
            long timeoutMicros = random.nextInt(3_000);
            Runnable body = () -> {
                lock.lock();
                try {
                    entered.countDown();
                    switch (method) {
                        case 0 -> condition.await();
                        case 1 -> condition.awaitNanos(TimeUnit.MICROSECONDS.toNanos(timeoutMicros));
                        case 2 -> condition.awaitUninterruptibly();
                        default -> condition.await(timeoutMicros, TimeUnit.MICROSECONDS);
                    }
                } catch (InterruptedException expected) {
                    // interrupted before its signal: it returns by the exception, holding the lock again
                } finally {
                    returned.incrementAndGet();
                    lock.unlock();
                }
            };
            threads.add(random.nextBoolean() ? Thread.ofVirtual().start(body) : Thread.ofPlatform().start(body));
        }
        entered.await();
        lock.lock();
        try {
            // Every waiter has entered, so each is waiting or has timed out (and waits for the lock we hold).
            if (random.nextBoolean()) {
                condition.signalAll();
            } else {
                for (int i = 0; i < n; i++) {
                    condition.signal();
                }
            }
            for (Thread t : threads) {
                if (random.nextInt(3) == 0) {
                    t.interrupt(); // after the signal: the waiter may run to the lock before its turn
                }
            }
        } finally {
            lock.unlock();
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(t.isAlive(), () -> "seed " + seed + ": a signalled waiter never returned: " + t
                    + " (" + returned.get() + " of " + n + " returned)");
        }
        assertEquals(n, returned.get(), "seed " + seed);
        assertEquals(0, queueLength.get(), "seed " + seed + ": a returned waiter is still reported queued");
        assertTrue(lock.tryLock(), "seed " + seed + ": the lock is free once every waiter returned");
        lock.unlock();
    }
}
