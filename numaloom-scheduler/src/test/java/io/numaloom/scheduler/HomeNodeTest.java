package io.numaloom.scheduler;

import io.numaloom.VnaLock;
import io.numaloom.topology.Topology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The "done when": on two virtual nodes, 128 virtual threads, 64 homed per node, check at every step (after
 * each yield, sleep, timed park, untimed park woken by a thread of the other node, lock acquisition and condition
 * wait on a shared {@link VnaLock}) that they run on a carrier of their home node; and the scheduler then shuts down
 * cleanly. On this machine the virtual nodes are the two real CPUs, so with pinned carriers the CPU is checked too.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HomeNodeTest {
    static final int PER_NODE = 64;
    static final int ROUNDS = 8;

    @BeforeAll
    static void twoVirtualNodes() {
        assertEquals(2, Topology.current().nodeCount(), "run with -Dnumaloom.topology=nodes=2 (the module's surefire does)");
    }

    @Test
    void everyStepOf128ThreadsRunsOnItsHomeNode() throws InterruptedException {
        NumaScheduler scheduler = NumaScheduler.builder().name("home").build();
        assertEquals(2, scheduler.nodes());
        Steps steps = new Steps(scheduler);
        VnaLock lock = new VnaLock();
        Condition turn = lock.newCondition();
        int[] counter = new int[1];
        boolean[] inside = new boolean[1];
        boolean[] overlap = new boolean[1];
        SynchronousQueue<Integer>[] pairs = newPairs();
        for (int node = 0; node < 2; node++) {
            for (int i = 0; i < PER_NODE; i++) {
                int home = node;
                SynchronousQueue<Integer> pair = pairs[i];
                steps.start(home, () -> {
                    for (int r = 0; r < ROUNDS; r++) {
                        Thread.yield();
                        steps.step(home, "after yield");
                        Thread.sleep(1);
                        steps.step(home, "after sleep");
                        LockSupport.parkNanos(20_000);
                        steps.step(home, "after timed park");
                        // untimed parks, each woken by the partner homed on the other node
                        if (home == 0) {
                            pair.put(r);
                            steps.step(home, "after put");
                            assertEquals(r, pair.take());
                            steps.step(home, "after take");
                        } else {
                            assertEquals(r, pair.take());
                            steps.step(home, "after take");
                            pair.put(r);
                            steps.step(home, "after put");
                        }
                        lock.lock();
                        try {
                            steps.step(home, "after lock");
                            if (inside[0]) {
                                overlap[0] = true;
                            }
                            inside[0] = true;
                            counter[0]++;
                            inside[0] = false;
                            turn.signal();
                            turn.awaitNanos(50_000);
                            steps.step(home, "after condition wait");
                        } finally {
                            lock.unlock();
                        }
                    }
                });
            }
        }
        steps.joinAll();
        assertFalse(overlap[0], "two threads inside the critical section at once");
        assertEquals(2 * PER_NODE * ROUNDS, counter[0]);
        assertEquals(2L * PER_NODE * (1 + ROUNDS * 7), steps.steps());
        scheduler.close();
        Steps.assertStopped(scheduler);
        System.out.println(scheduler + ": " + steps.steps() + " steps checked, cpu checked too: " + steps.cpuChecked());
    }

    /** On Linux with native access enabled (this module's surefire), the carriers really are pinned. */
    @Test
    void carriersArePinnedToTheirNodesCpus() {
        try (NumaScheduler scheduler = NumaScheduler.create()) {
            assertTrue(scheduler.pinned(), scheduler.placement());
            Topology topology = Topology.current();
            for (int node = 0; node < scheduler.nodes(); node++) {
                assertEquals(topology.cpusOfNode(node).length, scheduler.carriers(node).size(), "one carrier per cpu by default");
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static SynchronousQueue<Integer>[] newPairs() {
        SynchronousQueue<Integer>[] pairs = new SynchronousQueue[PER_NODE];
        for (int i = 0; i < PER_NODE; i++) {
            pairs[i] = new SynchronousQueue<>();
        }
        return pairs;
    }
}
