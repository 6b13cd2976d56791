package io.numaloom.stress.fairness;

import io.numaloom.VnaLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * VnaLock's fairness bound in the regime where it is tightest: eight hammers of queue 0 barge on
 * every iteration with no yield inside, on two carriers (this execution runs at scheduler
 * parallelism 2; platform threads run on every CPU), while an outsider of queue 1 acquires over
 * and over. Every wait of the outsider must stay within the documented bound,
 * {@code (queues - 1) * (TURN_NANOS + PATIENCE_NANOS) + PATIENCE_NANOS} (3 ms with two queues),
 * plus scheduling delay: a parked thread needs a CPU, or a virtual thread a carrier, to take its
 * turn, and virtual threads are not preempted. The assertion allows one second of that, plus
 * {@value #WAKE_UPS_PER_WAIT} times the longest wake-up delay of the machine during the run: a
 * platform thread that sleeps 1 ms over and over measures how long a woken thread waits for a
 * CPU, which on a machine busy with other work (other JVMs, at a higher priority) can exceed a
 * second, and a wait of the outsider includes a few wake-ups (its designation, the release after
 * it reserved). The printed maximum and the count of waits over the bound are the measurement.
 *
 * <p>Runs {@code numaloom.fairness.seconds} per thread kind: 3 in CI, 60 under {@code -Pstress}.
 * Without the bound (pure barging) the outsider would wait until the hammers stop.
 */
class OvertakingBoundTest {

    static final long BOUND_NANOS = VnaLock.TURN_NANOS + 2 * VnaLock.PATIENCE_NANOS;
    static final long SLACK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Wake-ups in one wait of the outsider that may each wait as long as the machine's longest wake-up delay. */
    static final int WAKE_UPS_PER_WAIT = 4;
    /** Barging threads of queue 0; {@code -Dnumaloom.fairness.hammers} changes it (1 leaves a CPU free for the outsider). */
    static final int HAMMERS = Integer.getInteger("numaloom.fairness.hammers", 8);

    @ParameterizedTest(name = "virtual threads: {0}")
    @ValueSource(booleans = {false, true})
    void everyWaitOfAQueuedOutsiderIsBounded(boolean virtual) throws InterruptedException {
        // A virtual thread is not preempted: on one carrier the hammers would keep the outsider from ever running.
        assumeTrue(!virtual || Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors()) > 1, "needs more than one carrier");
        Duration duration = Duration.ofMillis((long) (1000 * Double.parseDouble(System.getProperty("numaloom.fairness.seconds", "3"))));
        ThreadLocal<Integer> queue = ThreadLocal.withInitial(() -> 0);
        VnaLock lock = VnaLock.withPlacement(2, queue::get);
        ThreadFactory factory = virtual ? Thread.ofVirtual().factory() : Thread.ofPlatform().factory();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong hammered = new AtomicLong();
        List<Thread> hammers = new ArrayList<>();
        for (int i = 0; i < HAMMERS; i++) {
            Thread t = factory.newThread(() -> {
                long mine = 0;
                while (!stop.get()) {
                    lock.lock();
                    try {
                        mine++;
                    } finally {
                        lock.unlock();
                    }
                }
                hammered.addAndGet(mine);
            });
            hammers.add(t);
            t.start();
        }
        AtomicLong waits = new AtomicLong();
        AtomicLong overBound = new AtomicLong();
        AtomicLong maxWait = new AtomicLong();
        Thread outsider = factory.newThread(() -> {
            queue.set(1);
            long end = System.nanoTime() + duration.toNanos();
            while (System.nanoTime() < end) {
                long start = System.nanoTime();
                lock.lock();
                long waited = System.nanoTime() - start;
                lock.unlock();
                waits.incrementAndGet();
                maxWait.accumulateAndGet(waited, Math::max);
                if (waited > BOUND_NANOS) {
                    overBound.incrementAndGet();
                }
                LockSupport.parkNanos(100_000); // let the hammers close in again
            }
        });
        long wakeUpDelay;
        boolean outsiderDone;
        try (WakeUpDelay machine = new WakeUpDelay()) {
            outsider.start();
            outsider.join(duration.plusSeconds(30));
            outsiderDone = !outsider.isAlive();
            wakeUpDelay = machine.longestNanos();
        }
        stop.set(true);
        for (Thread t : hammers) {
            t.join();
        }
        long slack = SLACK_NANOS + WAKE_UPS_PER_WAIT * wakeUpDelay;
        System.out.printf("fairness bound, %s threads, %d hammers of queue 0, %s: %d waits of the queue-1 outsider, "
                        + "max %.2f ms, %d over the %.1f ms bound; %d acquisitions by the hammers; longest wake-up "
                        + "delay of the machine %.2f ms%n",
                virtual ? "virtual" : "platform", HAMMERS, duration, waits.get(), maxWait.get() / 1e6, overBound.get(),
                BOUND_NANOS / 1e6, hammered.get(), wakeUpDelay / 1e6);
        assertTrue(outsiderDone, "the outsider of queue 1 starved");
        assertTrue(waits.get() > 0);
        assertTrue(maxWait.get() <= BOUND_NANOS + slack, "a wait of " + maxWait.get() / 1_000_000
                + " ms: the bound is " + BOUND_NANOS / 1_000_000 + " ms plus scheduling delay (allowed: "
                + slack / 1_000_000 + " ms, the machine's longest wake-up delay was " + wakeUpDelay / 1_000_000
                + " ms)");
        assertFalse(lock.isLocked());
    }

    /**
     * The machine's wake-up delay while it runs: a platform thread sleeps 1 ms over and over and keeps the
     * longest time it woke up late, that is, waited for a CPU once its sleep was over.
     */
    static final class WakeUpDelay implements AutoCloseable {
        private static final long SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong longest = new AtomicLong();
        private final Thread thread;

        WakeUpDelay() {
            thread = Thread.ofPlatform().daemon().name("wake-up-delay").start(() -> {
                while (!stop.get()) {
                    long start = System.nanoTime();
                    LockSupport.parkNanos(SLEEP_NANOS);
                    longest.accumulateAndGet(System.nanoTime() - start - SLEEP_NANOS, Math::max);
                }
            });
        }

        /** The longest delay so far, in nanoseconds. */
        long longestNanos() {
            return longest.get();
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join();
        }
    }
}
