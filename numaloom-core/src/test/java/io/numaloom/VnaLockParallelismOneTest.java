package io.numaloom;

import io.numaloom.topology.Topology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * On one carrier, an owner that takes and releases the lock in a loop, never parking or
     * yielding, still lets the heir in: the heir, woken onto that carrier, cannot run to reserve
     * the lock, so once the heir is overdue the owner's contended releases yield the carrier. The
     * owner barges for at most 30 s; without the yield the heir would get the lock only after
     * that. Timing enters only through the 30 s, tens of thousands of times the heir's 1 ms patience.
     * This execution counts diagnostics, and the yield is counted.
     */
    @Test
    void aBargingOwnerYieldsItsCarrierToAnOverdueHeir() throws InterruptedException {
        VnaLock lock = VnaLock.withPlacement(1, () -> 0);
        AtomicBoolean heirAcquired = new AtomicBoolean();
        AtomicBoolean heirAcquiredWhileBarging = new AtomicBoolean();
        AtomicLong bargedFor = new AtomicLong();
        LockDiagnostics.Counts before = LockDiagnostics.snapshot();
        Thread owner = Thread.ofVirtual().start(() -> {
            lock.lock();
            Thread heir = Thread.ofVirtual().start(() -> {
                lock.lock();
                heirAcquired.set(true);
                lock.unlock();
            });
            while (!lock.hasQueuedThreads()) {
                Thread.yield(); // holding the lock: the heir runs, queues and parks
            }
            lock.unlock();
            long start = System.nanoTime();
            long end = start + VnaLockTest.PATIENCE.toNanos();
            while (!heirAcquired.get() && System.nanoTime() - end < 0) {
                lock.lock();
                lock.unlock();
            }
            bargedFor.set(System.nanoTime() - start);
            heirAcquiredWhileBarging.set(heirAcquired.get());
            try {
                heir.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        owner.join();
        assertTrue(heirAcquiredWhileBarging.get(), "the heir did not get the lock while the owner barged for "
                + bargedFor.get() / 1_000_000 + " ms");
        assertTrue(heirAcquired.get());
        assertFalse(lock.isLocked());
        assertTrue(LockDiagnostics.enabled(), "this execution runs with -Dnumaloom.diagnostics=true");
        assertTrue(LockDiagnostics.snapshot().minus(before).yields() >= 1, "the owner's yield was not counted");
    }

    /**
     * The scenario of {@link ReservedLockScenario} on one carrier: the heir that reserved the lock was
     * woken onto the carrier that the owner, retrying {@code tryLock()}, keeps busy. The release that
     * woke it yields the carrier, so the heir takes its lock and the spinner gets the lock after it;
     * a reservation that lapses would let the spinner in too. Before either, {@code tryLock()}
     * failed for as long as the owner spun: forever.
     */
    @ParameterizedTest(name = "spinners: {0}")
    @ValueSource(ints = {1, 2})
    void tryLockGetsALockWhoseReservingHeirWaitsForTheSpinnersCarrier(int spinners) throws InterruptedException {
        ReservedLockScenario.Outcome o = ReservedLockScenario.runRepeatedly(
                () -> ReservedLockScenario.Scenario.of(new VnaLock()), spinners, Thread.ofVirtual());
        System.out.println("VnaLock at parallelism 1, " + spinners + " spinners: " + o);
        o.assertEverySpinnerAcquired();
    }

    @Test
    void tryLockGetsAKeyWhoseReservingHeirWaitsForTheSpinnersCarrier() throws InterruptedException {
        KeyedLock<Integer> locks = new KeyedLock<>();
        Integer key = 12_345;
        ReservedLockScenario.Outcome o = ReservedLockScenario.runRepeatedly(
                () -> ReservedLockScenario.Scenario.of(locks, key), 1, Thread.ofVirtual());
        System.out.println("KeyedLock key at parallelism 1: " + o);
        o.assertEverySpinnerAcquired();
        assertEquals(0, locks.activeKeys());
    }

    @Test
    void stormsOnOneCarrier() {
        new VnaLockTest().timeoutAndInterruptStormsLoseNoWakeUp(4);
    }
}
