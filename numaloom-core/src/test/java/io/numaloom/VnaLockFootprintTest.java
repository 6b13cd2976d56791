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

    /**
     * Names cost unnamed locks nothing: a plain lock's shallow size is what it was before names
     * (40 bytes, compressed oops and class pointers) and only {@code VnaLock.named} pays for its field.
     */
    @Test
    void aNameCostsOnlyTheNamedLock() {
        long plain = ClassLayout.parseInstance(new VnaLock()).instanceSize();
        long named = ClassLayout.parseInstance(VnaLock.named("orders")).instanceSize();
        System.out.println("shallow size: VnaLock " + plain + " B, VnaLock.named " + named + " B");
        assertTrue(plain <= 40, "an unnamed VnaLock grew to " + plain + " B");
        assertTrue(named <= plain + 8, "a named VnaLock is " + named + " B");
    }

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

    /**
     * Every hot field of the contended state lies at least 128 bytes (two cache lines, an adjacent-line
     * prefetch pair) after the start of the object and before the end of its padding: none in the gap after
     * the object header, where the JVM may place a subclass's small field.
     */
    @Test
    void theHotFieldsLieInsideTheirPadding() {
        ClassLayout layout = ClassLayout.parseClass(VnaWaiters.class);
        System.out.println(layout.toPrintable());
        long firstPadAfter = Long.MAX_VALUE;
        for (var f : layout.fields()) {
            if (f.hostClass().endsWith("VnaWaitersPadAfter")) {
                firstPadAfter = Math.min(firstPadAfter, f.offset());
            }
        }
        int hot = 0;
        for (var f : layout.fields()) {
            if (f.hostClass().endsWith("VnaWaitersHot")) {
                hot++;
                assertTrue(f.offset() >= 128, f.name() + " at offset " + f.offset() + ", within 128 B of the object's start");
                assertTrue(f.offset() + f.size() <= firstPadAfter,
                        f.name() + " at offset " + f.offset() + " is not before the padding after it (" + firstPadAfter + ")");
            }
        }
        assertTrue(hot >= 5, "found " + hot + " hot fields");
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

    /**
     * Deterministic under load: allocation is read from the thread's own counter, and the
     * verdict is the minimum over several windows. Anything that allocates per call allocates
     * at least 16 bytes in every window of 200,000 calls; a one-off disturbance (a
     * deoptimization, a reflective accessor, a safepoint operation charged to this thread)
     * shows up in one window, not in all of them. The probe's own cost is measured the same way,
     * over empty windows, and subtracted.
     */
    @Test
    void uncontendedLockUnlockAllocatesNothing() throws Exception {
        VnaLock lock = new VnaLock();
        AllocationProbe probe = new AllocationProbe();
        lockUnlock(lock, 200_000); // warm up, compile
        long minEmpty = Long.MAX_VALUE;
        long minWork = Long.MAX_VALUE;
        StringBuilder windows = new StringBuilder();
        for (int window = 0; window < WINDOWS; window++) {
            long a = probe.allocatedBytes();
            long b = probe.allocatedBytes();
            lockUnlock(lock, 200_000);
            long c = probe.allocatedBytes();
            minEmpty = Math.min(minEmpty, b - a);
            minWork = Math.min(minWork, c - b);
            windows.append(c - b).append(' ');
        }
        assertTrue(minWork <= minEmpty, "every window of 200k uncontended lock/unlock pairs allocated: "
                + windows + "bytes (probe alone: " + minEmpty + " bytes)");
        assertTrue(lock.tryLock());
        lock.unlock();
    }

    private static final int WINDOWS = 8;

    /**
     * The current thread's allocated bytes from com.sun.management.ThreadMXBean, through
     * reflection (the test runs inside module io.numaloom, which does not read
     * java.management). A reading allocates a little itself (the boxed result); callers measure that
     * over empty windows.
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
