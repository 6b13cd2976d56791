package io.numaloom.scheduler;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spare carriers: node 0's only carrier is held by a thread that does not yield until a second thread homed on node 0
 * has run. Only a spare carrier of node 0 can run that second thread (stealing is off), so the holder finishing
 * before its deadline shows the spare worked; the spare then retires once idle, and close() stops everything.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpareCarrierTest {

    @Test
    void aNodeWhoseCarrierIsHeldGetsASpareThatRetiresWhenIdle() throws InterruptedException {
        NumaScheduler scheduler = NumaScheduler.builder().carriersPerNode(1).name("spare")
                .stallDetection(Duration.ofMillis(5)).spareCarriers(true).build();
        AtomicBoolean holding = new AtomicBoolean();
        AtomicBoolean released = new AtomicBoolean();
        AtomicInteger ranOnNode = new AtomicInteger(-2);
        AtomicReference<String> ranOnCarrier = new AtomicReference<>();
        Thread holder = scheduler.threadFactory(0).newThread(() -> {
            holding.set(true);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Steps.DEADLINE_SECONDS);
            while (!released.get() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        });
        holder.start();
        ShutdownTest.await(holding::get, "the holder runs");
        Thread waiter = scheduler.threadFactory(0).newThread(() -> {
            ranOnNode.set(NumaScheduler.currentCarrierNode());
            ranOnCarrier.set(Steps.carrier().getName());
            released.set(true);
        });
        waiter.start();
        ShutdownTest.join(waiter);
        ShutdownTest.join(holder);
        assertTrue(released.get());
        assertEquals(0, ranOnNode.get(), "the spare is a carrier of the home node");
        assertTrue(ranOnCarrier.get().startsWith("spare-node0-spare"), ranOnCarrier.get());
        assertTrue(scheduler.sparesStarted() >= 1);
        assertTrue(scheduler.stalls() >= 1);
        ShutdownTest.await(() -> scheduler.liveSpares() == 0, "the idle spare retires");
        scheduler.close();
        Steps.assertStopped(scheduler);
        assertFalse(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("spare-")),
                "no carrier, spare or watcher of the scheduler is left");
    }

    @Test
    void sparesNeedStallDetection() {
        assertThrows(IllegalStateException.class, () -> NumaScheduler.builder().spareCarriers(true).build());
    }
}
