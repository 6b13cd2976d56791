package io.numaloom.scheduler;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The carriers' idle spin ({@link NumaScheduler.Builder#idleSpin(Duration)}): its bounds, and that with no spin and
 * with the longest one, threads homed on two nodes that wake each other keep running on their home nodes, a carrier
 * that spun and then parked is woken by a later mount, and close() stops carriers whatever they are doing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IdleSpinTest {

    @Test
    void boundsAreChecked() {
        NumaScheduler.Builder b = NumaScheduler.builder();
        assertThrows(IllegalArgumentException.class, () -> b.idleSpin(Duration.ofNanos(-1)));
        assertThrows(IllegalArgumentException.class, () -> b.idleSpin(Duration.ofNanos(1_000_001)));
        assertThrows(NullPointerException.class, () -> b.idleSpin(null));
        b.idleSpin(Duration.ZERO);
        b.idleSpin(Duration.ofMillis(1));
    }

    @Test
    void pingPongAcrossNodesWithoutSpin() throws InterruptedException {
        pingPong(Duration.ZERO);
    }

    @Test
    void pingPongAcrossNodesWithLongestSpin() throws InterruptedException {
        pingPong(Duration.ofMillis(1));
    }

    private static void pingPong(Duration spin) throws InterruptedException {
        try (NumaScheduler scheduler = NumaScheduler.builder().carriersPerNode(1).idleSpin(spin).build()) {
            int other = scheduler.nodes() - 1;
            int rounds = 2_000;
            int[] wrongNode = new int[1];
            Thread[] pair = new Thread[2];
            int[] turn = {0};
            Object lock = new Object();
            pair[0] = scheduler.threadFactory(0).newThread(() -> {
                for (int i = 0; i < rounds; i++) {
                    synchronized (lock) {
                        turn[0] = 1;
                    }
                    LockSupport.unpark(pair[1]);
                    while (true) {
                        synchronized (lock) {
                            if (turn[0] == 0) {
                                break;
                            }
                        }
                        LockSupport.park();
                    }
                    if (NumaScheduler.currentCarrierNode() != 0) {
                        wrongNode[0]++;
                    }
                }
            });
            pair[1] = scheduler.threadFactory(other).newThread(() -> {
                for (int i = 0; i < rounds; i++) {
                    while (true) {
                        synchronized (lock) {
                            if (turn[0] == 1) {
                                turn[0] = 0;
                                break;
                            }
                        }
                        LockSupport.park();
                    }
                    LockSupport.unpark(pair[0]);
                    if (NumaScheduler.currentCarrierNode() != other) {
                        wrongNode[0]++;
                    }
                }
            });
            pair[1].start();
            pair[0].start();
            assertTrue(pair[0].join(Duration.ofSeconds(Steps.DEADLINE_SECONDS)), "ping did not finish");
            assertTrue(pair[1].join(Duration.ofSeconds(Steps.DEADLINE_SECONDS)), "pong did not finish");
            assertEquals(0, wrongNode[0]);
            // The carriers are idle now (spinning, or parked after the spin); a later mount must still run.
            Thread.sleep(5);
            Thread late = scheduler.threadFactory(other).newThread(() -> { });
            late.start();
            assertTrue(late.join(Duration.ofSeconds(Steps.DEADLINE_SECONDS)), "a mount after the carriers went idle did not run");
        }
    }
}
