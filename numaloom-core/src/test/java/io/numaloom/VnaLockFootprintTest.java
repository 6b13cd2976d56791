package io.numaloom;

import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.GraphLayout;

import java.lang.reflect.Method;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Footprint and allocation are features: a fresh lock is no bigger than a fresh ReentrantLock,
 * and the uncontended lock/unlock pair allocates nothing. Sizes come from JOL; allocation from
 * the thread's allocated-bytes counter, which is exact (not a timing).
 */
class VnaLockFootprintTest {

    @Test
    void aFreshLockIsNoBiggerThanReentrantLock() {
        long vna = GraphLayout.parseInstance(new VnaLock()).totalSize();
        long perSocket = GraphLayout.parseInstance(VnaLock.perSocket()).totalSize();
        long reentrant = GraphLayout.parseInstance(new ReentrantLock()).totalSize();
        System.out.println("deep size: VnaLock " + vna + " B, VnaLock.perSocket " + perSocket
                + " B, ReentrantLock " + reentrant + " B");
        System.out.println(ClassLayout.parseClass(VnaLock.class).toPrintable());
        assertTrue(vna <= reentrant, "VnaLock " + vna + " B > ReentrantLock " + reentrant + " B");
        assertTrue(perSocket <= reentrant, "perSocket " + perSocket + " B > ReentrantLock " + reentrant + " B");
    }

    @Test
    void queuesAppearOnFirstContentionAndArePadded() throws Exception {
        VnaLock lock = VnaLockTest.spread(2);
        long fresh = GraphLayout.parseInstance(lock).totalSize();
        lock.lock();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            lock.unlock();
        });
        VnaLockTest.awaitCondition(() -> lock.getQueueLength() == 1, "a waiter");
        lock.unlock();
        waiter.join();
        // Exclude the waiter's cached queue node: it belongs to the thread, not the lock.
        long contended = GraphLayout.parseInstance(lock).totalSize();
        System.out.println("deep size of a 2-queue VnaLock: fresh " + fresh + " B, after contention " + contended + " B");
        // Padded hot fields (2 x 128 B) plus 4 slots of 32 references each.
        assertTrue(contended - fresh >= 256 + 4 * 32 * 4, "queues are not padded: " + (contended - fresh) + " B");
    }

    @Test
    void uncontendedLockUnlockAllocatesNothing() throws Exception {
        VnaLock lock = new VnaLock();
        AllocationProbe probe = new AllocationProbe();
        lockUnlock(lock, 200_000); // warm up, compile
        long probeCost = probe.cost();
        long before = probe.allocatedBytes();
        lockUnlock(lock, 1_000_000);
        long allocated = probe.allocatedBytes() - before - probeCost;
        assertTrue(allocated <= 0, allocated + " bytes allocated by 1M uncontended lock/unlock pairs");
        assertTrue(lock.tryLock());
        lock.unlock();
    }

    /**
     * The current thread's allocated bytes from com.sun.management.ThreadMXBean, through
     * reflection (the test runs inside module io.numaloom, which does not read
     * java.management). A reading allocates a little itself (the boxed result); {@link #cost()}
     * measures that so it can be subtracted.
     */
    static final class AllocationProbe {
        private final Object bean;
        private final Method method;

        AllocationProbe() throws ReflectiveOperationException {
            bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            method = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
            for (int i = 0; i < 1_000; i++) {
                allocatedBytes();
            }
        }

        long allocatedBytes() throws ReflectiveOperationException {
            return (long) method.invoke(bean);
        }

        long cost() throws ReflectiveOperationException {
            long max = 0;
            for (int i = 0; i < 10; i++) {
                long a = allocatedBytes();
                max = Math.max(max, allocatedBytes() - a);
            }
            return max;
        }
    }

    private static void lockUnlock(VnaLock lock, int n) {
        for (int i = 0; i < n; i++) {
            lock.lock();
            lock.lock();
            lock.unlock();
            lock.unlock();
        }
    }
}
