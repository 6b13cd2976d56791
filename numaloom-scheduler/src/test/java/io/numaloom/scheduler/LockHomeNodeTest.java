package io.numaloom.scheduler;

import io.numaloom.KeyedLock;
import io.numaloom.LockDiagnostics;
import io.numaloom.VnaLock;
import io.numaloom.topology.HomeNode;
import io.numaloom.topology.Topology;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * VnaLock and KeyedLock cooperate with NumaScheduler through {@link HomeNode}: a thread of a NumaScheduler homed on
 * node 1 that has to wait for a per-node lock is queued on queue 1, and the lock does not ask which CPU it runs on
 * (the {@link LockDiagnostics#placements()} count of placements by CPU, which is where {@code sched_getcpu} would be
 * called, does not move); a platform thread and a virtual thread of the JDK's scheduler are placed by their CPU as
 * before. The queue is read from the {@code io.numaloom.LockContended} JFR event. Runs with
 * {@code -Dnumaloom.topology=nodes=2} and {@code -Dnumaloom.diagnostics=true} (the module's surefire settings).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockHomeNodeTest {

    /** What one contended acquisition did: the waiter's queue from its JFR event, and the placement counts. */
    record Outcome(int waiterQueue, LockDiagnostics.Placements placements) {}

    @Test
    void aNumaSchedulerThreadQueuesOnItsHomeNodeWithoutAskingTheCpu(@TempDir Path dir) throws Exception {
        assertTrue(LockDiagnostics.enabled(), "needs -Dnumaloom.diagnostics=true");
        assertEquals(2, Topology.current().nodeCount(), "needs -Dnumaloom.topology=nodes=2");
        try (NumaScheduler scheduler = NumaScheduler.create()) {
            assertTrue(scheduler.homeNodeForLocks());
            for (int node = 0; node < 2; node++) {
                for (boolean keyed : new boolean[] {false, true}) {
                    Outcome o = waitOnce(dir, scheduler.threadFactory(node), keyed);
                    String what = (keyed ? "KeyedLock key" : "VnaLock") + ", thread homed on node " + node;
                    assertEquals(node, o.waiterQueue(), what);
                    assertEquals(new LockDiagnostics.Placements(1, 0), o.placements(), what);
                }
            }
        }
    }

    @Test
    void otherThreadsArePlacedByTheirCpu(@TempDir Path dir) throws Exception {
        assertTrue(LockDiagnostics.enabled(), "needs -Dnumaloom.diagnostics=true");
        try (NumaScheduler scheduler = NumaScheduler.create()) {
            assertTrue(scheduler.homeNodeForLocks());
            for (ThreadFactory factory : List.of(Thread.ofPlatform().factory(), Thread.ofVirtual().factory())) {
                for (boolean keyed : new boolean[] {false, true}) {
                    Outcome o = waitOnce(dir, factory, keyed);
                    assertEquals(new LockDiagnostics.Placements(0, 1), o.placements(), factory + ", keyed " + keyed);
                    assertTrue(o.waiterQueue() == 0 || o.waiterQueue() == 1, o.toString());
                }
            }
        }
    }

    @Test
    void aSchedulerOfAnotherTopologyDoesNotSteerLocks() {
        try (NumaScheduler scheduler = NumaScheduler.builder().topology(Topology.parse("nodes=1")).build()) {
            assertFalse(scheduler.homeNodeForLocks());
            int[] seen = {-2, -2};
            Thread t = scheduler.threadFactory(0).newThread(() -> {
                seen[0] = NumaScheduler.homeNode(Thread.currentThread());
                seen[1] = HomeNode.of(Thread.currentThread());
            });
            t.start();
            assertTrue(join(t));
            assertEquals(0, seen[0]);
            assertEquals(-1, seen[1], "its node 0 is not node 0 of Topology.current()");
        }
    }

    /**
     * Holds a fresh lock (a VnaLock, or one key of a KeyedLock) on this thread, starts a thread of {@code factory}
     * that locks it, waits until that thread is queued, counts the placements made meanwhile, releases, and reads the
     * waiter's queue from its JFR event.
     */
    static Outcome waitOnce(Path dir, ThreadFactory factory, boolean keyed) throws Exception {
        VnaLock lock = new VnaLock();
        KeyedLock<String> keyedLock = new KeyedLock<>();
        Runnable acquireRelease = keyed
                ? () -> { keyedLock.lock("k"); keyedLock.unlock("k"); }
                : () -> { lock.lock(); lock.unlock(); };
        Path file = Files.createTempFile(dir, "events", ".jfr");
        LockDiagnostics.Placements placements;
        try (Recording r = new Recording()) {
            r.enable("io.numaloom.LockContended").withThreshold(Duration.ZERO);
            r.start();
            if (keyed) {
                keyedLock.lock("k");
            } else {
                lock.lock();
            }
            LockDiagnostics.Placements before = LockDiagnostics.placements();
            Thread waiter = factory.newThread(acquireRelease);
            waiter.start();
            BooleanSupplier queued = keyed ? () -> keyedLock.getQueueLength("k") == 1 : () -> lock.hasQueuedThread(waiter);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Steps.DEADLINE_SECONDS);
            while (!queued.getAsBoolean()) {
                assertTrue(System.nanoTime() < deadline, "the waiter never queued");
                Thread.sleep(1);
            }
            placements = LockDiagnostics.placements().minus(before);
            if (keyed) {
                keyedLock.unlock("k");
            } else {
                lock.unlock();
            }
            assertTrue(join(waiter));
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.numaloom.LockContended"))
                .filter(e -> e.getBoolean("queued"))
                .toList();
        assertEquals(1, events.size(), events.toString());
        return new Outcome(events.get(0).getInt("waiterQueue"), placements);
    }

    private static boolean join(Thread t) {
        try {
            return t.join(Duration.ofSeconds(Steps.DEADLINE_SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
