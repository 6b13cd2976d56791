package io.numaloom.scheduler;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stall detection: a thread that holds node 0's only carrier without yielding, while another thread homed on node 0
 * waits for it, is reported as a stall (counted and recorded as {@code io.numaloom.CarrierStall}); the waiting
 * thread runs once the holder lets go. The test waits for the report, not for a time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StallDetectionTest {

    @Test
    void aCarrierHeldWhileOthersWaitIsReported() throws InterruptedException {
        ConcurrentLinkedQueue<RecordedEvent> events = new ConcurrentLinkedQueue<>();
        try (RecordingStream stream = new RecordingStream();
             NumaScheduler scheduler = NumaScheduler.builder().carriersPerNode(1).name("stall")
                     .stallDetection(Duration.ofMillis(5)).build()) {
            stream.enable(CarrierStallEvent.NAME);
            stream.onEvent(CarrierStallEvent.NAME, events::add);
            stream.startAsync();
            AtomicBoolean holding = new AtomicBoolean();
            AtomicBoolean release = new AtomicBoolean();
            AtomicBoolean waiterRan = new AtomicBoolean();
            Thread holder = scheduler.threadFactory(0).newThread(() -> {
                holding.set(true);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Steps.DEADLINE_SECONDS);
                while (!release.get() && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // holds the carrier: no park, no yield
                }
            });
            holder.start();
            ShutdownTest.await(holding::get, "the holder runs");
            Thread waiter = scheduler.threadFactory(0).newThread(() -> waiterRan.set(true));
            waiter.start();
            ShutdownTest.await(() -> scheduler.stalls() > 0, "a stall is counted");
            ShutdownTest.await(() -> !events.isEmpty(), "a CarrierStall event is recorded");
            assertTrue(!waiterRan.get(), "the waiter cannot run while the holder has node 0's only carrier");
            release.set(true);
            ShutdownTest.join(holder);
            ShutdownTest.join(waiter);
            assertTrue(waiterRan.get());
            RecordedEvent e = events.peek();
            assertEquals("stall", e.getString("scheduler"));
            assertEquals(0, e.getInt("node"));
            assertTrue(e.getInt("queued") >= 1, e.toString());
            assertTrue(e.getDuration("heldFor").toMillis() >= 5, e.toString());
            assertEquals("stall-node0-carrier0", e.getThread("carrier").getJavaName());
        }
    }

    @Test
    void offByDefaultAndThresholdMustBePositive() {
        try (NumaScheduler scheduler = NumaScheduler.builder().carriersPerNode(1).build()) {
            assertEquals(0, scheduler.stalls());
        }
        assertThrows(IllegalArgumentException.class, () -> NumaScheduler.builder().stallDetection(Duration.ZERO));
    }
}
