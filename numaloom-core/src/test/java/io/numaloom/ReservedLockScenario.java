package io.numaloom;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The scenario of a {@code tryLock()} that kept failing on a lock that no thread held: an owner holds
 * the lock and blocks inside its critical section (a sleep, as code holding a lock across I/O does)
 * until the waiter queued behind it has reserved the lock; then it releases the lock and at once
 * retries {@code while (!lock.tryLock()) Thread.onSpinWait();}, as may other spinners that start at
 * that moment. The heir was woken by the release onto a carrier (or a CPU) that the spinners keep
 * busy; the lock word is reserved and free. Every spinner must get the lock; how long each was
 * refused a lock that no thread held is reported, not asserted beyond a liveness bound: timings
 * belong to benchmarks.
 */
final class ReservedLockScenario {

    /** How long a spinner retries before the scenario gives up: thousands of times the 250 µs grace. */
    static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** What the spinners saw. */
    record Outcome(int spinners, int acquired, long longestFreeRefusalNanos, long failures, boolean heirAcquired) {
        void assertEverySpinnerAcquired() {
            assertTrue(heirAcquired, "the heir never got the lock: " + this);
            assertTrue(acquired == spinners, acquired + " of " + spinners + " spinners got the lock within "
                    + TimeUnit.NANOSECONDS.toSeconds(GIVE_UP_NANOS) + " s of tryLock() on a lock the heir had reserved: "
                    + this);
        }

        @Override
        public String toString() {
            return String.format("%d of %d spinners acquired, %d failed tryLock() calls, the longest refusal of a"
                    + " lock no thread held %.3f ms, heir acquired: %s (worst of %d runs)", acquired, spinners, failures,
                    longestFreeRefusalNanos / 1e6, heirAcquired, REPEATS);
        }
    }

    private ReservedLockScenario() {}

    /**
     * How many times each test runs the scenario ({@code -Dnumaloom.trylock.repeats}, 1 by default): the
     * closing note's figures come from {@code ./mvnw -pl numaloom-core test -Dtest='VnaLockTryLockTest,
     * VnaLockParallelismOneTest#tryLock*' -Dnumaloom.trylock.repeats=50}.
     */
    static final int REPEATS = Integer.getInteger("numaloom.trylock.repeats", 1);

    /** Runs the scenario {@link #REPEATS} times on a fresh lock each time; returns the worst outcome. */
    static Outcome runRepeatedly(java.util.function.Supplier<Scenario> fresh, int spinners, Thread.Builder threads)
            throws InterruptedException {
        Outcome worst = null;
        for (int i = 0; i < REPEATS; i++) {
            Scenario sc = fresh.get();
            Outcome o = run(sc.lock(), sc.reserved(), sc.locked(), spinners, threads);
            if (worst == null || o.acquired() < worst.acquired() || !o.heirAcquired()
                    || (o.acquired() == worst.acquired() && o.longestFreeRefusalNanos() > worst.longestFreeRefusalNanos())) {
                worst = o;
            }
            if (o.acquired() < spinners || !o.heirAcquired()) {
                break;
            }
        }
        return worst;
    }

    /** A fresh lock of the scenario, with its probes. */
    record Scenario(Lock lock, BooleanSupplier reserved, BooleanSupplier locked) {
        static Scenario of(VnaLock lock) {
            return new Scenario(lock, () -> ReservedLockScenario.reserved(lock), lock::isLocked);
        }

        static <K> Scenario of(KeyedLock<K> locks, K key) {
            return new Scenario(locks.forKey(key), () -> {
                VnaLock r = locks.boundRecord(key);
                return r != null && ReservedLockScenario.reserved(r);
            }, () -> locks.isLocked(key));
        }
    }

    /**
     * Runs the scenario once.
     *
     * @param lock      the lock (a {@code VnaLock}, or one key of a {@code KeyedLock})
     * @param reserved  whether the heir has reserved the lock (read by the blocked owner)
     * @param locked    whether some thread holds the lock (read after each failed {@code tryLock()})
     * @param spinners  threads that retry {@code tryLock()} after the release: the owner and {@code spinners - 1} more
     * @param threads   the builder of every thread of the scenario
     */
    static Outcome run(Lock lock, BooleanSupplier reserved, BooleanSupplier locked, int spinners,
                       Thread.Builder threads) throws InterruptedException {
        AtomicBoolean heirAcquired = new AtomicBoolean();
        AtomicLong longest = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicLong acquired = new AtomicLong();
        AtomicReference<Throwable> error = new AtomicReference<>();
        CountDownLatch released = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        Runnable spin = () -> {
            long start = System.nanoTime();
            long freeSince = 0L;
            boolean refusedFree = false;
            long n = 0;
            while (!lock.tryLock()) {
                n++;
                long now = System.nanoTime();
                if (!locked.getAsBoolean()) {
                    if (!refusedFree) {
                        refusedFree = true;
                        freeSince = now;
                    }
                    longest.accumulateAndGet(now - freeSince, Math::max);
                } else {
                    refusedFree = false;
                }
                if (now - start > GIVE_UP_NANOS) {
                    failures.addAndGet(n);
                    return;
                }
                Thread.onSpinWait();
            }
            failures.addAndGet(n);
            acquired.incrementAndGet();
            lock.unlock();
        };
        Thread.UncaughtExceptionHandler record = (t, e) -> error.compareAndSet(null, e);
        threads.uncaughtExceptionHandler(record);
        for (int i = 1; i < spinners; i++) {
            all.add(threads.start(() -> {
                try {
                    released.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                spin.run();
            }));
        }
        all.add(threads.start(() -> {
            lock.lock();
            Thread heir;
            try {
                heir = threads.start(() -> {
                    lock.lock();
                    heirAcquired.set(true);
                    lock.unlock();
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!reserved.getAsBoolean()) {
                    if (System.nanoTime() > deadline) {
                        fail("the heir did not reserve the lock in 30 s");
                    }
                    Thread.sleep(1); // blocked inside the critical section: the heir runs, queues, reserves
                }
                released.countDown();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                released.countDown();
                lock.unlock();
            }
            spin.run();
            try {
                heir.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }));
        for (Thread t : all) {
            t.join();
        }
        if (error.get() != null) {
            throw new AssertionError("a thread of the scenario failed", error.get());
        }
        if (acquired.get() == spinners && locked.getAsBoolean()) {
            throw new AssertionError("every thread is done and the lock is still held: " + lock);
        }
        return new Outcome(spinners, (int) acquired.get(), longest.get(), failures.get(), heirAcquired.get());
    }

    /** Whether {@code lock}'s word says reserved. */
    static boolean reserved(VnaLock lock) {
        return (lock.word() & VnaLock.RESERVED) != 0;
    }
}
