package io.numaloom.scheduler;

import io.numaloom.VnaLock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs in the surefire execution {@code without-flag}, a JVM without {@code --add-opens java.base/java.lang=...}:
 * the scheduler refuses to start with a message naming the flag, the static queries answer -1, and numaloom-core
 * works as ever.
 */
class WithoutFlagTest {

    @Test
    void createNamesTheFlag() {
        assertTrue(ModuleLayer.boot().findModule("java.base").orElseThrow()
                        .isOpen("java.lang", WithoutFlagTest.class.getModule()) == false,
                "this test must run in a JVM without --add-opens java.base/java.lang");
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, NumaScheduler::create);
        assertTrue(e.getMessage().contains("--add-opens java.base/java.lang=ALL-UNNAMED"), e.getMessage());
        UnsupportedOperationException again = assertThrows(UnsupportedOperationException.class,
                () -> NumaScheduler.builder().carriersPerNode(1).build());
        assertTrue(again.getMessage().contains("--add-opens java.base/java.lang=ALL-UNNAMED"), again.getMessage());
    }

    @Test
    void queriesAnswerMinusOne() throws InterruptedException {
        assertEquals(-1, NumaScheduler.homeNode(Thread.currentThread()));
        assertEquals(-1, NumaScheduler.currentCarrierNode());
        int[] seen = new int[2];
        Thread.ofVirtual().start(() -> {
            seen[0] = NumaScheduler.homeNode(Thread.currentThread());
            seen[1] = NumaScheduler.currentCarrierNode();
        }).join();
        assertEquals(-1, seen[0]);
        assertEquals(-1, seen[1]);
    }

    @Test
    void theCoreNeedsNoFlag() throws InterruptedException {
        VnaLock lock = new VnaLock();
        int[] counter = new int[1];
        Thread[] threads = new Thread[8];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = Thread.ofVirtual().start(() -> {
                for (int k = 0; k < 1000; k++) {
                    lock.lock();
                    try {
                        counter[0]++;
                    } finally {
                        lock.unlock();
                    }
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(8000, counter[0]);
    }
}
