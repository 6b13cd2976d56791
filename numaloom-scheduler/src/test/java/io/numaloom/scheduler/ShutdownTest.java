package io.numaloom.scheduler;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link NumaScheduler#close()} does with threads in every state, the thread-per-task executor, inheritance by
 * threads created with the JDK's builders, {@code homeNode} of other threads, and opt-in cross-node stealing. Every
 * wait is for a state, never for a time; deadlines only guard against hangs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShutdownTest {

    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Steps.DEADLINE_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "never happened: " + what);
            Thread.yield();
        }
    }

    static void join(Thread t) throws InterruptedException {
        assertTrue(t.join(Duration.ofSeconds(Steps.DEADLINE_SECONDS)), t + " did not finish: " + t.getState());
    }

    static NumaScheduler oneCarrierPerNode() {
        return NumaScheduler.builder().carriersPerNode(1).build();
    }

    @Test
    void closeWaitsForAParkedThreadThenStopsTheCarriers() throws InterruptedException {
        NumaScheduler scheduler = oneCarrierPerNode();
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        Thread parked = scheduler.threadFactory(1).newThread(() -> {
            try {
                release.await();
                finished.set(true);
            } catch (InterruptedException e) {
                throw new AssertionError("close() must not interrupt", e);
            }
        });
        parked.start();
        OneCarrierPerNodeTest.awaitBlocked(parked);
        Thread closer = Thread.ofPlatform().start(scheduler::close);
        await(() -> scheduler.threadFactory(0).newThread(() -> { }) == null, "close() began");
        await(() -> closer.getState() == Thread.State.WAITING || closer.getState() == Thread.State.TIMED_WAITING,
                "close() waits");
        assertFalse(scheduler.isClosed());
        assertTrue(parked.isAlive());
        for (Thread c : scheduler.carriers(1)) {
            assertTrue(c.isAlive(), "carriers outlive the threads they carry");
        }
        release.countDown();
        join(closer);
        assertTrue(finished.get());
        Steps.assertStopped(scheduler);
        scheduler.close(); // again: returns at once
    }

    @Test
    void aThreadStartedAfterCloseDoesNotRunItsTask() throws InterruptedException {
        NumaScheduler scheduler = oneCarrierPerNode();
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<Throwable> uncaught = new AtomicReference<>();
        Thread late = scheduler.threadFactory().newThread(() -> ran.set(true));
        late.setUncaughtExceptionHandler((t, e) -> uncaught.set(e));
        scheduler.close();
        Steps.assertStopped(scheduler);
        assertNull(scheduler.threadFactory().newThread(() -> { }), "the factories reject once closed");
        late.start();
        join(late);
        assertFalse(ran.get());
        assertInstanceOf(RejectedExecutionException.class, uncaught.get());
    }

    @Test
    void executorAssignsHomesRoundRobinAndRejectsOnceClosed() throws Exception {
        NumaScheduler scheduler = oneCarrierPerNode();
        AtomicInteger[] perNode = {new AtomicInteger(), new AtomicInteger()};
        List<Future<Integer>> homes = new ArrayList<>();
        try (ExecutorService executor = scheduler.newThreadPerTaskExecutor()) {
            for (int i = 0; i < 8; i++) {
                homes.add(executor.submit(() -> {
                    int home = NumaScheduler.homeNode(Thread.currentThread());
                    Thread.yield();
                    assertEquals(home, NumaScheduler.currentCarrierNode());
                    perNode[home].incrementAndGet();
                    return home;
                }));
            }
        }
        for (int i = 0; i < homes.size(); i++) {
            assertEquals(i % 2, homes.get(i).get());
        }
        assertEquals(4, perNode[0].get());
        assertEquals(4, perNode[1].get());
        scheduler.close();
        ExecutorService after = scheduler.newThreadPerTaskExecutor();
        assertThrows(RejectedExecutionException.class, () -> after.submit(() -> { }));
        after.close();
    }

    @Test
    void closeFromOneOfItsOwnThreadsThrows() throws InterruptedException {
        NumaScheduler scheduler = oneCarrierPerNode();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = scheduler.threadFactory(0).newThread(() -> {
            try {
                scheduler.close();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        join(t);
        assertInstanceOf(IllegalStateException.class, thrown.get());
        scheduler.close();
        Steps.assertStopped(scheduler);
    }

    @Test
    void anInterruptedCloseInterruptsTheThreadsAndKeepsWaiting() throws InterruptedException {
        NumaScheduler scheduler = oneCarrierPerNode();
        AtomicBoolean sawInterrupt = new AtomicBoolean();
        Thread parked = scheduler.threadFactory(0).newThread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                LockSupport.park();
            }
            sawInterrupt.set(true);
        });
        parked.start();
        OneCarrierPerNodeTest.awaitBlocked(parked);
        AtomicBoolean interruptStatusAfterClose = new AtomicBoolean();
        Thread closer = Thread.ofPlatform().start(() -> {
            scheduler.close();
            interruptStatusAfterClose.set(Thread.currentThread().isInterrupted());
        });
        await(() -> scheduler.threadFactory(0).newThread(() -> { }) == null, "close() began");
        closer.interrupt();
        join(closer);
        assertTrue(sawInterrupt.get());
        assertTrue(interruptStatusAfterClose.get(), "close() restores the caller's interrupt status");
        Steps.assertStopped(scheduler);
    }

    /** A virtual thread created inside ours with Thread.ofVirtual() inherits its creator's node (JDK behaviour). */
    @Test
    void childrenInheritTheirCreatorsNode() throws InterruptedException {
        try (NumaScheduler scheduler = oneCarrierPerNode()) {
            Steps steps = new Steps(scheduler);
            steps.start(1, () -> {
                Thread child = Thread.ofVirtual().start(() -> {
                    steps.step(1, "child at start");
                    Thread.yield();
                    steps.step(1, "child after yield");
                });
                child.join();
                assertEquals(1, NumaScheduler.homeNode(child));
            });
            steps.joinAll();
        }
    }

    /**
     * close() does not wait for a child made with the JDK's builder; if it is still parked when the carriers stop,
     * its later resumption runs on a temporary platform thread, and whoever unparks it gets no exception.
     */
    @Test
    void aChildThatOutlivesCloseStillFinishes() throws InterruptedException {
        NumaScheduler scheduler = oneCarrierPerNode();
        AtomicReference<Thread> child = new AtomicReference<>();
        AtomicInteger carrierNodeAtTheEnd = new AtomicInteger(99);
        Thread parent = scheduler.threadFactory(0).newThread(() -> child.set(Thread.ofVirtual().start(() -> {
            LockSupport.park();
            carrierNodeAtTheEnd.set(NumaScheduler.currentCarrierNode());
        })));
        parent.start();
        join(parent);
        OneCarrierPerNodeTest.awaitBlocked(child.get());
        scheduler.close();
        Steps.assertStopped(scheduler);
        LockSupport.unpark(child.get());
        join(child.get());
        assertEquals(-1, carrierNodeAtTheEnd.get(), "it ran on no carrier of the closed scheduler");
    }

    @Test
    void homeNodeOfOtherThreadsIsMinusOne() throws InterruptedException {
        try (NumaScheduler scheduler = oneCarrierPerNode()) {
            assertEquals(-1, NumaScheduler.homeNode(Thread.currentThread()));
            assertEquals(-1, NumaScheduler.homeNode(null));
            assertEquals(-1, NumaScheduler.homeNode(scheduler.carriers(0).get(0)));
            Thread plain = Thread.ofVirtual().unstarted(() -> { });
            assertEquals(-1, NumaScheduler.homeNode(plain));
            assertEquals(-1, NumaScheduler.currentCarrierNode());
            assertEquals(0, NumaScheduler.homeNode(scheduler.threadFactory(0).newThread(() -> { })));
            assertEquals(1, NumaScheduler.homeNode(scheduler.threadFactory(1).newThread(() -> { })));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> scheduler.threadFactory(2));
            assertTrue(e.getMessage().contains("node 2") && e.getMessage().contains("has 2 nodes (0 to 1)"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> scheduler.threadFactory(-1));
        }
        assertThrows(IllegalArgumentException.class, () -> NumaScheduler.builder().carriersPerNode(0));
    }

    /**
     * With stealing on, a thread homed on node 0 runs on node 1's idle carrier while node 0's only carrier is held
     * by a thread that never yields (a stand-in for a carrier blocked in file I/O). Two threads homed on node 0: a
     * spinner that holds whichever carrier runs it until the other thread has run, and that other thread. With one
     * carrier per node they can only both run on different carriers, so exactly one of them ran on node 1's
     * (which one depends on which carrier found the spinner first, the home one or the idle thief). Without stealing
     * the second could not run until the spinner gave up, and the spinner would hit its deadline.
     */
    @Test
    void crossNodeStealingRescuesABusyNode() throws InterruptedException {
        try (NumaScheduler scheduler = NumaScheduler.builder().carriersPerNode(1)
                .crossNodeStealing(Duration.ofMillis(1)).build()) {
            AtomicInteger spinnerOn = new AtomicInteger(-2);
            AtomicBoolean released = new AtomicBoolean();
            AtomicInteger otherOn = new AtomicInteger(-2);
            Thread spinner = scheduler.threadFactory(0).newThread(() -> {
                spinnerOn.set(NumaScheduler.currentCarrierNode());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Steps.DEADLINE_SECONDS);
                while (!released.get() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            });
            spinner.start();
            await(() -> spinnerOn.get() != -2, "the spinner holds a carrier");
            Thread other = scheduler.threadFactory(0).newThread(() -> {
                otherOn.set(NumaScheduler.currentCarrierNode());
                released.set(true);
            });
            other.start();
            join(other);
            join(spinner);
            assertTrue(released.get());
            assertEquals(0, NumaScheduler.homeNode(other), "stealing does not change the home");
            assertEquals(1, Math.max(spinnerOn.get(), otherOn.get()), "one ran on node 1: " + spinnerOn + ", " + otherOn);
            assertEquals(0, Math.min(spinnerOn.get(), otherOn.get()), "the other at home: " + spinnerOn + ", " + otherOn);
        }
    }
}
