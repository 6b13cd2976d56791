package io.numaloom.stress.torture;

import io.numaloom.stress.planted.PlantedLock;
import io.numaloom.stress.planted.PlantedLock.Bug;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The torture test's watchdog bites: virtual threads on a lock whose unlock forgets the handoff strand in its
 * queue while newcomers barge past; once the others stop (as at the end of a torture run, which joins every
 * worker), progress stops, and the watchdog must notice, dump every thread (the stranded virtual threads parked in
 * the lock included) and fail. Uses a 2 s stall time instead of the torture's 10 s, to stay short.
 *
 * <p>The bargers run until a thread is seen stranded, not for a fixed time: on a busy machine a second of
 * barging could strand nobody. A thread parked in the planted lock is stranded for good (nobody is ever handed
 * the lock, and {@code lock()} waits only for that), so the test waits, for up to 30 s, until some thread's
 * park blocker is the lock. The watchdog starts only then, so that whenever it bites, a thread it must show is
 * parked in the lock.
 *
 * <p>The holder parks for 20 µs inside the critical section; it used to yield. At scheduler parallelism 1 a
 * virtual thread that yields with nothing in its carrier's own queue is resubmitted to the carrier's submission
 * queue, which the only carrier may keep serving: the threads started from the test thread (another submission
 * queue) then never ran while the holder looped, and none was stranded (seen in the torture-p1 execution, after
 * the torture test, on a busy machine). A timed park frees the carrier for them.
 */
class WatchdogBitesTest {

    /** How long the bargers may take to strand a thread in the planted lock. */
    static final Duration STRAND_PATIENCE = Duration.ofSeconds(30);

    @Test
    void aStuckLockFailsTheRunWithAThreadDump() throws Exception {
        PlantedLock lock = new PlantedLock(Bug.UNLOCK_FORGETS_HANDOFF);
        LongAdder completed = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);
        Path dumpDir = Path.of(System.getProperty("numaloom.torture.dumpDir", "target/torture")).toAbsolutePath();
        List<Thread> threads = new ArrayList<>();
        Watchdog watchdog = null;
        try {
            for (int i = 0; i < 64; i++) {
                threads.add(Thread.ofVirtual().name("stuck-" + i).start(() -> {
                    while (running.get()) {
                        lock.lock();
                        try {
                            LockSupport.parkNanos(20_000); // not a yield: see the class comment
                        } finally {
                            lock.unlock();
                        }
                        completed.increment();
                    }
                }));
            }
            Thread stranded = awaitStranded(threads, lock);
            watchdog = new Watchdog("watchdog-selftest", completed, Duration.ofSeconds(2), dumpDir);
            // As at the end of a torture run: the threads that still barge in stop; the stranded ones cannot.
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
            assertTrue(stranded.isAlive(), stranded + " left the planted lock");
            assertTrue(text.contains("\"" + stranded.getName() + "\""),
                    "the dump lacks the virtual thread stranded in the lock, " + stranded.getName() + ": " + dump);
            assertTrue(text.contains(PlantedLock.class.getName()), "the dump does not show where they are stuck");
        } finally {
            running.set(false);
            if (watchdog != null) {
                assertThrows(AssertionError.class, watchdog::close);
            }
        }
    }

    /**
     * Waits until one of {@code threads} is parked in {@code lock}, and returns it: with the planted bug such a
     * thread never leaves. Fails after {@link #STRAND_PATIENCE}.
     */
    private static Thread awaitStranded(List<Thread> threads, PlantedLock lock) throws InterruptedException {
        long deadline = System.nanoTime() + STRAND_PATIENCE.toNanos();
        for (;;) {
            for (Thread t : threads) {
                if (LockSupport.getBlocker(t) == lock) {
                    return t;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                fail("no thread was stranded in the planted lock in " + STRAND_PATIENCE.toSeconds() + " s of barging: "
                        + lock + ", " + lock.getQueueLength() + " queued; the threads' states: " + threads.stream()
                        .collect(Collectors.groupingBy(Thread::getState, TreeMap::new, Collectors.counting())));
            }
            Thread.sleep(1);
        }
    }
}
