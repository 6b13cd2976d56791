package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jol.info.GraphLayout;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link VnaReentrantLock}: a {@code ReentrantLock} by type, a {@code VnaLock} by behaviour. The full {@code Lock} and
 * {@code Condition} semantics run over it in numaloom-stress's conformance suite (subject {@code VNA_REENTRANT_LOCK});
 * here, what is particular to the subclass: the calls through {@code ReentrantLock}'s type reach the
 * {@code VnaLock}, the final methods it cannot override and the static ones that answer for them, the protected
 * monitoring, serialization, a subclass of it, and its size.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VnaReentrantLockTest {

    /** A subclass, as numaloom's agent makes of a class that extends {@code ReentrantLock}: it sees the protected methods. */
    static final class Inspectable extends VnaReentrantLock {
        Thread owner() {
            return getOwner();
        }

        java.util.Collection<Thread> queued() {
            return getQueuedThreads();
        }

        java.util.Collection<Thread> waiting(Condition c) {
            return getWaitingThreads(c);
        }
    }

    private static Thread startWaiter(ReentrantLock lock, CountDownLatch done) {
        return Thread.ofPlatform().start(() -> {
            lock.lock();
            try {
                done.countDown();
            } finally {
                lock.unlock();
            }
        });
    }

    private static void awaitQueued(VnaReentrantLock lock, Thread t) throws InterruptedException {
        while (!lock.isQueued(t)) {
            Thread.sleep(1);
        }
    }

    @Test
    void callsThroughReentrantLocksTypeReachTheVnaLock() throws Exception {
        Inspectable lock = new Inspectable();
        ReentrantLock typed = lock;
        assertFalse(typed.isLocked());
        typed.lock();
        typed.lock();
        assertEquals(2, typed.getHoldCount());
        assertTrue(typed.isHeldByCurrentThread());
        assertSame(Thread.currentThread(), lock.owner());
        assertTrue(typed.tryLock());
        assertEquals(3, typed.getHoldCount());
        typed.unlock();
        typed.unlock();

        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = startWaiter(typed, done);
        awaitQueued(lock, waiter);
        assertEquals(List.of(waiter), List.copyOf(lock.queued()));
        assertEquals(List.of(waiter), List.copyOf(lock.queuedThreads()));
        assertEquals(1, lock.queueLength());
        assertTrue(lock.isQueued());
        // The final methods read ReentrantLock's own queue, which this lock never uses.
        assertFalse(typed.hasQueuedThreads());
        assertFalse(typed.hasQueuedThread(waiter));
        assertEquals(0, typed.getQueueLength());
        // The static ones answer for it, and for a plain ReentrantLock as that lock would.
        assertTrue(VnaReentrantLock.hasQueuedThreads(typed));
        assertTrue(VnaReentrantLock.hasQueuedThread(typed, waiter));
        assertEquals(1, VnaReentrantLock.getQueueLength(typed));
        ReentrantLock plain = new ReentrantLock();
        assertFalse(VnaReentrantLock.hasQueuedThreads(plain));
        assertEquals(0, VnaReentrantLock.getQueueLength(plain));
        assertThrows(NullPointerException.class, () -> VnaReentrantLock.hasQueuedThread(typed, null));

        typed.unlock();
        assertTrue(done.await(30, TimeUnit.SECONDS));
        waiter.join();
        assertFalse(typed.isLocked());
        assertNull(lock.owner());
        assertFalse(typed.isFair(), "the final isFair() is right: the lock barges, within a bound");
        assertThrows(IllegalMonitorStateException.class, typed::unlock);
    }

    @Test
    void conditionsAreTheVnaLocksWithReentrantLocksMonitoring() throws Exception {
        Inspectable lock = new Inspectable();
        ReentrantLock typed = lock;
        Condition ready = typed.newCondition();
        assertEquals("io.numaloom.VnaCondition", ready.getClass().getName());
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = Thread.ofPlatform().start(() -> {
            typed.lock();
            try {
                waiting.countDown();
                ready.awaitUninterruptibly();
            } finally {
                typed.unlock();
            }
        });
        assertTrue(waiting.await(30, TimeUnit.SECONDS));
        for (;;) {
            typed.lock();
            try {
                if (typed.hasWaiters(ready)) {
                    assertEquals(1, typed.getWaitQueueLength(ready));
                    assertEquals(List.of(waiter), List.copyOf(lock.waiting(ready)));
                    ready.signal();
                    assertEquals(0, typed.getWaitQueueLength(ready), "a signalled waiter waits for the lock, not the condition");
                    break;
                }
            } finally {
                typed.unlock();
            }
            Thread.sleep(1);
        }
        waiter.join();

        assertThrows(IllegalMonitorStateException.class, () -> typed.hasWaiters(ready), "not held");
        typed.lock();
        try {
            Condition foreign = new ReentrantLock().newCondition();
            assertThrows(IllegalArgumentException.class, () -> typed.hasWaiters(foreign));
            assertThrows(IllegalArgumentException.class, () -> typed.getWaitQueueLength(foreign));
            assertThrows(IllegalArgumentException.class, () -> lock.waiting(foreign));
            assertThrows(NullPointerException.class, () -> typed.hasWaiters(null));
        } finally {
            typed.unlock();
        }
    }

    @Test
    void toStringSaysWhoHoldsItAsReentrantLockDoes() {
        VnaReentrantLock lock = new VnaReentrantLock();
        assertTrue(lock.toString().matches("io\\.numaloom\\.VnaReentrantLock@[0-9a-f]+\\[Unlocked]"), lock.toString());
        lock.lock();
        try {
            assertTrue(lock.toString().endsWith("[Locked by thread " + Thread.currentThread().getName() + "]"), lock.toString());
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aDeserializedLockIsUnlockedAndKeepsItsName() throws Exception {
        VnaReentrantLock held = new VnaReentrantLock("orders");
        held.lock();
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(held);
            }
            Object read;
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                read = in.readObject();
            }
            VnaReentrantLock copy = assertInstanceOf(VnaReentrantLock.class, read);
            assertNotSame(held, copy);
            assertFalse(copy.isLocked(), "a deserialized lock is unlocked, as a ReentrantLock is");
            assertTrue(copy.tryLock());
            copy.unlock();
        } finally {
            held.unlock();
        }
    }

    /** {@code new VnaReentrantLock(fair)}, the agent's rewrite of a computed fairness: fair is the stock fair lock. */
    @Test
    void aLockMadeFairAtRunTimeIsReentrantLocksFairLockThroughout() throws Exception {
        assertTrue(new VnaReentrantLock(false).isVna());
        assertFalse(new VnaReentrantLock(false).isFair());
        assertTrue(new VnaReentrantLock(false, "named").isVna());
        Inspectable plain = new Inspectable();
        assertTrue(plain.isVna());

        VnaReentrantLock fair = new VnaReentrantLock(true, "ignored");
        assertFalse(fair.isVna());
        assertTrue(fair.isFair());
        fair.lock();
        fair.lock();
        assertEquals(2, fair.getHoldCount());
        assertTrue(fair.isHeldByCurrentThread() && fair.isLocked());
        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = startWaiter(fair, done);
        awaitQueued(fair, waiter);
        // The final methods read the superclass's queue, which is this lock's: they answer rightly here.
        assertTrue(fair.hasQueuedThreads() && fair.hasQueuedThread(waiter));
        assertEquals(1, fair.getQueueLength());
        assertEquals(1, VnaReentrantLock.getQueueLength(fair));
        assertEquals(List.of(waiter), List.copyOf(fair.queuedThreads()));
        assertTrue(fair.toString().contains("[Locked by thread "), fair.toString());
        fair.unlock();
        fair.unlock();
        assertTrue(done.await(30, TimeUnit.SECONDS));
        waiter.join();

        Condition c = fair.newCondition();
        assertFalse(c.getClass().getName().startsWith("io.numaloom"), "ReentrantLock's own condition");
        fair.lock();
        try {
            assertFalse(fair.hasWaiters(c));
            assertFalse(c.await(1, TimeUnit.MILLISECONDS));
            assertEquals(0, fair.getWaitQueueLength(c));
        } finally {
            fair.unlock();
        }
        assertThrows(IllegalMonitorStateException.class, fair::unlock);

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(fair);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            VnaReentrantLock copy = assertInstanceOf(VnaReentrantLock.class, in.readObject());
            assertTrue(copy.isFair() && !copy.isVna(), "read back, it is fair still");
        }
    }

    /** What the superclass's unused state costs: printed, and bounded by the parts it is made of. */
    @Test
    void itsSizeIsItsOwnObjectTheSuperclassesSynchronizerAndAVnaLock() {
        long mine = GraphLayout.parseInstance(new VnaReentrantLock()).totalSize();
        long reentrant = GraphLayout.parseInstance(new ReentrantLock()).totalSize();
        long vna = GraphLayout.parseInstance(new VnaLock()).totalSize();
        System.out.println("deep size: VnaReentrantLock " + mine + " B, ReentrantLock " + reentrant + " B, VnaLock " + vna + " B");
        assertTrue(mine <= reentrant + vna + 8, "VnaReentrantLock " + mine + " B: more than ReentrantLock + VnaLock + a field");
    }
}
