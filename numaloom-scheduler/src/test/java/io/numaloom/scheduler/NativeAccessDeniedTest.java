package io.numaloom.scheduler;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs in the surefire execution {@code native-denied}: the flag is given but {@code --illegal-native-access=deny}
 * forbids FFM downcalls. The scheduler still starts; its carriers run unpinned and say why; and every step of its
 * threads still runs on a carrier of the home node (only the CPU is no longer fixed).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NativeAccessDeniedTest {

    @Test
    void carriersRunUnpinnedAndThreadsStayHome() throws InterruptedException {
        assertEquals("deny", System.getProperty("jdk.module.illegal.native.access", "deny"));
        assertTrue(CpuAffinity.unavailableReason().isPresent(), "linking sched_setaffinity is denied");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> CpuAffinity.pinCurrentThread(0));
        assertTrue(CpuAffinity.allowedCpus().isEmpty());
        try (NumaScheduler scheduler = NumaScheduler.create()) {
            assertFalse(scheduler.pinned(), scheduler.placement());
            assertTrue(scheduler.placement().contains("not pinned"), scheduler.placement());
            System.out.println(scheduler.placement());
            Steps steps = new Steps(scheduler);
            assertFalse(steps.cpuChecked());
            for (int node = 0; node < scheduler.nodes(); node++) {
                int home = node;
                for (int i = 0; i < 16; i++) {
                    steps.start(home, () -> {
                        for (int r = 0; r < 20; r++) {
                            Thread.yield();
                            steps.step(home, "after yield");
                            LockSupport.parkNanos(10_000);
                            steps.step(home, "after timed park");
                        }
                    });
                }
            }
            steps.joinAll();
        }
    }

    /**
     * Without native access the locks cannot ask {@code sched_getcpu}; a thread of a NumaScheduler is queued on its
     * home node's queue all the same, told by the scheduler (see {@link LockHomeNodeTest}).
     */
    @Test
    void locksStillQueueOnTheHomeNode(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        assertEquals(io.numaloom.topology.CurrentCpu.Source.THREAD_SPREAD, io.numaloom.topology.CurrentCpu.source());
        try (NumaScheduler scheduler = NumaScheduler.create()) {
            assertTrue(scheduler.homeNodeForLocks());
            for (boolean keyed : new boolean[] {false, true}) {
                LockHomeNodeTest.Outcome o = LockHomeNodeTest.waitOnce(dir, scheduler.threadFactory(1), keyed);
                assertEquals(1, o.waiterQueue());
                assertEquals(new io.numaloom.LockDiagnostics.Placements(1, 0), o.placements());
            }
        }
    }
}
