package io.numaloom.scheduler;

import io.numaloom.VnaLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Liveness with one carrier per node on two virtual nodes, the tightest configuration: a thread that parks, sleeps or
 * yields inside a critical section, waits on a condition (signalled, timed out, interrupted), or waits in
 * {@code synchronized} with {@code Object.wait}, must let the other threads of its node run on the one carrier, and
 * every thread must finish. Each test also checks every step for the home node ({@link Steps}) and exclusion where
 * there is a lock. No test asserts a timing; the deadline is only a failure guard.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OneCarrierPerNodeTest {
    private NumaScheduler scheduler;
    private Steps steps;

    @BeforeEach
    void oneCarrierPerNode() {
        scheduler = NumaScheduler.builder().carriersPerNode(1).name("one").build();
        assertEquals(2, scheduler.nodes());
        steps = new Steps(scheduler);
    }

    @AfterEach
    void closeCleanly() {
        scheduler.close();
        Steps.assertStopped(scheduler);
    }

    /** A counter guarded by a lock, with an occupancy check: exclusion must hold. */
    static final class Guarded {
        int count;
        private boolean inside;
        volatile boolean overlapped;

        void enter() {
            if (inside) {
                overlapped = true;
            }
            inside = true;
        }

        void leave() {
            count++;
            inside = false;
        }
    }

    private interface Inside {
        void run(int home) throws Exception;
    }

    /** 16 threads per node, {@code rounds} critical sections each on one VnaLock, {@code inside} in each. */
    private void contend(int rounds, Inside inside) throws InterruptedException {
        VnaLock lock = new VnaLock();
        Guarded guarded = new Guarded();
        for (int node = 0; node < 2; node++) {
            int home = node;
            for (int i = 0; i < 16; i++) {
                steps.start(home, () -> {
                    for (int r = 0; r < rounds; r++) {
                        lock.lock();
                        try {
                            steps.step(home, "after lock");
                            guarded.enter();
                            inside.run(home);
                            guarded.leave();
                        } finally {
                            lock.unlock();
                        }
                    }
                });
            }
        }
        steps.joinAll();
        assertFalse(guarded.overlapped, "exclusion violated");
        assertEquals(32 * rounds, guarded.count);
    }

    @Test
    void yieldInsideCriticalSections() throws InterruptedException {
        contend(100, home -> {
            Thread.yield();
            steps.step(home, "after yield");
        });
    }

    @Test
    void parkInsideCriticalSections() throws InterruptedException {
        contend(30, home -> {
            LockSupport.parkNanos(20_000);
            steps.step(home, "after timed park");
        });
    }

    @Test
    void sleepInsideCriticalSections() throws InterruptedException {
        contend(10, home -> {
            Thread.sleep(1);
            steps.step(home, "after sleep");
        });
    }

    /** A bounded buffer on a VnaLock with two conditions: producers on node 0, consumers on node 1. */
    @Test
    void conditionsAcrossNodes() throws InterruptedException {
        VnaLock lock = new VnaLock();
        Condition notFull = lock.newCondition();
        Condition notEmpty = lock.newCondition();
        ArrayDeque<Integer> buffer = new ArrayDeque<>();
        int capacity = 4;
        int perThread = 200;
        AtomicInteger consumed = new AtomicInteger();
        long[] sum = new long[1];
        for (int i = 0; i < 8; i++) {
            int base = i * perThread;
            steps.start(0, () -> {
                for (int k = 0; k < perThread; k++) {
                    lock.lock();
                    try {
                        while (buffer.size() == capacity) {
                            notFull.await();
                            steps.step(0, "after await notFull");
                        }
                        buffer.add(base + k);
                        notEmpty.signal();
                    } finally {
                        lock.unlock();
                    }
                }
            });
            steps.start(1, () -> {
                for (int k = 0; k < perThread; k++) {
                    lock.lock();
                    try {
                        while (buffer.isEmpty()) {
                            notEmpty.await();
                            steps.step(1, "after await notEmpty");
                        }
                        sum[0] += buffer.remove();
                        consumed.incrementAndGet();
                        notFull.signal();
                    } finally {
                        lock.unlock();
                    }
                }
            });
        }
        steps.joinAll();
        int n = 8 * perThread;
        assertEquals(n, consumed.get());
        assertEquals((long) n * (n - 1) / 2, sum[0]);
    }

    /** Timed condition waits that nobody signals time out, inside the critical section, and resume at home. */
    @Test
    void timedWaitsTimeOut() throws InterruptedException {
        VnaLock lock = new VnaLock();
        Condition never = lock.newCondition();
        AtomicInteger timedOut = new AtomicInteger();
        for (int node = 0; node < 2; node++) {
            int home = node;
            for (int i = 0; i < 8; i++) {
                steps.start(home, () -> {
                    for (int r = 0; r < 5; r++) {
                        lock.lock();
                        try {
                            if (!never.await(200, TimeUnit.MICROSECONDS)) {
                                timedOut.incrementAndGet();
                            }
                            steps.step(home, "after timed await");
                            assertTrue(lock.isHeldByCurrentThread());
                        } finally {
                            lock.unlock();
                        }
                        assertFalse(lock.tryLock(100, TimeUnit.MICROSECONDS) && unlockAndFalse(lock));
                        steps.step(home, "after timed tryLock");
                    }
                });
            }
        }
        steps.joinAll();
        assertEquals(80, timedOut.get());
    }

    private static boolean unlockAndFalse(VnaLock lock) {
        lock.unlock();
        return false;
    }

    /**
     * Threads of both nodes blocked in every interruptible wait (lockInterruptibly on a held lock, a condition await,
     * sleep, park) are interrupted by a platform thread; each resumes at home and sees the interrupt.
     */
    @Test
    void interrupts() throws InterruptedException {
        VnaLock held = new VnaLock();
        VnaLock other = new VnaLock();
        Condition never = other.newCondition();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        steps.start(0, () -> {
            held.lock();
            holding.countDown();
            try {
                release.await();
            } finally {
                held.unlock();
            }
        });
        holding.await();
        AtomicInteger interrupted = new AtomicInteger();
        List<Thread> waiters = new ArrayList<>();
        for (int node = 0; node < 2; node++) {
            int home = node;
            waiters.add(steps.start(home, () -> {
                assertThrows(InterruptedException.class, held::lockInterruptibly);
                steps.step(home, "after interrupted lockInterruptibly");
                interrupted.incrementAndGet();
            }));
            waiters.add(steps.start(home, () -> {
                other.lock();
                try {
                    assertThrows(InterruptedException.class, never::await);
                    steps.step(home, "after interrupted await");
                    assertTrue(other.isHeldByCurrentThread());
                } finally {
                    other.unlock();
                }
                interrupted.incrementAndGet();
            }));
            waiters.add(steps.start(home, () -> {
                assertThrows(InterruptedException.class, () -> Thread.sleep(Duration.ofDays(1)));
                steps.step(home, "after interrupted sleep");
                interrupted.incrementAndGet();
            }));
            waiters.add(steps.start(home, () -> {
                while (!Thread.currentThread().isInterrupted()) {
                    LockSupport.park();
                }
                steps.step(home, "after interrupted park");
                interrupted.incrementAndGet();
            }));
        }
        // wait for states, not for time: every waiter blocked before the interrupts
        for (Thread t : waiters) {
            awaitBlocked(t);
                    }
        for (Thread t : waiters) {
            t.interrupt();
        }
        for (Thread t : waiters) {
            assertTrue(t.join(Duration.ofSeconds(Steps.DEADLINE_SECONDS)), t + " did not finish");
        }
        release.countDown();
        steps.joinAll();
        assertEquals(8, interrupted.get());
    }

    static void awaitBlocked(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Steps.DEADLINE_SECONDS);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(System.nanoTime() < deadline, t + " never blocked: " + t.getState());
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /** Ping-pong over a monitor between a thread of each node, plus 8 per node contending with timed waits. */
    @Test
    void synchronizedWithWait() throws InterruptedException {
        Object monitor = new Object();
        int[] turn = new int[1];
        int rounds = 300;
        for (int node = 0; node < 2; node++) {
            int home = node;
            steps.start(home, () -> {
                for (int r = 0; r < rounds; r++) {
                    synchronized (monitor) {
                        while (turn[0] != home) {
                            monitor.wait();
                            steps.step(home, "after wait");
                        }
                        turn[0] = 1 - home;
                        monitor.notifyAll();
                    }
                }
            });
        }
        Object shared = new Object();
        Guarded guarded = new Guarded();
        for (int node = 0; node < 2; node++) {
            int home = node;
            for (int i = 0; i < 8; i++) {
                steps.start(home, () -> {
                    for (int r = 0; r < 20; r++) {
                        synchronized (shared) {
                            steps.step(home, "after monitor enter");
                            guarded.enter();
                            shared.wait(0, 100_000); // releases the monitor: others enter meanwhile
                            steps.step(home, "after timed wait");
                            guarded.leave();
                            shared.notify();
                        }
                    }
                });
            }
        }
        steps.joinAll();
        assertEquals(16 * 20, guarded.count);
    }
}
