package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openjdk.jol.info.GraphLayout;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link KeyedLock}: exclusion by {@code equals}, per-key {@code ReentrantLock} semantics, records
 * that exist only while a key is in use, a table that grows and shrinks back, and no allocation in
 * steady state. Timing never decides a verdict: waits are for states, with generous timeouts.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeyedLockTest {

    /** A key whose equal copies are distinct objects, and whose hash collides on purpose. */
    record Key(int id, int hash) {
        @Override public int hashCode() { return hash; }
        @Override public boolean equals(Object o) { return o instanceof Key k && k.id == id; }
    }

    @Test
    void equalKeysExcludeAndOtherKeysDoNot() throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        locks.lock("a");
        String[] copy = {new String("a")};
        boolean[] got = new boolean[3];
        Thread t = Thread.ofPlatform().start(() -> {
            got[0] = locks.tryLock(copy[0]);
            got[1] = locks.tryLock("b");
            got[2] = locks.isLocked("a") && !locks.isHeldByCurrentThread("a");
            locks.unlock("b");
        });
        t.join();
        assertFalse(got[0], "an equal key was locked by a second thread");
        assertTrue(got[1], "another key was not free");
        assertTrue(got[2], "isLocked/isHeldByCurrentThread from another thread");
        locks.unlock("a");
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void collidingKeysAreStillDistinctLocks() throws Exception {
        KeyedLock<Key> locks = new KeyedLock<>();
        for (int i = 0; i < 20; i++) {
            locks.lock(new Key(i, 7)); // one chain, long enough to grow the table
        }
        assertEquals(20, locks.activeKeys());
        Thread t = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 20; i++) {
                if (locks.tryLock(new Key(i, 7))) {
                    throw new AssertionError("key " + i + " was free while held");
                }
            }
            assertTrue(locks.tryLock(new Key(20, 7)));
            locks.unlock(new Key(20, 7));
        });
        t.join();
        for (int i = 0; i < 20; i++) {
            locks.unlock(new Key(i, 7));
        }
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void reentrantPerKeyWithHoldCounts() {
        KeyedLock<String> locks = new KeyedLock<>();
        locks.lock("k");
        assertTrue(locks.tryLock("k"));
        locks.runWithLock("k", () -> assertEquals(3, locks.getHoldCount("k")));
        assertEquals(2, locks.getHoldCount("k"));
        assertEquals(0, locks.getHoldCount("other"));
        locks.unlock("k");
        assertTrue(locks.isHeldByCurrentThread("k"));
        locks.unlock("k");
        assertFalse(locks.isLocked("k"));
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void misuseGivesClearErrors() throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, () -> locks.unlock("nobody"));
        assertTrue(e.getMessage().contains("key nobody"), e.getMessage());
        assertThrows(NullPointerException.class, () -> locks.lock(null));
        assertThrows(NullPointerException.class, () -> locks.withLock("k", null));
        locks.lock("held");
        AtomicReference<Throwable> other = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                locks.unlock("held");
            } catch (Throwable x) {
                other.set(x);
            }
        });
        t.join();
        assertTrue(other.get() instanceof IllegalMonitorStateException, String.valueOf(other.get()));
        locks.unlock("held");
        assertEquals(0, locks.activeKeys(), "a failed call left a record behind");
    }

    /**
     * A virtual thread has no name unless given one: the message of a wrong unlock names it by its id (it printed
     * an empty name), and the key's {@code toString} an unnamed owner the same way.
     */
    @Test
    void anUnlockFromAnUnnamedVirtualThreadNamesItById() throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        locks.lock("held");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofVirtual().unstarted(() -> {
            try {
                locks.unlock("held");
            } catch (Throwable x) {
                thrown.set(x);
            }
        });
        t.start();
        t.join();
        assertTrue(thrown.get() instanceof IllegalMonitorStateException, String.valueOf(thrown.get()));
        String message = thrown.get().getMessage();
        assertTrue(message.contains("cannot unlock key held of "), message);
        assertTrue(message.endsWith(": the current thread #" + t.threadId() + " (virtual) does not hold it"), message);
        assertFalse(message.contains("  "), message);
        locks.unlock("held");

        Thread owner = Thread.ofVirtual().unstarted(() -> {
            locks.lock("k");
            try {
                thrown.set(new AssertionError(locks.forKey("k").toString()));
            } finally {
                locks.unlock("k");
            }
        });
        owner.start();
        owner.join();
        assertTrue(thrown.get().getMessage().endsWith("[key k, Locked by thread #" + owner.threadId() + " (virtual)]"),
                thrown.get().getMessage());
        assertEquals(0, locks.activeKeys());
    }

    /**
     * A key whose {@code equals} answers {@code answersBeforeThrowing} times and then throws: a
     * stand-in for an {@code equals} that fails now and then (a lazily loaded field, a broken
     * proxy). Its hash collides with every other such key.
     */
    static final class FlakyKey {
        final int id;
        final java.util.concurrent.atomic.AtomicInteger answersLeft;

        FlakyKey(int id, int answersBeforeThrowing) {
            this.id = id;
            this.answersLeft = new java.util.concurrent.atomic.AtomicInteger(answersBeforeThrowing);
        }

        @Override public int hashCode() { return 42; }

        @Override public boolean equals(Object o) {
            if (answersLeft.getAndDecrement() <= 0) {
                throw new IllegalStateException("equals failed");
            }
            return o instanceof FlakyKey k && k.id == id;
        }
    }

    @Test
    void aKeyWhoseEqualsThrowsReachesTheCallerAndLeavesNothingBehind() throws Exception {
        KeyedLock<FlakyKey> locks = KeyedLock.builder().bindOnFirstLock(true).build(); // the held key has a record
        FlakyKey held = new FlakyKey(1, Integer.MAX_VALUE);
        locks.lock(held);
        for (int i = 0; i < 1_000; i++) {
            // The lock-free lookup finds the record of an equal key, pins it, and re-checks the binding
            // with equals, which throws this time: the pin must be dropped on the way out.
            FlakyKey lookup = new FlakyKey(1, 1);
            switch (i % 3) {
                case 0 -> assertThrows(IllegalStateException.class, () -> locks.tryLock(lookup));
                case 1 -> assertThrows(IllegalStateException.class, () -> locks.lock(lookup));
                default -> assertThrows(IllegalStateException.class, () -> locks.tryLock(lookup, 1, TimeUnit.SECONDS));
            }
        }
        assertTrue(locks.isHeldByCurrentThread(held), "the holder lost its lock");
        assertEquals(1, locks.activeKeys());
        locks.unlock(held);
        assertFalse(locks.isLocked(held));
        assertEquals(0, locks.activeKeys(), "a lookup whose equals threw kept a record bound");
        boolean[] got = new boolean[1];
        Thread t = Thread.ofPlatform().start(() -> {
            got[0] = locks.tryLock(new FlakyKey(1, Integer.MAX_VALUE));
            locks.unlock(new FlakyKey(1, Integer.MAX_VALUE));
        });
        t.join();
        assertTrue(got[0], "the key is no longer free for another thread");
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void lockAllLocksEachDistinctKeyOnceAndUnlockAllReleasesThem() throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        locks.lock("a");
        locks.lockAll(List.of("a", "b", new String("b"), "c"));
        assertEquals(2, locks.getHoldCount("a"), "a key already held is re-entered");
        assertEquals(1, locks.getHoldCount("b"), "equal keys are locked once");
        assertEquals(1, locks.getHoldCount("c"));
        boolean[] free = new boolean[1];
        Thread t = Thread.ofPlatform().start(() -> free[0] = locks.tryLock("b"));
        t.join();
        assertFalse(free[0], "a key of lockAll was free for another thread");
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class,
                () -> locks.unlockAll(List.of("b", "nobody")));
        assertTrue(e.getMessage().contains("key nobody"), e.getMessage());
        assertEquals(1, locks.getHoldCount("b"), "a failed unlockAll released a key");
        locks.unlockAll(List.of(new String("c"), "b", "a", "b"));
        assertEquals(1, locks.getHoldCount("a"));
        assertFalse(locks.isLocked("b"));
        assertFalse(locks.isLocked("c"));
        locks.unlock("a");
        assertEquals(0, locks.activeKeys());
        locks.lockAll(List.of());
        locks.unlockAll(List.of());
        assertThrows(NullPointerException.class, () -> locks.lockAll(java.util.Arrays.asList("x", null)));
        assertEquals(0, locks.activeKeys(), "a failed lockAll left a key in use");
        assertFalse(locks.isLocked("x"));
    }

    @Test
    void lockAllWhoseKeyEqualsThrowsLocksNothing() {
        KeyedLock<FlakyKey> locks = new KeyedLock<>();
        FlakyKey held = new FlakyKey(1, Integer.MAX_VALUE);
        locks.lock(held);
        locks.unlock(held); // bound, idle: the next lookup of an equal key calls equals
        FlakyKey other = new FlakyKey(2, Integer.MAX_VALUE);
        assertThrows(IllegalStateException.class, () -> locks.lockAll(List.of(other, new FlakyKey(1, 0))));
        assertFalse(locks.isLocked(other));
        assertEquals(0, locks.activeKeys(), "a failed lockAll left a key pinned or locked");
    }

    /**
     * Threads that lock overlapping sets of keys in opposite orders, with colliding hashes, fresh equal key
     * objects and a thread that releases idle keys all the while (so records are deflated and rebound between
     * calls): nobody deadlocks and no update is lost. A deadlock shows as the 60 s timeout.
     */
    @Test
    void lockAllInOppositeOrdersNeverDeadlocks() throws Exception {
        KeyedLock<Key> locks = KeyedLock.builder().idleKeys(1).build();
        int keys = 6;
        long[] counters = new long[keys];
        int threads = 6;
        int rounds = 3_000;
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong expected = new java.util.concurrent.atomic.AtomicLong();
        Thread deflater = Thread.ofPlatform().start(() -> {
            while (!done.get()) {
                locks.releaseIdleKeys();
                Thread.yield();
            }
        });
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            Thread.Builder b = t % 2 == 0 ? Thread.ofVirtual() : Thread.ofPlatform();
            all.add(b.start(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int i = 0; i < rounds; i++) {
                    int a = rnd.nextInt(keys);
                    int c = rnd.nextInt(keys);
                    List<Key> set = me % 2 == 0 ? List.of(new Key(a, a % 2), new Key(c, c % 2))
                            : List.of(new Key(c, c % 2), new Key(a, a % 2));
                    expected.addAndGet(a == c ? 1 : 2);
                    if (me % 3 == 1) { // the timed, all-or-nothing form, retried
                        try {
                            while (!locks.tryLockAll(set, 1, TimeUnit.MILLISECONDS)) {
                                Thread.onSpinWait();
                            }
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    } else {
                        locks.lockAll(set);
                    }
                    try {
                        counters[a]++;
                        if (c != a) {
                            counters[c]++;
                        }
                        if (rnd.nextInt(8) == 0) {
                            Thread.yield();
                        }
                    } finally {
                        locks.unlockAll(set);
                    }
                }
            }));
        }
        for (Thread t : all) {
            t.join();
        }
        done.set(true);
        deflater.join();
        long total = 0;
        for (long c : counters) {
            total += c;
        }
        assertEquals(expected.get(), total, "lost updates");
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void tryLockAllLocksEveryKeyOrNone() throws Exception {
        KeyedLock<String> locks = KeyedLock.builder().releaseIdleKeysInBackground(false).build();
        locks.lock("a"); // held by this thread: re-entered by a success, and left as it was by a failure
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        Thread other = Thread.ofPlatform().start(() -> {
            locks.lock("c");
            holding.countDown();
            try {
                letGo.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                locks.unlock("c");
            }
        });
        holding.await();
        assertFalse(locks.tryLockAll(List.of("a", "b", "c")));
        assertFalse(locks.tryLockAll(List.of("c", "b", "a"), 10, TimeUnit.MILLISECONDS));
        assertFalse(locks.tryLockAll(List.of("b", "c", "a"), -1, TimeUnit.SECONDS), "no time: one try per key");
        assertEquals(1, locks.getHoldCount("a"), "a failed tryLockAll changed a hold");
        assertFalse(locks.isLocked("b"), "a failed tryLockAll left a key locked");
        assertEquals(2, locks.activeKeys(), "a failed tryLockAll left a key pinned: only a and c are in use");
        letGo.countDown();
        other.join();
        assertTrue(locks.tryLockAll(List.of("c", "a", "b", new String("b"))));
        assertEquals(2, locks.getHoldCount("a"));
        assertEquals(1, locks.getHoldCount("b"), "equal keys are locked once");
        assertEquals(1, locks.getHoldCount("c"));
        locks.unlockAll(List.of("a", "b", "c"));
        locks.unlock("a");
        assertTrue(locks.tryLockAll(List.of("d", "e"), 0, TimeUnit.NANOSECONDS));
        locks.unlockAll(List.of("e", "d"));
        assertTrue(locks.tryLockAll(List.of()));
        assertThrows(NullPointerException.class, () -> locks.tryLockAll(java.util.Arrays.asList("x", null)));
        assertThrows(NullPointerException.class, () -> locks.tryLockAll(List.of("x"), 1, null));
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void tryLockAllWithATimeWaitsForTheHolder() throws Exception {
        KeyedLock<String> locks = KeyedLock.builder().releaseIdleKeysInBackground(false).build();
        locks.lock("y");
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                boolean all = locks.tryLockAll(List.of("x", "y", "z"), 60, TimeUnit.SECONDS);
                outcome.set(all && locks.getHoldCount("x") == 1 && locks.getHoldCount("y") == 1
                        && locks.getHoldCount("z") == 1);
                locks.unlockAll(List.of("x", "y", "z"));
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        LockEventsTest.awaitParked(waiter);
        locks.unlock("y");
        waiter.join();
        assertEquals(Boolean.TRUE, outcome.get());
        assertEquals(0, locks.activeKeys());
    }

    /**
     * A thread that holds one key of its set and waits for another is interrupted: it throws, and
     * gives back the key it held. Idle keys stay bound (no background release), so the order of
     * the records, and so which key the waiter holds while it waits, is known.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "timed: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void anInterruptedLockAllGivesBackWhatItHeld(boolean timed) throws Exception {
        KeyedLock<String> locks = KeyedLock.builder().bindOnFirstLock(true).releaseIdleKeysInBackground(false).build();
        locks.lock("q1");
        locks.unlock("q1"); // bound first: its record comes first in the order of lockAll
        locks.lock("q2");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                if (timed) {
                    locks.tryLockAll(List.of("q2", "q1"), 60, TimeUnit.SECONDS);
                } else {
                    locks.lockAllInterruptibly(List.of("q2", "q1"));
                }
                thrown.set(new AssertionError("locked both while the other thread held q2"));
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        LockEventsTest.awaitParked(waiter);
        assertTrue(locks.isLocked("q1"), "the waiter holds q1 while it waits for q2");
        waiter.interrupt();
        waiter.join();
        assertTrue(thrown.get() instanceof InterruptedException, String.valueOf(thrown.get()));
        assertFalse(locks.isLocked("q1"), "an interrupted lockAll kept a key");
        assertEquals(1, locks.activeKeys(), "only q2, held by this thread, is in use");
        locks.unlock("q2");
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> locks.lockAllInterruptibly(List.of("z")));
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> locks.tryLockAll(List.of("z"), 1, TimeUnit.SECONDS));
        assertFalse(locks.isLocked("z"));
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void aFailingActionReleasesTheKey() {
        KeyedLock<String> locks = new KeyedLock<>();
        assertThrows(IllegalStateException.class, () -> locks.withLock("k", () -> {
            throw new IllegalStateException("boom");
        }));
        assertFalse(locks.isLocked("k"));
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void timedAndInterruptibleWaitsLeaveNothingBehind() throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        locks.lock("k");
        boolean[] timedOut = new boolean[1];
        Thread timed = Thread.ofVirtual().start(() -> {
            try {
                timedOut[0] = !locks.tryLock("k", 20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        timed.join();
        assertTrue(timedOut[0]);
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            started.countDown();
            try {
                locks.lockInterruptibly("k");
                outcome.set(new AssertionError("acquired"));
            } catch (Throwable x) {
                outcome.set(x);
            }
        });
        started.await();
        VnaLockTest.awaitCondition(() -> locks.getQueueLength("k") == 1, "a waiter on k");
        waiter.interrupt();
        waiter.join();
        assertTrue(outcome.get() instanceof InterruptedException, String.valueOf(outcome.get()));
        assertEquals(1, locks.activeKeys());
        locks.unlock("k");
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void aWaiterGetsTheKeyWhenItIsReleased() throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        locks.lock("k");
        int[] seen = new int[1];
        Thread waiter = Thread.ofVirtual().start(() -> locks.runWithLock("k", () -> seen[0]++));
        VnaLockTest.awaitCondition(() -> locks.getQueueLength("k") == 1, "a waiter on k");
        assertEquals(0, seen[0]);
        locks.unlock("k");
        waiter.join();
        assertEquals(1, seen[0]);
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void conditionsOfAKeyWorkThroughSeparateViews() throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        KeyedLock<String>.KeyLock view = locks.forKey("q");
        Condition ready = view.newCondition();
        boolean[] flag = new boolean[1];
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            view.lock();
            try {
                waiting.countDown();
                while (!flag[0]) {
                    ready.awaitUninterruptibly();
                }
            } finally {
                view.unlock();
            }
        });
        waiting.await();
        KeyedLock<String>.KeyLock other = locks.forKey(new String("q"));
        VnaLockTest.awaitCondition(() -> {
            other.lock();
            try {
                return other.hasWaiters(ready);
            } finally {
                other.unlock();
            }
        }, "the waiter awaiting");
        assertEquals(1, locks.activeKeys(), "the awaiting thread keeps the key's record bound");
        other.lock();
        try {
            flag[0] = true;
            ready.signal();
        } finally {
            other.unlock();
        }
        waiter.join();
        assertEquals(0, locks.activeKeys());
        assertThrows(IllegalMonitorStateException.class, ready::signal);
        assertThrows(IllegalArgumentException.class, () -> locks.forKey("other").hasWaiters(ready));
        assertEquals(view, other);
    }

    /**
     * {@link KeyedLock#releaseIdleKeys()} returns with the table fitted to the keys left, also when another thread
     * is resizing at that moment (here a resize held open by setting the resizing flag): it waits for that resize
     * and shrinks after it. It used to return with the table as big as before, which made
     * {@code anIdleLockKeepsItsBudgetAfterManyKeysAndThenNothing} fail when the background deflater was resizing.
     */
    @Test
    void releaseIdleKeysShrinksTheTableAlsoWhileAnotherThreadResizes() throws Exception {
        KeyedLock<Integer> locks = KeyedLock.builder().releaseIdleKeysInBackground(false).idleKeys(20_000).bindOnFirstLock(true).build();
        for (int i = 0; i < 10_000; i++) {
            locks.lock(i);
            locks.unlock(i);
        }
        assertTrue(locks.buckets() > KeyedLock.MIN_BUCKETS, locks.buckets() + " buckets");
        java.lang.reflect.Field resizing = KeyedLock.class.getDeclaredField("resizing");
        resizing.setAccessible(true);
        resizing.setInt(locks, 1); // another thread resizes
        int[] released = {-1};
        Thread releaser = Thread.ofPlatform().start(() -> released[0] = locks.releaseIdleKeys());
        releaser.join(20);
        resizing.setInt(locks, 0); // that resize is done
        releaser.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(releaser.isAlive(), "releaseIdleKeys returned");
        assertEquals(10_000, released[0]);
        assertEquals(0, locks.boundKeys());
        assertEquals(KeyedLock.MIN_BUCKETS, locks.buckets(), "the table after releaseIdleKeys");
    }

    /**
     * A burst of distinct keys, each locked once: the lock keeps at most its budget of idle keys bound
     * ({@link KeyedLock#DEFAULT_IDLE_KEYS}), whose retained size (records, table and keys: JOL's graph of the
     * lock) stays under 256 KiB; then the background deflater releases every idle key within about
     * {@link KeyedLock#IDLE_SWEEP_MILLIS} (the test waits up to 30 s), and the lock is back to its size when new.
     * With the defaults, keys locked once bind nothing at all (the admission filter); with
     * {@code bindOnFirstLock(true)} they fill the budget, the worst case of what the lock retains.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anIdleLockKeepsItsBudgetAfterManyKeysAndThenNothing(boolean bindOnFirstLock) throws InterruptedException {
        KeyedLock<Integer> locks = KeyedLock.builder().bindOnFirstLock(bindOnFirstLock).build();
        long idle = GraphLayout.parseInstance(locks).totalSize();
        for (int i = 0; i < 1_000_000; i++) {
            locks.lock(i);
            locks.unlock(i);
        }
        assertEquals(0, locks.activeKeys());
        int kept = locks.boundKeys();
        assertTrue(kept <= KeyedLock.DEFAULT_IDLE_KEYS + 1, kept + " idle keys bound");
        if (bindOnFirstLock) {
            assertTrue(kept >= KeyedLock.DEFAULT_IDLE_KEYS / 2, kept + " idle keys bound: the budget is not used");
        }
        long budget = GraphLayout.parseInstance(locks).totalSize();
        VnaLockTest.awaitCondition(() -> locks.boundKeys() == 0, "the deflater to release the idle keys");
        assertEquals(0, locks.releaseIdleKeys(), "the deflater left idle keys behind");
        assertEquals(KeyedLock.MIN_BUCKETS, locks.buckets());
        long after = GraphLayout.parseInstance(locks).totalSize();
        System.out.println("KeyedLock" + (bindOnFirstLock ? " (bindOnFirstLock)" : "") + " retained size: new " + idle
                + " B, after 1,000,000 distinct keys " + budget
                + " B (" + kept + " idle keys kept), after the idle sweep " + after + " B");
        assertTrue(budget <= 256 * 1024, "retained " + budget + " B after a million distinct keys");
        assertEquals(idle, after, "retained size once the idle keys are released");
    }

    /** The admission filter: a key gets a record at its second lock by a thread, not its first. */
    @Test
    void aKeyLockedOnceIsHeldThinAndARecurringKeyGetsARecord() throws Exception {
        inANewThread(KeyedLockTest::lockedOnceThenAgain); // a new thread's filter: keys of other tests are not in it
    }

    private static void lockedOnceThenAgain() {
        KeyedLock<String> locks = KeyedLock.builder().releaseIdleKeysInBackground(false).build();
        locks.lock("a");
        assertTrue(locks.isHeldByCurrentThread("a"));
        locks.unlock("a");
        assertEquals(0, locks.boundKeys(), "a key locked once leaves no record");
        locks.lock("a");
        locks.unlock("a");
        assertEquals(1, locks.boundKeys(), "a key locked again by the thread gets a record");
        assertTrue(locks.boundRecord("a") != null);

        KeyedLock<String> eager = KeyedLock.builder().bindOnFirstLock(true).releaseIdleKeysInBackground(false).build();
        eager.lock("a");
        eager.unlock("a");
        assertEquals(1, eager.boundKeys(), "bindOnFirstLock: the first lock binds");
    }

    /**
     * A stream of keys that never recur binds nothing, and keys that recur among them get records and keep most
     * of them while the drain takes back idle records on the stream's thin holds.
     */
    @Test
    void keysThatDoNotRecurLeaveNothingAndRecurringKeysKeepTheirRecords() throws Exception {
        inANewThread(KeyedLockTest::aStreamAndRecurringKeys);
    }

    private static void aStreamAndRecurringKeys() {
        KeyedLock<Integer> locks = KeyedLock.builder().releaseIdleKeysInBackground(false).build();
        for (int k = 1_000_000; k < 1_100_000; k++) { // distinct Integers: distinct hashes, no filter false positive
            locks.lock(k);
            locks.unlock(k);
        }
        assertEquals(0, locks.boundKeys(), "100,000 keys locked once each");
        assertEquals(KeyedLock.MIN_BUCKETS, locks.buckets());
        int oneShot = 2_000_000;
        for (int cycle = 0; cycle < 200; cycle++) {
            for (int k = 0; k < 64; k++) {
                locks.lock(k);
                locks.unlock(k);
                locks.lock(oneShot); // a thin hold between each: the drain runs on them
                locks.unlock(oneShot++);
            }
        }
        int recurringBound = 0;
        for (int k = 0; k < 64; k++) {
            recurringBound += locks.boundRecord(k) != null ? 1 : 0;
        }
        assertTrue(recurringBound >= 32, recurringBound + " of 64 recurring keys have a record");
        assertEquals(recurringBound, locks.boundKeys(), "only recurring keys have records");
    }

    /** Runs {@code body} in a new virtual thread and rethrows what it threw. */
    private static void inANewThread(Runnable body) throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        }).join();
        if (thrown.get() instanceof Error e) {
            throw e;
        }
        if (thrown.get() instanceof Exception e) {
            throw e;
        }
    }

    @Test
    void aKeyStaysBoundWhileIdleAndIsReleasedOnRequest() {
        KeyedLock<String> locks = KeyedLock.builder().idleKeys(2).bindOnFirstLock(true).releaseIdleKeysInBackground(false).build(); // no sweep between the steps
        locks.lock("a");
        locks.unlock("a");
        assertEquals(0, locks.activeKeys());
        assertEquals(1, locks.boundKeys(), "an idle key stays bound for a fast next lock");
        locks.lock("b");
        assertEquals(2, locks.boundKeys());
        locks.lock("c"); // the budget is bound already: "c" is held thin, without a record
        assertEquals(2, locks.boundKeys());
        assertTrue(locks.isHeldByCurrentThread("c"));
        locks.lock("d"); // a thread holds one key thin: "d" binds a record, and the bind deflates the idle "a"
        assertEquals(2, locks.boundKeys());
        locks.lock("e"); // nothing idle to deflate: keys in use are never taken
        assertEquals(3, locks.boundKeys());
        assertEquals(4, locks.activeKeys());
        for (String k : List.of("b", "c", "d", "e")) {
            locks.unlock(k);
        }
        assertEquals(0, locks.activeKeys());
        assertEquals(3, locks.releaseIdleKeys());
        assertEquals(0, locks.boundKeys());
        assertThrows(IllegalArgumentException.class, () -> KeyedLock.builder().idleKeys(-1));
    }

    /** The idle-key budget is the builder's setting, whatever the keys bound: not a count of idle keys. */
    @Test
    @SuppressWarnings("deprecation")
    void theIdleKeyBudgetIsTheSettingNotACount() {
        KeyedLock<String> locks = KeyedLock.builder().idleKeys(2).bindOnFirstLock(true).releaseIdleKeysInBackground(false).build();
        assertEquals(2, locks.idleKeyBudget());
        locks.lock("a");
        locks.unlock("a");
        assertEquals(1, locks.boundKeys(), "one idle key bound");
        assertEquals(2, locks.idleKeyBudget(), "the budget, not the one idle key");
        assertEquals(locks.idleKeyBudget(), locks.idleKeys(), "the deprecated name returns the same");
        assertEquals(1024, new KeyedLock<String>().idleKeyBudget());
    }

    /** One way of acquiring a key, for the test below. */
    interface Acquisition {
        void acquire(KeyedLock<String> locks, String key) throws InterruptedException;
    }

    /**
     * A key that has no record, taken by each kind of acquisition: it behaves as any held key
     * (owner, hold count, re-entry, excludes others); once released it stays bound and idle,
     * another thread locks it, deflation takes it, and its record, reused, serves the key again.
     */
    @Test
    void eachKindOfAcquisitionBindsANewKeyHeldThenIdle() throws Exception {
        List<Acquisition> kinds = List.of(
                KeyedLock::lock,
                KeyedLock::lockInterruptibly,
                (l, k) -> assertTrue(l.tryLock(k)),
                (l, k) -> assertTrue(l.tryLock(k, 1, TimeUnit.MILLISECONDS)),
                (l, k) -> l.withLock(k, () -> {
                    assertEquals(1, l.getHoldCount(k));
                    l.lock(k); // leaves a hold for the checks below
                    return null;
                }));
        for (int kind = 0; kind < kinds.size(); kind++) {
            KeyedLock<String> locks = KeyedLock.builder().idleKeys(4).releaseIdleKeysInBackground(false).build();
            String key = "key" + kind;
            kinds.get(kind).acquire(locks, key);
            assertTrue(locks.isHeldByCurrentThread(key), "kind " + kind);
            assertEquals(1, locks.getHoldCount(key), "kind " + kind);
            assertEquals(1, locks.activeKeys(), "kind " + kind);
            assertTrue(locks.tryLock(key), "kind " + kind + ": re-entry");
            assertEquals(2, locks.getHoldCount(key));
            locks.unlock(key);
            AtomicReference<Boolean> otherGot = new AtomicReference<>();
            Thread other = Thread.ofVirtual().start(() -> otherGot.set(locks.tryLock(key)));
            other.join();
            assertFalse(otherGot.get(), "kind " + kind + ": another thread got a held key");
            locks.unlock(key);
            assertFalse(locks.isLocked(key));
            assertEquals(0, locks.activeKeys(), "kind " + kind);
            assertEquals(1, locks.boundKeys(), "kind " + kind + ": the released key stays bound, idle");
            Thread taker = Thread.ofVirtual().start(() -> {
                locks.lock(key);
                locks.unlock(key);
            });
            taker.join();
            assertEquals(1, locks.releaseIdleKeys(), "kind " + kind + ": deflation takes the idle key");
            assertEquals(0, locks.boundKeys());
            locks.lock(key); // bound afresh, from the deflated record
            assertEquals(1, locks.getHoldCount(key));
            locks.unlock(key);
        }
    }

    /**
     * What one held key costs the lock: {@value #HELD_KEYS_PROPERTY} virtual threads (20,000 by default; the
     * closing note's figure is from 1,000,000: {@code ./mvnw -pl numaloom-core test
     * -Dtest=KeyedLockTest#aHeldKeyCostsTheLockASmallConstant -Dnumaloom.keyedlock.heldKeys=1000000}) each hold a
     * different key; the lock's own objects (JOL's size of the table and of every bound record; a record's owner
     * and key are the application's), per key. The spare record (56 B) and the {@code ThreadLocal} entry that a
     * thread keeps after its first bind are the thread's, not counted here, and so is the thin-hold node of a thread
     * that holds its key thin (no record: a bucket's thin slot names it), which is why the cost per key can be below
     * a record's size, by how many threads found their bucket's thin slot free.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aHeldKeyCostsTheLockASmallConstant() throws Exception {
        int n = Integer.getInteger(HELD_KEYS_PROPERTY, 20_000);
        KeyedLock<Integer> locks = new KeyedLock<>();
        CountDownLatch locked = new CountDownLatch(n);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Integer key = 1_000_000_000 + i;
            threads.add(Thread.ofVirtual().start(() -> {
                locks.lock(key);
                try {
                    locked.countDown();
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    locks.unlock(key);
                }
            }));
        }
        locked.await();
        assertEquals(n, locks.activeKeys());
        int buckets = locks.buckets();
        long lockOnly = locks.ownBytes(o -> org.openjdk.jol.info.ClassLayout.parseInstance(o).instanceSize());
        release.countDown();
        for (Thread t : threads) {
            t.join();
        }
        double perKey = (double) lockOnly / n;
        System.out.printf("KeyedLock: %.1f B per held key (%d virtual threads each holding one key: %d B of table "
                + "and records; %d buckets)%n", perKey, n, lockOnly, buckets);
        assertEquals(0, locks.activeKeys());
        long table = GraphLayout.parseInstance((Object) new Object[3 * buckets]).totalSize();
        assertTrue(lockOnly > table && perKey <= 128, perKey + " B per held key");
    }

    static final String HELD_KEYS_PROPERTY = "numaloom.keyedlock.heldKeys";

    /**
     * A sweep that a resize overtakes still leaves no idle key bound: another thread sweeps beside it (as the
     * background Deflater may), so shrinks move the records not yet swept into a new table while the sweep runs.
     * Before the sweep followed the new table, a few rounds left hundreds to thousands of keys bound.
     */
    @Test
    void releaseIdleKeysLeavesNoneBoundWhileAnotherSweepShrinksTheTable() throws Exception {
        KeyedLock<Integer> locks = KeyedLock.builder().releaseIdleKeysInBackground(false).idleKeys(1 << 20).bindOnFirstLock(true).build();
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 20_000; i++) {
                locks.lock(i);
                locks.unlock(i);
            }
            assertEquals(20_000, locks.boundKeys());
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread other = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    locks.releaseIdleKeys();
                }
            });
            try {
                locks.releaseIdleKeys();
                assertEquals(0, locks.boundKeys(), "round " + round + ": keys left bound after releaseIdleKeys");
            } finally {
                stop.set(true);
                other.join();
            }
        }
    }

    @Test
    void theTableGrowsWithHeldKeysAndShrinksBack() {
        KeyedLock<Integer> locks = new KeyedLock<>();
        int n = 50_000;
        for (int i = 0; i < n; i++) {
            locks.lock(i);
        }
        assertEquals(n, locks.activeKeys());
        // A held record references its owner thread, whose graph is not the lock's: count the parts.
        long record = org.openjdk.jol.info.ClassLayout.parseClass(KeyedLock.Record.class).instanceSize();
        long table = GraphLayout.parseInstance((Object) new Object[3 * locks.buckets()]).totalSize();
        long perKey = record + table / n;
        System.out.println("KeyedLock: " + perKey + " B per held key (a " + record + " B record and "
                + table / n + " B of table; the key itself excluded), " + locks.buckets() + " buckets for " + n + " keys");
        assertTrue(perKey <= 128, perKey + " B per held key");
        int grown = locks.buckets();
        assertTrue(grown >= n / KeyedLock.GROW_CHAIN, "table did not grow: " + grown + " buckets for " + n + " keys");
        for (int i = 0; i < n; i++) {
            assertTrue(locks.isHeldByCurrentThread(i), "lost key " + i);
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        java.util.Collections.shuffle(order, new java.util.Random(42));
        for (int i : order) {
            locks.unlock(i);
        }
        assertEquals(0, locks.activeKeys());
        locks.releaseIdleKeys();
        assertEquals(0, locks.boundKeys());
        assertEquals(KeyedLock.MIN_BUCKETS, locks.buckets(), "grown to " + grown);
    }

    @Test
    void virtualThreadsWithKeyChurnLoseNoUpdate() throws Exception {
        KeyedLock<Integer> locks = new KeyedLock<>();
        int keys = 8;
        int threads = 16;
        int perThread = 5_000;
        long[] counts = new long[keys];
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            all.add(Thread.ofVirtual().start(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int i = 0; i < perThread; i++) {
                    int k = rnd.nextInt(keys);
                    locks.lock(k);
                    try {
                        long c = counts[k];
                        if (rnd.nextInt(16) == 0) {
                            Thread.yield();
                        }
                        counts[k] = c + 1;
                    } finally {
                        locks.unlock(k);
                    }
                }
            }));
        }
        for (Thread t : all) {
            t.join();
        }
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        assertEquals((long) threads * perThread, total, "an update was lost: two threads held one key");
        assertEquals(0, locks.activeKeys());
    }

    /**
     * Same method as {@link VnaLockFootprintTest}: the minimum over windows, probe cost subtracted. The
     * thread first uses a lock of another placement, whose record becomes its spare: that spare must not
     * keep this lock from reusing its own (it did, and every lock(k) allocated a 56-byte record, whenever
     * an earlier test left such a spare in the test thread).
     */
    @Test
    void recurringKeysAllocateNothing() throws Exception {
        KeyedLock<Integer> other = KeyedLock.withPlacement(new QueuePlacement() {
            @Override public int queueCount() { return 2; }
            @Override public int currentQueue() { return 1; }
        });
        other.runWithLock(7, () -> {});
        KeyedLock<Integer> locks = new KeyedLock<>();
        Integer[] keys = new Integer[64];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = 1_000 + i; // outside the Integer cache, boxed once
        }
        assertWindowsAllocateNothing(locks, keys, 200_000, "200k lock(k)/unlock(k)");
        assertEquals(0, locks.activeKeys());
    }

    /** runWithLock runs the caller's action as it is: no wrapper per call (it wrapped it in a lambda once). */
    @Test
    void runWithLockAllocatesNothing() throws Exception {
        KeyedLock<Integer> locks = new KeyedLock<>();
        Integer[] keys = new Integer[64];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = 1_000 + i;
        }
        int[] runs = new int[1];
        Runnable section = () -> runs[0]++;
        assertWindowsAllocateNothing("200k runWithLock(k, section)", () -> {
            for (int i = 0; i < 200_000; i++) {
                locks.runWithLock(keys[i & (keys.length - 1)], section);
            }
        });
        assertEquals(9 * 200_000, runs[0]);
        assertEquals(0, locks.activeKeys());
    }

    /**
     * A stream of ever new keys over a budget of 64 idle keys: each bind deflates one idle record, which the
     * thread keeps as the spare for its next bind, so the steady state allocates no record (36 B per pair when
     * two were deflated per bind and one was dropped).
     */
    @Test
    void newKeysOverTheBudgetAllocateNothing() throws Exception {
        KeyedLock<Integer> locks = KeyedLock.builder().idleKeys(64).build();
        Integer[] keys = new Integer[1 << 16];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = 1_000_000 + i;
        }
        assertWindowsAllocateNothing(locks, keys, keys.length, "65,536 new keys");
        assertTrue(locks.boundKeys() <= 65, locks.boundKeys() + " keys bound over a budget of 64");
    }

    /**
     * Same method as {@link VnaLockFootprintTest}: after a warm-up cycle, the least any of 8 windows of {@code n}
     * lock/unlock pairs allocated, against the least the probe alone allocated.
     */
    private static void assertWindowsAllocateNothing(KeyedLock<Integer> locks, Integer[] keys, int n, String what)
            throws ReflectiveOperationException {
        assertWindowsAllocateNothing(what, () -> cycle(locks, keys, n));
    }

    private static void assertWindowsAllocateNothing(String what, Runnable cycle)
            throws ReflectiveOperationException {
        VnaLockFootprintTest.AllocationProbe probe = new VnaLockFootprintTest.AllocationProbe();
        cycle.run();
        long minEmpty = Long.MAX_VALUE;
        long minWork = Long.MAX_VALUE;
        StringBuilder windows = new StringBuilder();
        for (int w = 0; w < 8; w++) {
            long a = probe.allocatedBytes();
            long b = probe.allocatedBytes();
            cycle.run();
            long c = probe.allocatedBytes();
            minEmpty = Math.min(minEmpty, b - a);
            minWork = Math.min(minWork, c - b);
            windows.append(c - b).append(' ');
        }
        assertTrue(minWork <= minEmpty, "every window of " + what + " allocated: " + windows + "bytes");
    }

    private static void cycle(KeyedLock<Integer> locks, Integer[] keys, int n) {
        for (int i = 0; i < n; i++) {
            Integer k = keys[i & (keys.length - 1)];
            locks.lock(k);
            locks.unlock(k);
        }
    }

    @Test
    void twoKeyedLocksDoNotShareKeys() throws Exception {
        KeyedLock<String> a = new KeyedLock<>();
        KeyedLock<String> b = new KeyedLock<>();
        a.lock("k");
        boolean[] got = new boolean[1];
        Thread t = Thread.ofPlatform().start(() -> {
            got[0] = b.tryLock("k");
            if (got[0]) {
                b.unlock("k");
            }
        });
        t.join();
        assertTrue(got[0]);
        assertFalse(b.isLocked("k"));
        a.unlock("k");
    }

    // ------------------------------------------------------------------ thin holds

    /** A lock whose idle budget is always used up (0), so that an uncontended acquisition takes a thin hold. */
    private static KeyedLock<String> thinLocks() {
        return KeyedLock.builder().idleKeys(0).releaseIdleKeysInBackground(false).build();
    }

    @Test
    @Timeout(60)
    void aThinHoldIsInflatedForAWaiterAndHandedOver() throws Exception {
        KeyedLock<String> locks = thinLocks();
        locks.lock("a");
        assertEquals(0, locks.boundKeys(), "held thin: no record bound");
        assertTrue(locks.isLocked("a"));
        assertTrue(locks.isHeldByCurrentThread("a"));
        assertEquals(1, locks.getHoldCount("a"));
        assertEquals(1, locks.activeKeys());
        assertTrue(locks.forKey("a").toString().contains("Locked by thread"), locks.forKey("a").toString());
        AtomicReference<Boolean> waiterSawHeld = new AtomicReference<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            locks.lock("a");
            waiterSawHeld.set(locks.isHeldByCurrentThread("a") && locks.getHoldCount("a") == 1);
            locks.unlock("a");
        });
        VnaLockTest.awaitCondition(() -> locks.getQueueLength("a") == 1, "the waiter to queue on the inflated record");
        assertEquals(1, locks.boundKeys(), "the waiter inflated the thin hold into a record");
        assertTrue(locks.isHeldByCurrentThread("a"), "the inflated record is held by the thin holder");
        assertEquals(1, locks.getHoldCount("a"));
        assertEquals(null, waiterSawHeld.get());
        locks.unlock("a");
        waiter.join();
        assertEquals(Boolean.TRUE, waiterSawHeld.get());
        assertFalse(locks.isLocked("a"));
        assertEquals(0, locks.activeKeys());
        assertThrows(IllegalMonitorStateException.class, () -> locks.unlock("a"));
    }

    @Test
    void aThinHoldIsReentrantThroughItsInflation() {
        KeyedLock<String> locks = thinLocks();
        locks.lock("a");
        locks.lock("a"); // the holder inflates its own thin hold
        assertEquals(2, locks.getHoldCount("a"));
        assertEquals(1, locks.boundKeys());
        assertTrue(locks.tryLock("a"));
        assertEquals(3, locks.getHoldCount("a"));
        locks.unlock("a");
        locks.unlock("a");
        assertTrue(locks.isHeldByCurrentThread("a"));
        locks.unlock("a");
        assertFalse(locks.isLocked("a"));
        assertThrows(IllegalMonitorStateException.class, () -> locks.unlock("a"));
        assertEquals(1, locks.releaseIdleKeys(), "the inflated record stays bound while idle, as any record");
        assertTrue(locks.withLock("a", () -> locks.isHeldByCurrentThread("a") && locks.boundKeys() == 0),
                "withLock holds the key thin once the idle record is gone");
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void aThreadHoldsOneKeyThinAndBindsRecordsForTheOthers() {
        KeyedLock<String> locks = thinLocks();
        locks.lock("a");
        locks.lock("b");
        assertEquals(1, locks.boundKeys(), "the second key held at once has a record");
        assertEquals(2, locks.activeKeys());
        locks.unlock("a"); // the thin one first
        assertTrue(locks.isHeldByCurrentThread("b"));
        locks.unlock("b");
        locks.lock("c"); // the thread's thin hold is free again
        assertEquals(1, locks.activeKeys());
        assertEquals(1, locks.getHoldCount("c"));
        locks.unlock("c");
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void anotherThreadCannotReleaseAThinHold() throws Exception {
        KeyedLock<String> locks = thinLocks();
        locks.lock("a");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread other = Thread.ofVirtual().start(() -> {
            try {
                locks.unlock("a");
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        other.join();
        assertTrue(thrown.get() instanceof IllegalMonitorStateException, String.valueOf(thrown.get()));
        assertTrue(locks.isHeldByCurrentThread("a"));
        assertFalse(tryLockElsewhere(locks, "a"), "the key is still held");
        locks.unlock("a");
        assertTrue(tryLockElsewhere(locks, "a"));
    }

    /** Whether another thread's tryLock of key succeeds (it unlocks at once). */
    private static boolean tryLockElsewhere(KeyedLock<String> locks, String key) throws InterruptedException {
        boolean[] got = new boolean[1];
        Thread t = Thread.ofVirtual().start(() -> {
            got[0] = locks.tryLock(key);
            if (got[0]) {
                locks.unlock(key);
            }
        });
        t.join();
        return got[0];
    }

    /** A key's signalled waiter returns only once its signaller releases the key. */
    @Test
    void aSignalledWaiterOfAKeyReturnsOnlyOnceItsSignallerReleases() throws Exception {
        KeyedLock<String> locks = new KeyedLock<>();
        KeyedLock<String>.KeyLock view = locks.forKey("k");
        VnaLockTest.assertSignalledWaiterWaitsForRelease(view, view.newCondition());
    }

    @Test
    void aConditionAwaitedUnderAThinHoldInflatesIt() throws Exception {
        KeyedLock<String> locks = thinLocks();
        Condition ready = locks.forKey("a").newCondition();
        locks.lock("a");
        assertFalse(ready.await(1, TimeUnit.MILLISECONDS));
        assertEquals(1, locks.getHoldCount("a"));
        assertEquals(1, locks.boundKeys(), "the await needed a record");
        locks.unlock("a");
        assertFalse(locks.isLocked("a"));
        assertThrows(IllegalMonitorStateException.class, ready::signal);
    }

    @Test
    void unlockAllAndLockAllTakeThinHoldsIntoAccount() {
        KeyedLock<String> locks = thinLocks();
        locks.lock("a"); // thin
        locks.lockAll(List.of("b", "a", "c")); // "a" inflated and re-entered
        assertEquals(2, locks.getHoldCount("a"));
        locks.unlockAll(List.of("c", "a", "b", "a"));
        assertEquals(1, locks.getHoldCount("a"));
        assertFalse(locks.isLocked("b"));
        locks.unlock("a");
        locks.lock("x"); // thin again
        locks.lock("y");
        locks.unlockAll(List.of("y", "x", "x"));
        assertEquals(0, locks.activeKeys());
        locks.lock("x");
        assertThrows(IllegalMonitorStateException.class, () -> locks.unlockAll(List.of("x", "never-locked")));
        assertTrue(locks.isHeldByCurrentThread("x"), "a failed unlockAll releases nothing");
        locks.unlock("x");
    }

    @Test
    @Timeout(60)
    void aResizeInflatesThinHoldsAndTheirHoldersFindTheRecords() throws Exception {
        KeyedLock<String> locks = thinLocks();
        locks.lock("k-thin");
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            many.add("k" + i);
        }
        Thread binder = Thread.ofVirtual().start(() -> {
            locks.lockAll(many); // 2000 records held at once: the table grows several times
            locks.unlockAll(many);
        });
        binder.join();
        assertTrue(locks.buckets() > KeyedLock.MIN_BUCKETS, locks.buckets() + " buckets");
        assertTrue(locks.isHeldByCurrentThread("k-thin"));
        assertEquals(1, locks.getHoldCount("k-thin"));
        assertFalse(tryLockElsewhere(locks, "k-thin"));
        locks.unlock("k-thin");
        assertTrue(tryLockElsewhere(locks, "k-thin"));
        assertEquals(0, locks.activeKeys());
        locks.releaseIdleKeys();
        assertEquals(0, locks.boundKeys());
    }

    @Test
    @Timeout(120)
    void thinHoldsKeepExclusionUnderContention() throws Exception {
        KeyedLock<String> locks = thinLocks();
        String[] keys = {"a", "b", "c", "Aa", "BB"}; // "Aa" and "BB" share a hash, so a bucket
        int[] counters = new int[keys.length];
        int threads = 8, rounds = 20_000;
        List<Thread> all = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            all.add(Thread.ofVirtual().start(() -> {
                try {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < rounds; i++) {
                        int k = random.nextInt(keys.length);
                        switch (i % 4) {
                            case 0 -> locks.runWithLock(keys[k], () -> counters[k]++);
                            case 1 -> {
                                locks.lock(keys[k]);
                                try {
                                    counters[k]++;
                                    if (random.nextInt(8) == 0) {
                                        Thread.yield();
                                    }
                                } finally {
                                    locks.unlock(keys[k]);
                                }
                            }
                            case 2 -> {
                                if (locks.tryLock(keys[k])) {
                                    try {
                                        counters[k]++;
                                    } finally {
                                        locks.unlock(keys[k]);
                                    }
                                } else {
                                    locks.runWithLock(keys[k], () -> counters[k]++);
                                }
                            }
                            default -> {
                                int j = random.nextInt(keys.length);
                                locks.lockAll(List.of(keys[k], keys[j]));
                                try {
                                    counters[k]++;
                                } finally {
                                    locks.unlockAll(List.of(keys[k], keys[j]));
                                }
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        start.countDown();
        for (Thread t : all) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        int sum = 0;
        for (int c : counters) {
            sum += c;
        }
        assertEquals(threads * rounds, sum, "a lost update: two holders of one key");
        assertEquals(0, locks.activeKeys());
    }
}
