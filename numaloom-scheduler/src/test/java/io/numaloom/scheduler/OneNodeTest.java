package io.numaloom.scheduler;

import io.numaloom.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scheduler on a machine with one NUMA node (a one-node topology, whatever this JVM's {@code numaloom.topology}):
 * a node it does not have is an {@link IllegalArgumentException} that says how many it has and how to get more, and
 * code that picks its node from {@link NumaScheduler#nodes()}, as the README does, runs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OneNodeTest {

    private static NumaScheduler oneNode() {
        return NumaScheduler.builder().topology(Topology.parse("nodes=1")).carriersPerNode(1).name("one-node").build();
    }

    @Test
    void aNodeBeyondTheOnlyOneNamesTheNodeCountAndTheVirtualTopology() {
        try (NumaScheduler scheduler = oneNode()) {
            assertEquals(1, scheduler.nodes());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> scheduler.threadFactory(1));
            assertTrue(e.getMessage().startsWith("node 1 is not a node of this scheduler, which has 1 node (0)"), e.getMessage());
            assertTrue(e.getMessage().contains("-Dnumaloom.topology=nodes=2"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> scheduler.threadFactory(-1));
        }
    }

    @Test
    void theLastNodeIsAlwaysANode() throws Exception {
        AtomicInteger ranOn = new AtomicInteger(-2);
        try (NumaScheduler scheduler = oneNode(); ExecutorService executor = scheduler.newThreadPerTaskExecutor()) {
            executor.submit(() -> { }).get();
            ThreadFactory onLast = scheduler.threadFactory(scheduler.nodes() - 1);
            Thread t = onLast.newThread(() -> ranOn.set(NumaScheduler.currentCarrierNode()));
            assertEquals(0, NumaScheduler.homeNode(t));
            t.start();
            t.join();
        }
        assertEquals(0, ranOn.get(), "it ran on node 0's carrier");
    }
}
