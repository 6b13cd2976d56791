package io.numaloom;

import io.numaloom.topology.Topology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Liveness on one carrier: 64 virtual threads that call {@link Thread#yield()} inside the
 * critical section must all finish. Runs in its own surefire execution (tag
 * {@code parallelism1}) whose JVM has {@code -Djdk.virtualThreadScheduler.parallelism=1} and
 * {@code -Dnumaloom.topology=nodes=2}, so the default constructors really use two queues.
 */
@Tag("parallelism1")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VnaLockParallelismOneTest {

    @BeforeAll
    static void theJvmIsConfigured() {
        assertEquals("1", System.getProperty("jdk.virtualThreadScheduler.parallelism"),
                "run through the parallelism1 surefire execution");
        assertEquals(2, Topology.current().nodeCount(), "numaloom.topology=nodes=2 must be in effect");
    }

    @Test
    void perNodeLockOnTwoVirtualNodes() {
        VnaLock lock = new VnaLock();
        assertEquals(2, lock.queueCount());
        VnaLockTest.runContended(lock, 64, 200, true, true);
    }

    @Test
    void perSocketLockOnTwoVirtualSockets() {
        VnaLock lock = VnaLock.perSocket();
        assertEquals(2, lock.queueCount());
        VnaLockTest.runContended(lock, 64, 200, true, true);
    }

    @Test
    void fourQueues() {
        VnaLockTest.runContended(VnaLockTest.spread(4), 64, 200, true, true);
    }

    @Test
    void stormsOnOneCarrier() {
        new VnaLockTest().timeoutAndInterruptStormsLoseNoWakeUp(4);
    }
}
