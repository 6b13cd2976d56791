package io.numaloom.stress.conformance;

import io.numaloom.KeyedLock;
import io.numaloom.QueuePlacement;
import io.numaloom.VnaLock;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The model of a condition waiter whose re-acquisition meets user code that throws, in random rounds: the
 * waiter in transit, the signalled waiters behind it and waiters whose wait ended by a timeout or an interrupt
 * re-acquire while that code throws on their threads, against a signaller that barges back. The user code is
 * a {@code VnaLock} placement (a {@link RuntimeException} or an {@link Error}) or a {@code KeyedLock} key's
 * {@code hashCode} and {@code equals}; a waiter's trap is armed by the signaller, holding the lock, only while
 * the waiter is past the start of its wait (it has released the lock), and disarmed by the waiter as soon as its
 * await returns, so the only user code that can meet a trap is the one the re-acquisition would run.
 *
 * <p>In every round each waiter's await must return, normally or by its own {@link InterruptedException},
 * holding the lock once; no signalled waiter may be left asleep; the lock must end free, with nobody reported
 * queued and, for a key, the key no longer pinned. Rounds are seeded: a failure names its seed. Platform and
 * virtual threads mix; the five await methods mix.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReacquireMeetsThrowingCodeTest {

    private static final int ROUNDS = 150;
    private static final long JOIN_MILLIS = TimeUnit.SECONDS.toMillis(30);

    /** The threads on which the user code throws now. */
    private final Set<Thread> trapped = ConcurrentHashMap.newKeySet();

    /**
     * How many traps were armed on waiting threads, and how many times the user code threw: a model whose
     * traps are never armed tests nothing. A placement must spring (the contended re-acquisition asks it); a
     * key's methods must not even be called by then.
     */
    private final AtomicInteger armed = new AtomicInteger();
    private final AtomicInteger sprung = new AtomicInteger();

    private boolean trappedHere() {
        boolean here = trapped.contains(Thread.currentThread());
        if (here) {
            sprung.incrementAndGet();
        }
        return here;
    }

    /** A placement of two queues that throws on trapped threads: an {@link Error} or a {@link RuntimeException}. */
    private QueuePlacement placement(boolean error) {
        return new QueuePlacement() {
            @Override
            public int queueCount() {
                return 2;
            }

            @Override
            public int currentQueue() {
                if (trappedHere()) {
                    if (error) {
                        throw new AssertionError("placement trapped");
                    }
                    throw new IllegalStateException("placement trapped");
                }
                return 1;
            }
        };
    }

    /** A key whose {@code hashCode} and {@code equals} throw on trapped threads. */
    private final class TrapKey {
        @Override
        public int hashCode() {
            if (trappedHere()) {
                throw new IllegalStateException("hashCode trapped");
            }
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            if (trappedHere()) {
                throw new IllegalStateException("equals trapped");
            }
            return o instanceof TrapKey;
        }
    }

    /** What a round needs of its lock beyond {@link Lock}. */
    private interface Inspect {
        boolean heldByCurrentThread();

        int queueLength();

        /** The residue a lock that ended clean has not: for a key, keys still pinned or held. */
        int activeKeys();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"VnaLock, placement throws RuntimeException", "VnaLock, placement throws Error",
            "KeyedLock key, hashCode and equals throw"})
    void everyWaiterReturnsHoldingTheLockAndNoWakeUpIsLost(String which) throws InterruptedException {
        for (int round = 0; round < ROUNDS; round++) {
            long seed = 0x7272_0000L + round;
            if (which.startsWith("VnaLock")) {
                VnaLock lock = VnaLock.withPlacement(placement(which.endsWith("Error")));
                runRound(lock, lock.newCondition(), seed, new Inspect() {
                    @Override public boolean heldByCurrentThread() { return lock.isHeldByCurrentThread(); }
                    @Override public int queueLength() { return lock.getQueueLength(); }
                    @Override public int activeKeys() { return 0; }
                });
            } else {
                KeyedLock<TrapKey> locks = KeyedLock.builder().bindOnFirstLock(true).build();
                KeyedLock<TrapKey>.KeyLock lock = locks.forKey(new TrapKey());
                runRound(lock, lock.newCondition(), seed, new Inspect() {
                    @Override public boolean heldByCurrentThread() { return lock.isHeldByCurrentThread(); }
                    @Override public int queueLength() { return lock.getQueueLength(); }
                    @Override public int activeKeys() { return locks.activeKeys(); }
                });
            }
            assertTrue(trapped.isEmpty(), "seed " + seed + ": a trap was left armed");
        }
        assertTrue(armed.get() >= ROUNDS, "only " + armed.get() + " traps armed in " + ROUNDS + " rounds");
        if (which.startsWith("VnaLock")) {
            assertTrue(sprung.get() >= ROUNDS / 10, "the placement threw only " + sprung.get() + " times in " + ROUNDS
                    + " rounds: the re-acquisitions did not meet it");
        } else {
            assertEquals(0, sprung.get(), "the key's methods ran after the wait began");
        }
    }

    private void runRound(Lock lock, Condition condition, long seed, Inspect inspect) throws InterruptedException {
        Random random = new Random(seed);
        int n = 2 + random.nextInt(4);
        CountDownLatch entered = new CountDownLatch(n);
        Set<Thread> waiting = ConcurrentHashMap.newKeySet(); // past the start of their wait, not yet returned
        AtomicInteger returned = new AtomicInteger();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int method = random.nextInt(5);
            long timeoutMicros = 1 + random.nextInt(2_000);
            int me = i;
            Runnable body = () -> {
                lock.lock();
                boolean interrupted = false;
                try {
                    waiting.add(Thread.currentThread());
                    entered.countDown();
                    try {
                        switch (method) {
                            case 0 -> condition.await();
                            case 1 -> condition.awaitNanos(TimeUnit.MICROSECONDS.toNanos(timeoutMicros));
                            case 2 -> condition.awaitUninterruptibly();
                            case 3 -> condition.await(timeoutMicros, TimeUnit.MICROSECONDS);
                            default -> condition.awaitUntil(new Date(System.currentTimeMillis() + timeoutMicros / 1000));
                        }
                    } catch (InterruptedException e) {
                        interrupted = true; // interrupted before its signal: thrown holding the lock again
                    } finally {
                        trapped.remove(Thread.currentThread()); // first: before this thread uses the lock again
                        waiting.remove(Thread.currentThread());
                    }
                    if (!inspect.heldByCurrentThread()) {
                        failures.add("waiter " + me + " (await method " + method + (interrupted ? ", interrupted" : "")
                                + ") left await without the lock");
                        return;
                    }
                    returned.incrementAndGet();
                } catch (RuntimeException | Error e) {
                    trapped.remove(Thread.currentThread());
                    waiting.remove(Thread.currentThread());
                    failures.add("waiter " + me + " (await method " + method + ") threw " + e);
                    return;
                }
                lock.unlock();
            };
            threads.add(random.nextBoolean() ? Thread.ofVirtual().start(body) : Thread.ofPlatform().start(body));
        }
        entered.await();
        lock.lock();
        try {
            // Holding the lock, every waiter has released it: it waits, or its wait has ended and it waits for us.
            for (Thread t : waiting) {
                if (random.nextInt(3) != 0) {
                    trapped.add(t);
                    armed.incrementAndGet();
                }
            }
            if (random.nextBoolean()) {
                condition.signalAll();
            } else {
                for (int i = random.nextInt(n + 1); i > 0; i--) {
                    condition.signal();
                }
                condition.signalAll(); // the rest, after a few single signals
            }
            for (Thread t : threads) {
                if (random.nextInt(4) == 0) {
                    t.interrupt();
                }
            }
        } finally {
            lock.unlock();
        }
        for (int i = random.nextInt(4); i > 0; i--) { // barge back: the waiters re-acquire against a held lock
            lock.lock();
            try {
                LockSupport.parkNanos(random.nextInt(50_000));
            } finally {
                lock.unlock();
            }
        }
        for (Thread t : threads) {
            t.join(JOIN_MILLIS);
            assertFalse(t.isAlive(), () -> "seed " + seed + ": a waiter never returned (a lost wake-up): " + t
                    + "; " + returned.get() + " of " + n + " returned; " + failures);
        }
        assertTrue(failures.isEmpty(), "seed " + seed + ": " + failures);
        assertEquals(n, returned.get(), "seed " + seed);
        assertEquals(0, inspect.queueLength(), "seed " + seed + ": a returned waiter is still reported queued");
        assertTrue(lock.tryLock(), "seed " + seed + ": the lock is free once every waiter returned");
        lock.unlock();
        assertEquals(0, inspect.activeKeys(), "seed " + seed + ": the key stays pinned");
    }
}
