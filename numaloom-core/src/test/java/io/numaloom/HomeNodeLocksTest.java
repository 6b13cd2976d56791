package io.numaloom;

import io.numaloom.topology.HomeNode;
import io.numaloom.topology.Topology;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Per-node locks and {@link HomeNode}, on two virtual nodes with the diagnostics counters on (the surefire execution
 * {@code parallelism-1-two-nodes}): a waiter whose home node the installed resolver knows is queued on that node's
 * queue, VnaLock and KeyedLock alike, and the lock does not ask for its CPU ({@link LockDiagnostics#placements()});
 * a waiter the resolver does not know (or answers wrongly for) is placed by its CPU as before.
 */
@Tag("parallelism1")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HomeNodeLocksTest {

    @TempDir
    Path dir;

    @Test
    void aKnownHomeNodeChoosesTheQueueWithoutAskingTheCpu() throws Exception {
        assertEquals(2, Topology.current().nodeCount());
        assertTrue(LockDiagnostics.enabled());
        for (int home = 0; home < 2; home++) {
            for (boolean keyed : new boolean[] {false, true}) {
                int answer = home;
                AtomicInteger asked = new AtomicInteger();
                HomeNode.Resolver r = t -> {
                    asked.incrementAndGet();
                    return t.getName().equals("homed") ? answer : -1;
                };
                int[] queue = new int[1];
                LockDiagnostics.Placements p = withResolver(r, () -> waitOnce(keyed, "homed", queue));
                String what = (keyed ? "KeyedLock" : "VnaLock") + " home " + home;
                assertEquals(new LockDiagnostics.Placements(1, 0), p, what);
                assertEquals(home, queue[0], what);
                assertEquals(1, asked.get(), what);
            }
        }
    }

    @Test
    void anUnknownOrWrongHomeNodeFallsBackToTheCpu() throws Exception {
        for (int wrong : new int[] {-1, 2, 99}) {
            for (boolean keyed : new boolean[] {false, true}) {
                int[] queue = new int[1];
                LockDiagnostics.Placements p = withResolver(t -> wrong, () -> waitOnce(keyed, "plain", queue));
                assertEquals(new LockDiagnostics.Placements(0, 1), p, "answer " + wrong + ", keyed " + keyed);
                assertTrue(queue[0] == 0 || queue[0] == 1);
            }
        }
        int[] queue = new int[1];
        LockDiagnostics.Placements p = waitOnce(false, "no resolver", queue);
        assertEquals(new LockDiagnostics.Placements(0, 1), p);
    }

    interface Body {
        LockDiagnostics.Placements run() throws Exception;
    }

    private static LockDiagnostics.Placements withResolver(HomeNode.Resolver r, Body body) throws Exception {
        assertTrue(HomeNode.install(r));
        try {
            return body.run();
        } finally {
            assertTrue(HomeNode.uninstall(r));
        }
    }

    /**
     * This thread holds a fresh lock while a virtual thread named {@code name} queues on it; returns the placements
     * made meanwhile and puts the waiter's queue, from its JFR event, in {@code queue[0]}.
     */
    private LockDiagnostics.Placements waitOnce(boolean keyed, String name, int[] queue) throws Exception {
        VnaLock lock = new VnaLock();
        KeyedLock<String> keyedLock = new KeyedLock<>();
        LockDiagnostics.Placements[] placements = new LockDiagnostics.Placements[1];
        List<RecordedEvent> events = LockEventsTest.record(dir, LockContendedEvent.NAME, () -> {
            if (keyed) {
                keyedLock.lock("k");
            } else {
                lock.lock();
            }
            LockDiagnostics.Placements before = LockDiagnostics.placements();
            Thread waiter = Thread.ofVirtual().name(name).start(keyed
                    ? () -> { keyedLock.lock("k"); keyedLock.unlock("k"); }
                    : () -> { lock.lock(); lock.unlock(); });
            BooleanSupplier queued = keyed ? () -> keyedLock.getQueueLength("k") == 1 : () -> lock.hasQueuedThread(waiter);
            while (!queued.getAsBoolean()) {
                Thread.sleep(1);
            }
            placements[0] = LockDiagnostics.placements().minus(before);
            if (keyed) {
                keyedLock.unlock("k");
            } else {
                lock.unlock();
            }
            waiter.join();
        });
        List<RecordedEvent> queuedEvents = events.stream().filter(e -> e.getBoolean("queued")).toList();
        assertEquals(1, queuedEvents.size(), events.toString());
        queue[0] = queuedEvents.get(0).getInt("waiterQueue");
        return placements[0];
    }
}
