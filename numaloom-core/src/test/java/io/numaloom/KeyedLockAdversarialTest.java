package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile programs against {@link KeyedLock} (issue 43's review): a holder that locks a second key
 * while a waiter inflates its first, interrupted virtual threads waiting for a bucket guard,
 * keys whose hashes all collide, an allocation that fails inside a resize, and a key whose
 * {@code equals} throws while an await releases it. Each test failed on the code before its fix;
 * none has a timing verdict: the work is bounded in count, and a hang is caught by the timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KeyedLockAdversarialTest {

    /**
     * The holder of a thin hold of A locks key after key while a second thread's {@code lock(A)}
     * inflates A's hold: the record of A must be bound to A, so that a third thread's
     * {@code tryLock(A)} fails while A is held and the holder's {@code unlock(A)} finds it. Before
     * the fix the inflater read the hold's hash after it had freed the holder's node, and the holder's
     * next thin hold had overwritten it: A's record was bound under another key's hash (the review
     * saw it in 6 of 6 runs of this shape, in up to 3,681 of 20,000 rounds).
     */
    @Test
    void aHolderThatLocksOtherKeysKeepsTheKeyAWaiterInflates() throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        int rounds = 10_000;
        CyclicBarrier start = new CyclicBarrier(2), end = new CyclicBarrier(2);
        AtomicReference<String> key = new AtomicReference<>();
        AtomicBoolean contending = new AtomicBoolean();
        AtomicInteger violations = new AtomicInteger();
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService checker = Executors.newSingleThreadExecutor();
        try {
            Thread holder = Thread.ofPlatform().daemon().name("holder").start(() -> {
                try {
                    long next = 0;
                    for (int r = 0; r < rounds; r++) {
                        String a = "a" + r; // a key nobody locked before: held thin
                        key.set(a);
                        locks.lock(a);
                        start.await();
                        while (!contending.get()) {
                            Thread.onSpinWait();
                        }
                        // Lock other keys, each new (so each is held thin once the node is free),
                        // until the waiter's inflation has bound a record of a.
                        for (int i = 0; i < 5_000 && (i < 16 || locks.boundRecord(a) == null); i++) {
                            String b = "b" + next++;
                            locks.lock(b);
                            locks.unlock(b);
                        }
                        Future<Boolean> other = checker.submit(() -> {
                            boolean got = locks.tryLock(a);
                            if (got) {
                                locks.unlock(a);
                            }
                            return got;
                        });
                        if (other.get()) {
                            violations.incrementAndGet();
                            seen.add(a + ": another thread got the key while it was held");
                        }
                        try {
                            locks.unlock(a);
                        } catch (IllegalMonitorStateException e) {
                            violations.incrementAndGet();
                            seen.add(a + ": " + e.getMessage());
                            return; // the key is lost for good: the waiter would wait forever
                        }
                        end.await();
                    }
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            Thread waiter = Thread.ofPlatform().daemon().name("waiter").start(() -> {
                try {
                    for (int r = 0; r < rounds; r++) {
                        start.await();
                        String a = key.get();
                        contending.set(true);
                        locks.lock(a);
                        contending.set(false);
                        locks.unlock(a);
                        end.await();
                    }
                } catch (Exception e) {
                    // the holder gave up: the barrier broke or the test ends
                }
            });
            holder.join();
            if (violations.get() > 0) {
                waiter.interrupt();
                start.reset();
                end.reset();
            }
            waiter.join(5_000);
        } finally {
            checker.shutdownNow();
        }
        assertEquals(0, violations.get(), () -> "exclusion lost: " + seen.subList(0, Math.min(5, seen.size())));
    }

    /**
     * Virtual threads with their interrupt status set wait for bucket guards in {@code lock(key)}
     * and {@code tryLock(key)}, which ignore interrupts, beside resizes (20,000 keys through a
     * budget of 1,024) and a {@code releaseIdleKeys()} loop: all must finish. Before the fix the guard's
     * wait was a {@code parkNanos} that returns at once while the status is set, so an interrupted
     * thread spun on the guard without unmounting, and once interrupted threads spun on both carriers
     * a resize that had yielded while holding guards never ran again (this test hung on that code).
     * {@code KeyedLockParallelismOneTest} has the deterministic case on one carrier.
     */
    @Test
    void interruptedVirtualThreadsBesideResizesAllFinish() throws Exception {
        // Records at every first lock, so that binds, deflations and resizes are constant.
        KeyedLock<Integer> locks = KeyedLock.builder().idleKeys(1024).bindOnFirstLock(true).build();
        int threads = 8, ops = 20_000, keys = 20_000;
        AtomicLong done = new AtomicLong();
        AtomicInteger interruptSeen = new AtomicInteger(), lostInterrupt = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        Thread sweeper = Thread.ofVirtual().start(() -> { // virtual too: its shrinks park for guards
            while (!stop.get()) {
                locks.releaseIdleKeys();
                Thread.yield();
            }
        });
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            workers.add(Thread.ofVirtual().start(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int i = 0; i < ops; i++) {
                    if (rnd.nextBoolean()) {
                        Thread.currentThread().interrupt();
                    }
                    boolean wasInterrupted = Thread.currentThread().isInterrupted();
                    Integer k = rnd.nextInt(keys);
                    if (rnd.nextBoolean()) {
                        locks.lock(k);
                        locks.unlock(k);
                    } else if (locks.tryLock(k)) {
                        locks.unlock(k);
                    }
                    if (wasInterrupted) {
                        if (Thread.interrupted()) {
                            interruptSeen.incrementAndGet();
                        } else {
                            lostInterrupt.incrementAndGet();
                        }
                    }
                    done.incrementAndGet();
                }
            }));
        }
        // A hang is the failure: the workers' total is bounded (under a second here on 2 cores).
        for (Thread w : workers) {
            assertTrue(w.join(java.time.Duration.ofSeconds(90)), () -> "hung after " + done.get() + " operations");
        }
        stop.set(true);
        sweeper.join();
        assertEquals((long) threads * ops, done.get());
        assertEquals(0, lostInterrupt.get(), "lock(key)/tryLock(key) cleared an interrupt status");
        assertTrue(interruptSeen.get() > 0);
        assertEquals(0, locks.activeKeys());
    }

    /**
     * Keys whose hashes all collide (a poor {@code hashCode}, or hash flooding) keep the table within
     * a constant factor of the keys in use and the idle budget. Before the fix each bind that found a
     * chain of 8 records doubled the table, and equal hashes never spread: 27 keys took it to 2^24
     * buckets (194 MB), and under a 128 MB heap {@code lock} threw {@code OutOfMemoryError}.
     */
    @Test
    void collidingHashesKeepTheTableBoundedByTheKeysInUse() throws Exception {
        KeyedLock<KeyedLockTest.Key> locks = new KeyedLock<>();
        int n = 3_000;
        // One at a time, each key twice (so that it recurs and gets a record): the idle records
        // of the one chain are trimmed, the table stays small.
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < n; i++) {
                KeyedLockTest.Key k = new KeyedLockTest.Key(i, 7);
                locks.lock(k);
                locks.unlock(k);
            }
        }
        assertTrue(locks.buckets() <= 256, "table grew to " + locks.buckets() + " buckets over keys of one hash");
        assertTrue(locks.boundKeys() <= 2 * KeyedLock.GROW_CHAIN,
                locks.boundKeys() + " idle records of one hash kept in one chain");
        // All held at once: the records are the keys in use; the table is within 16 of them per record.
        for (int i = 0; i < n; i++) {
            locks.lock(new KeyedLockTest.Key(i, 7));
        }
        assertEquals(n, locks.activeKeys());
        assertTrue(locks.buckets() <= 16L * n, locks.buckets() + " buckets for " + n + " held keys");
        Thread other = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < n; i += 97) {
                assertFalse(locks.tryLock(new KeyedLockTest.Key(i, 7)), "key " + i + " was free while held");
            }
        });
        other.join();
        for (int i = 0; i < n; i++) {
            locks.unlock(new KeyedLockTest.Key(i, 7));
        }
        assertEquals(0, locks.activeKeys());
        locks.releaseIdleKeys();
        assertEquals(0, locks.boundKeys());
        assertEquals(KeyedLock.MIN_BUCKETS, locks.buckets());
    }

    /**
     * An allocation that fails inside a resize (the seam {@link KeyedLock#tableFactory}) reaches
     * the caller of the {@code lock} that started it, and leaves the lock usable: every guard
     * released, the keys held before still held and exclusive, the table at its old size until a
     * later resize succeeds. Before the fix the resize left every guard of the old table taken, and
     * every later {@code lock} and {@code activeKeys()} blocked forever.
     */
    @Test
    void anAllocationThatFailsInAResizeLeavesTheLockUsable() throws Exception {
        // No background sweep: only this thread resizes while the seam fails.
        KeyedLock<Integer> locks = KeyedLock.builder().bindOnFirstLock(true).releaseIdleKeysInBackground(false).build();
        AtomicInteger failures = new AtomicInteger();
        KeyedLock.tableFactory = buckets -> {
            failures.incrementAndGet();
            throw new OutOfMemoryError("injected: a table of " + buckets + " buckets");
        };
        List<Integer> held = new ArrayList<>();
        OutOfMemoryError thrown = null;
        try {
            for (int i = 0; i < 10_000 && thrown == null; i++) {
                try {
                    locks.lock(i);
                    held.add(i);
                } catch (OutOfMemoryError e) {
                    thrown = e;
                    assertFalse(locks.isHeldByCurrentThread(i), "a lock that threw left its key held");
                }
            }
        } finally {
            KeyedLock.tableFactory = null;
        }
        assertTrue(thrown != null && failures.get() == 1, "no resize was attempted: " + failures.get());
        int before = locks.buckets();
        assertEquals(held.size(), locks.activeKeys(), "activeKeys after the failed resize");
        for (int k : held) {
            assertTrue(locks.isHeldByCurrentThread(k), "lost key " + k);
        }
        Thread other = Thread.ofPlatform().start(() -> {
            for (int k : held) {
                assertFalse(locks.tryLock(k), "key " + k + " was free while held");
            }
            assertTrue(locks.tryLock(-1));
            locks.unlock(-1);
        });
        other.join();
        for (int i = 10_000; i < 30_000; i++) { // grows now
            locks.lock(i);
            held.add(i);
        }
        assertTrue(locks.buckets() > before, "the table no longer grows: " + locks.buckets());
        for (int k : held) {
            locks.unlock(k);
        }
        assertEquals(0, locks.activeKeys());
        locks.releaseIdleKeys();
        assertEquals(0, locks.boundKeys());
        assertEquals(KeyedLock.MIN_BUCKETS, locks.buckets());
    }

    /**
     * A key whose {@code equals} throws, once armed, when a condition's await releases its lock
     * (a {@code releaseFully} frame on the stack), and nowhere else: the owner check before it passes.
     */
    static final class ArmedKey {
        final int id;
        volatile boolean armed;

        ArmedKey(int id) {
            this.id = id;
        }

        @Override public int hashCode() { return id; }

        @Override public boolean equals(Object o) {
            if (armed && StackWalker.getInstance().walk(s -> s.anyMatch(f -> f.getMethodName().equals("releaseFully")))) {
                throw new IllegalStateException("equals failed");
            }
            return o instanceof ArmedKey k && k.id == id;
        }
    }

    /**
     * A key whose {@code equals} throws while an {@code await} releases it: the exception reaches the
     * caller with the key held, and the waiter is no longer on the condition, so the next
     * {@code signal()} reaches a live waiter. Before the fix the dead waiter stayed queued
     * ({@code getWaitQueueLength} 1) and swallowed the signal: the live waiter's timed await
     * returned false.
     */
    @Test
    void anAwaitWhoseReleaseThrowsLeavesNoWaiterBehind() throws Exception {
        KeyedLock<ArmedKey> locks = new KeyedLock<>();
        ArmedKey key = new ArmedKey(5), copy = new ArmedKey(5);
        KeyedLock<ArmedKey>.KeyLock lock = locks.forKey(copy); // the view's key is an equal copy
        Condition cond = lock.newCondition();
        locks.lock(key);
        locks.lock(key); // re-entered: the key has a record, bound to the original
        copy.armed = true; // the release looks the record up with the copy's equals
        assertThrows(IllegalStateException.class, cond::await);
        copy.armed = false;
        assertTrue(lock.isHeldByCurrentThread());
        assertEquals(2, lock.getHoldCount());
        assertEquals(0, lock.getWaitQueueLength(cond), "the failed await left its waiter queued");
        assertFalse(lock.hasWaiters(cond));
        AtomicReference<Boolean> signalled = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            try {
                signalled.set(cond.await(60, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                signalled.set(null);
            } finally {
                lock.unlock();
            }
        });
        lock.unlock();
        lock.unlock();
        for (;;) { // until the waiter awaits
            lock.lock();
            try {
                if (lock.hasWaiters(cond)) {
                    cond.signal();
                    break;
                }
            } finally {
                lock.unlock();
            }
            Thread.sleep(1);
        }
        waiter.join();
        assertEquals(Boolean.TRUE, signalled.get(), "the live waiter missed the signal");
        assertNull(KeyedLock.tableFactory);
        assertEquals(0, locks.activeKeys());
    }

    /**
     * A key whose {@code equals} throws, once armed, while a method of the given name is on the stack.
     * Copies share the arming, so an equal copy can be looked up against the record of the original.
     */
    static final class TrapKey {
        final int id;
        final String method;
        final AtomicBoolean armed;

        TrapKey(int id, String method, AtomicBoolean armed) {
            this.id = id;
            this.method = method;
            this.armed = armed;
        }

        @Override public int hashCode() { return id; }

        @Override public boolean equals(Object o) {
            if (armed.get() && StackWalker.getInstance().walk(s -> s.anyMatch(f -> f.getMethodName().equals(method)))) {
                throw new IllegalStateException("equals failed");
            }
            return o instanceof TrapKey k && k.id == id;
        }
    }

    /**
     * A key's lock seen through two equal keys: the record is bound to {@code original} (bound on first
     * lock, which only goes through it), and the condition belongs to the view of {@code copy}, so the
     * condition's hand-overs look the record up with the copy's {@code equals}.
     */
    private record Trap(TrapKey original, KeyedLock<TrapKey>.KeyLock lock, KeyedLock<TrapKey>.KeyLock view,
                        Condition cond, AtomicInteger waiting) {
        static Trap of(String method) {
            AtomicBoolean armed = new AtomicBoolean();
            KeyedLock<TrapKey> locks = KeyedLock.builder().bindOnFirstLock(true).build();
            TrapKey original = new TrapKey(11, method, armed);
            KeyedLock<TrapKey>.KeyLock view = locks.forKey(new TrapKey(11, method, armed));
            return new Trap(original, locks.forKey(original), view, view.newCondition(), new AtomicInteger());
        }

        void arm(boolean on) {
            original.armed.set(on);
        }

        /** Starts a thread that awaits the condition once, records how it ended, and unlocks. */
        Thread awaitOnce(AtomicReference<Object> ended) {
            return Thread.ofPlatform().start(() -> {
                lock.lock();
                try {
                    waiting.incrementAndGet();
                    cond.awaitUninterruptibly();
                    ended.set("returned");
                } catch (RuntimeException e) {
                    ended.set(e);
                } finally {
                    lock.unlock();
                }
            });
        }

        /** Waits until {@code n} threads have entered their await and released the key. */
        void untilWaiting(int n) {
            while (waiting.get() < n) {
                Thread.onSpinWait();
            }
            lock.lock(); // each waiter holds the key until its await has released it
            lock.unlock();
        }
    }

    /**
     * A signal hands its waiter to the key's lock through the record the waiter's wait pinned, not by
     * looking the key up: a key whose {@code equals} throws by then (here, armed while the hand-over runs)
     * fails neither the signal nor the waiter, which returns holding the key.
     */
    @Test
    void aSignalsHandOverDoesNotRunTheKeysEquals() throws Exception {
        Trap trap = Trap.of("queueSignalled");
        AtomicReference<Object> ended = new AtomicReference<>();
        Thread waiter = trap.awaitOnce(ended);
        trap.untilWaiting(1);
        trap.lock().lock();
        try {
            trap.arm(true);
            trap.cond().signal();
            trap.arm(false);
            assertFalse(trap.view().hasWaiters(trap.cond()), "the signal took the waiter off the condition");
        } finally {
            trap.lock().unlock();
        }
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(waiter.isAlive(), "the signalled waiter was never released");
        assertEquals("returned", ended.get());
    }

    /**
     * The waiter in transit passes the turn to the next signalled waiter ({@link VnaConditionWakes}) without
     * looking the key up: a key whose {@code equals} throws meanwhile reaches neither of them, and both return
     * holding the key in turn.
     */
    @Test
    void aTurnsHandOverDoesNotRunTheKeysEquals() throws Exception {
        Trap trap = Trap.of("reacquired");
        AtomicReference<Object> firstEnded = new AtomicReference<>();
        AtomicReference<Object> secondEnded = new AtomicReference<>();
        Thread first = trap.awaitOnce(firstEnded);
        trap.untilWaiting(1);
        Thread second = trap.awaitOnce(secondEnded);
        trap.untilWaiting(2);
        trap.lock().lock();
        try {
            trap.cond().signalAll(); // the first in transit, the second waits its turn
            trap.arm(true); // armed while the first's re-acquisition hands the turn on
        } finally {
            trap.lock().unlock();
        }
        first.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(first.isAlive(), "the waiter in transit never returned");
        second.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(second.isAlive(), "the second signalled waiter was stranded by the hand-over");
        trap.arm(false);
        assertEquals("returned", firstEnded.get());
        assertEquals("returned", secondEnded.get());
        assertFalse(trap.lock().isLocked());
    }
}
