package io.numaloom.bench.run;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.GuardedRegions;
import io.numaloom.bench.Mutex;
import io.numaloom.bench.Worker;
import io.numaloom.bench.workloads.Round;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExecutionTest {
    /** How long a round that must finish may take: reached only by a broken round, even on a busy machine. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** A round from a thread body, with the given regions and nothing to verify. */
    private static Round round(long operations, List<GuardedRegion> regions, ThreadBody body) {
        return new Round() {
            @Override
            public void runThread(Worker worker) throws Exception {
                body.run(worker);
            }

            @Override
            public long operations() {
                return operations;
            }

            @Override
            public List<GuardedRegion> regions() {
                return regions;
            }

            @Override
            public void verify() {}
        };
    }

    interface ThreadBody {
        void run(Worker worker) throws Exception;
    }

    /**
     * A worker that tracks nodes counts every region acquisition, and on one node (this JVM's topology) sees no
     * foreign acquisition and no migration; one that does not track counts nothing (the default on one node).
     */
    @Test
    void aNodeAwareWorkerCountsAcquisitionsForeignOnesAndMigrations() {
        GuardedRegion region = new GuardedRegion(Mutex.create("UNFAIR_REENTRANT"), 0);
        Worker tracking = new Worker(0, 1, null, true, 0);
        Worker plain = new Worker(0, 1, null);
        for (int i = 0; i < 100; i++) {
            tracking.locked(region, () -> { });
            plain.locked(region, () -> { });
        }
        assertEquals(100, tracking.nodeAcquisitions());
        assertEquals(0, tracking.foreignAcquisitions(), "one node: always acquired where asked");
        assertEquals(0, tracking.migrations(), "one node: never migrates");
        assertEquals(0, plain.nodeAcquisitions());
        assertEquals(200, region.acquisitions());
    }

    @Test
    void countsAcquisitionsHandoffsAndLatency() throws InterruptedException {
        GuardedRegion region = new GuardedRegion(Mutex.create("UNFAIR_REENTRANT"), 0);
        Round r = round(4000, List.of(region), w -> {
            for (long i = w.share(4000); i > 0; i--) {
                w.locked(region, Thread::yield);
                w.completed();
            }
        });
        try (ThreadPlacement placement = ThreadPlacement.create("virtual", 2, false)) {
            Execution.Outcome o = Execution.runOnce(r, 4, placement, true, TIMEOUT);
            assertEquals(4000, region.acquisitions());
            assertEquals(3999, o.handoffs());
            assertTrue(o.localHandoffs() <= o.handoffs());
            assertEquals(4000, o.latency().getTotalCount());
            assertEquals(4, o.countsAtFirstFinish().length);
            // The first thread to finish had done its whole share.
            assertTrue(java.util.Arrays.stream(o.countsAtFirstFinish()).anyMatch(c -> c == 1000));
        }
    }

    @Test
    void fairnessIsTakenWhenTheFirstThreadFinishes() throws InterruptedException {
        CountDownLatch othersStarted = new CountDownLatch(3);
        CountDownLatch firstRunning = new CountDownLatch(1);
        AtomicReference<Thread> first = new AtomicReference<>();
        Round r = round(16, List.of(), w -> {
            if (w.index() == 0) {
                first.set(Thread.currentThread());
                firstRunning.countDown();
                othersStarted.await();
                w.completed(10);
            } else {
                w.completed();
                othersStarted.countDown();
                // Held back until thread 0 has finished: its thread ends after it took the snapshot, which
                // must not count the operation that follows.
                firstRunning.await();
                first.get().join();
                w.completed();
            }
        });
        try (ThreadPlacement placement = ThreadPlacement.create("platform", 4, false)) {
            Execution.Outcome o = Execution.runOnce(r, 4, placement, false, TIMEOUT);
            assertArrayEquals(new long[] {10, 1, 1, 1}, o.countsAtFirstFinish());
            assertEquals(169.0 / 412.0, o.jainIndex(), 1e-12);
            assertEquals(0.1, o.minMaxRatio(), 1e-12);
        }
    }

    @Test
    void aSectionEnteredTwiceIsCaughtAsAMutualExclusionViolation() throws InterruptedException {
        GuardedRegion region = new GuardedRegion(Mutex.create("SYNCHRONIZED"), 0);
        // The section counts itself a second time: the region sees more acquisitions than the workers made,
        // as it would if a broken lock let two holders' unsynchronized increments interleave the other way.
        Round r = round(10, List.of(region), w -> {
            for (int i = 0; i < 10; i++) {
                w.locked(region, () -> GuardedRegions.acquired(region, 0));
            }
        });
        try (ThreadPlacement placement = ThreadPlacement.create("virtual", 2, false)) {
            Execution e = new Execution(r, 1, placement, false);
            e.start();
            e.run(TIMEOUT);
            IllegalStateException x = assertThrows(IllegalStateException.class, e::finish);
            assertTrue(x.getMessage().startsWith("mutual exclusion violated: the threads made 10 acquisitions but "
                    + "the critical sections counted 20"), x.getMessage());
        }
    }

    @Test
    void aFailingWorkerFailsTheRound() throws InterruptedException {
        Round r = round(1, List.of(), w -> {
            throw new UnsupportedOperationException("not yet");
        });
        try (ThreadPlacement placement = ThreadPlacement.create("virtual", 2, false)) {
            Execution e = new Execution(r, 2, placement, false);
            e.start();
            IllegalStateException x = assertThrows(IllegalStateException.class, () -> e.run(TIMEOUT));
            assertInstanceOf(UnsupportedOperationException.class, x.getCause());
        }
    }

    /**
     * A round that outlasts its timeout fails with where each stuck worker waits. The message is taken when the
     * timeout ends, and a busy machine may not yet have run the worker into its wait by then (it is then
     * RUNNABLE): such a round is run again with twice the timeout, up to 12.8 s, until the worker was seen waiting.
     */
    @Test
    void aStuckRoundTimesOutAndIsInterrupted() throws InterruptedException {
        for (long millis = 200; !aStuckRoundTimesOut(millis); millis *= 2) {
            assertTrue(millis < 10_000, "the stuck worker was never seen waiting when its round timed out");
        }
    }

    /** Returns whether the message showed the worker waiting; checks the rest of it and the interrupt either way. */
    private static boolean aStuckRoundTimesOut(long millis) throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        Round r = round(1, List.of(), w -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        try (ThreadPlacement placement = ThreadPlacement.create("virtual", 2, false)) {
            Execution e = new Execution(r, 1, placement, false);
            e.start();
            IllegalStateException x = assertThrows(IllegalStateException.class, () -> e.run(Duration.ofMillis(millis)));
            assertTrue(x.getMessage().contains("timed out") && x.getMessage().contains("1 of 1 threads"), x.getMessage());
            assertTrue(x.getMessage().contains("worker 0 (") && x.getMessage().contains(", 0 operations done)"),
                    x.getMessage());
            assertTrue(interrupted.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the stuck worker was interrupted");
            if (!x.getMessage().contains("WAITING, 0 operations done")) {
                return false;
            }
            assertTrue(x.getMessage().contains("at java.base/java.util.concurrent.CountDownLatch.await"),
                    "where the stuck worker waits: " + x.getMessage());
            return true;
        }
    }

    /** A round that counts how often it was closed and can be told to fail its check. */
    private static final class ClosingRound implements Round {
        final java.util.concurrent.atomic.AtomicInteger closes = new java.util.concurrent.atomic.AtomicInteger();
        final ThreadBody body;
        final boolean failCheck;

        ClosingRound(ThreadBody body, boolean failCheck) {
            this.body = body;
            this.failCheck = failCheck;
        }

        @Override
        public void runThread(Worker worker) throws Exception {
            body.run(worker);
        }

        @Override
        public long operations() {
            return 1;
        }

        @Override
        public void verify() {
            if (failCheck) {
                throw new IllegalStateException("planted check failure");
            }
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void theRoundIsClosedOnceWhetherItPassesFailsItsCheckFailsOrTimesOut() throws InterruptedException {
        try (ThreadPlacement placement = ThreadPlacement.create("virtual", 2, false)) {
            ClosingRound passes = new ClosingRound(w -> w.completed(), false);
            Execution.runOnce(passes, 2, placement, false, TIMEOUT);
            assertEquals(1, passes.closes.get(), "closed after its check");

            ClosingRound badCheck = new ClosingRound(w -> w.completed(), true);
            assertThrows(IllegalStateException.class, () -> Execution.runOnce(badCheck, 2, placement, false, TIMEOUT));
            assertEquals(1, badCheck.closes.get(), "closed after a failed check");

            ClosingRound throwing = new ClosingRound(w -> {
                throw new java.io.IOException("planted");
            }, false);
            assertThrows(IllegalStateException.class, () -> Execution.runOnce(throwing, 2, placement, false, TIMEOUT));
            assertEquals(1, throwing.closes.get(), "closed after a worker failed");

            CountDownLatch never = new CountDownLatch(1);
            ClosingRound stuck = new ClosingRound(w -> never.await(), false);
            Execution e = new Execution(stuck, 1, placement, false);
            e.start();
            assertThrows(IllegalStateException.class, () -> e.run(Duration.ofMillis(100)));
            assertEquals(1, stuck.closes.get(), "closed after a timeout");
        }
    }
}
