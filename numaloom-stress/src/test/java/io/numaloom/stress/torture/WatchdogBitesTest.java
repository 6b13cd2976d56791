package io.numaloom.stress.torture;

import io.numaloom.stress.planted.PlantedLock;
import io.numaloom.stress.planted.PlantedLock.Bug;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The torture test's watchdog bites: virtual threads on a lock whose unlock forgets the handoff strand in its
 * queue while newcomers barge past; once the others stop (as at the end of a torture run, which joins every
 * worker), progress stops, and the watchdog must notice, dump every thread (the stranded virtual threads parked in
 * the lock included) and fail. Uses a 2 s stall time instead of the torture's 10 s, to stay short.
 */
class WatchdogBitesTest {

    @Test
    void aStuckLockFailsTheRunWithAThreadDump() throws Exception {
        PlantedLock lock = new PlantedLock(Bug.UNLOCK_FORGETS_HANDOFF);
        LongAdder completed = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);
        Path dumpDir = Path.of(System.getProperty("numaloom.torture.dumpDir", "target/torture")).toAbsolutePath();
        List<Thread> threads = new ArrayList<>();
        Watchdog watchdog = new Watchdog("watchdog-selftest", completed, Duration.ofSeconds(2), dumpDir);
        try {
            for (int i = 0; i < 64; i++) {
                threads.add(Thread.ofVirtual().name("stuck-" + i).start(() -> {
                    while (running.get()) {
                        lock.lock();
                        try {
                            Thread.yield();
                        } finally {
                            lock.unlock();
                        }
                        completed.increment();
                    }
                }));
            }
            // As at the end of a torture run: the threads that still barge in stop; the stranded ones cannot.
            Thread.sleep(1_000);
            running.set(false);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!watchdog.stalled() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            AssertionError e = assertThrows(AssertionError.class, watchdog::check, "the watchdog saw no stall");
            assertTrue(e.getMessage().contains("no operation completed"), e.getMessage());
            Path dump = watchdog.dumpFile();
            assertTrue(dump != null && Files.isRegularFile(dump), "no thread dump: " + e.getMessage());
            String text = Files.readString(dump);
            assertTrue(text.contains("stuck-"), "the dump lacks the virtual threads");
            assertTrue(text.contains(PlantedLock.class.getName()), "the dump does not show where they are stuck");
        } finally {
            running.set(false);
            assertThrows(AssertionError.class, watchdog::close);
        }
    }
}
