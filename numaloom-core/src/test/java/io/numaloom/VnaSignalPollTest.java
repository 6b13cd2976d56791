package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The signal poll ({@link VnaSignalPoll}): which waits poll, and a handoff through two conditions on platform
 * threads, where waits poll, losing no item and stranding no waiter whichever await method the threads use.
 */
class VnaSignalPollTest {

    @Test
    void onlyPlatformThreadsOnMoreThanOneCpuPoll() throws InterruptedException {
        boolean[] virtual = new boolean[1];
        Thread t = Thread.ofVirtual().start(() -> virtual[0] = VnaSignalPoll.mayPoll(Thread.currentThread()));
        t.join();
        assertFalse(virtual[0], "a virtual thread parks at once");
        assertEquals(Runtime.getRuntime().availableProcessors() > 1, VnaSignalPoll.mayPoll(Thread.currentThread()),
                "a platform thread polls where another CPU can run its signaller");
    }

    /**
     * One or three producers and as many consumers, platform threads, a buffer of capacity 1 over
     * two conditions: the waits poll (on more than one CPU). Every item
     * is taken once, each producer's in order, with the five await methods mixed (the timed ones
     * run out now and then), and the lock ends with nobody queued and no waiter.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"VnaLock", "KeyedLock key"})
    @Timeout(120)
    void aHandoffThroughTwoConditionsLosesNothing(String which) throws InterruptedException {
        for (int pairs : new int[] {1, 3}) {
            Lock lock = which.equals("VnaLock") ? new VnaLock() : new KeyedLock<String>().forKey("k");
            Condition notFull = lock.newCondition();
            Condition notEmpty = lock.newCondition();
            int items = 4_000;
            long[] slot = new long[1];
            boolean[] full = new boolean[1];
            long[][] lastSeen = new long[pairs][1];
            int[] taken = new int[pairs];
            int[] outOfOrder = new int[1];
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < pairs; p++) {
                int producer = p;
                threads.add(Thread.ofPlatform().name("producer-" + p).start(() -> {
                    for (int i = 1; i <= items; i++) {
                        lock.lock();
                        try {
                            while (full[0]) {
                                await(notFull, i);
                            }
                            slot[0] = (long) producer << 32 | i;
                            full[0] = true;
                            notEmpty.signal();
                        } finally {
                            lock.unlock();
                        }
                    }
                }));
                threads.add(Thread.ofPlatform().name("consumer-" + p).start(() -> {
                    for (int i = 1; i <= items; i++) {
                        lock.lock();
                        try {
                            while (!full[0]) {
                                await(notEmpty, i);
                            }
                            int from = (int) (slot[0] >>> 32);
                            long seq = (int) slot[0];
                            if (seq <= lastSeen[from][0]) {
                                outOfOrder[0]++;
                            }
                            lastSeen[from][0] = seq;
                            taken[from]++;
                            full[0] = false;
                            notFull.signal();
                        } finally {
                            lock.unlock();
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            int[] all = new int[pairs];
            java.util.Arrays.fill(all, items);
            lock.lock();
            try {
                assertArrayEquals(all, taken, pairs + " pairs: items lost or taken twice");
                assertEquals(0, outOfOrder[0], "items taken out of their producer's order");
                assertFalse(full[0]);
                if (lock instanceof VnaLock v) {
                    assertEquals(0, v.getQueueLength());
                    assertFalse(v.hasWaiters(notFull) || v.hasWaiters(notEmpty));
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** The await methods in turn: untimed, uninterruptible, and three timed ones short enough to run out. */
    private static void await(Condition c, int i) {
        try {
            switch (i % 5) {
                case 0 -> c.await();
                case 1 -> c.awaitUninterruptibly();
                case 2 -> c.awaitNanos(20_000L);
                case 3 -> c.await(30, TimeUnit.MICROSECONDS);
                default -> c.awaitUntil(new Date(System.currentTimeMillis() + 1));
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
