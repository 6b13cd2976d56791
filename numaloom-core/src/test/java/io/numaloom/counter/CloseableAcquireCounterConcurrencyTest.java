package io.numaloom.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The invariants of {@link CloseableAcquireCounter} under real concurrency, on platform and on
 * virtual threads, for a lazily striped counter (which inflates during the test), a fully striped one,
 * and one with a two-node table whose threads are spread over both nodes. Workers yield inside their
 * acquisitions now and then, and pause outside them ({@link ThreadKind#breathe()}), so that every
 * thread gets a carrier.
 */
class CloseableAcquireCounterConcurrencyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int WORKERS = 4;

    static Stream<Arguments> kindsAndShapes() {
        List<Arguments> all = new ArrayList<>();
        for (ThreadKind kind : ThreadKind.values()) {
            all.add(Arguments.of(kind, "lazy", (Supplier<CloseableAcquireCounter>) CloseableAcquireCounter::new));
            all.add(Arguments.of(kind, "striped", (Supplier<CloseableAcquireCounter>) CloseableAcquireCounter::striped));
            all.add(Arguments.of(kind, "two nodes", (Supplier<CloseableAcquireCounter>) () ->
                    CloseableAcquireCounter.withShape(2, 2, () -> (int) Thread.currentThread().threadId(), false)));
        }
        return all.stream();
    }

    /** The home stripe of the current thread for the placed shapes: the holder's is the last. */
    private static final ThreadLocal<Integer> HOME = ThreadLocal.withInitial(() -> 0);
    private static final int HOLDER_HOME = 3;

    /**
     * Shapes for the busy-close test. A close claims the words in order and stops at the first busy
     * one, so only claims made before the holder's word can get in an acquirer's way: the placed
     * shapes put the holder's stripe last (slot 3 of 4; node 1 of 2) and the workers' stripes before it.
     */
    static Stream<Arguments> kindsAndHolderLastShapes() {
        List<Arguments> all = new ArrayList<>(kindsAndShapes().toList());
        for (ThreadKind kind : ThreadKind.values()) {
            all.add(Arguments.of(kind, "placed, holder last", (Supplier<CloseableAcquireCounter>) () ->
                    CloseableAcquireCounter.withPlacement(4, HOME::get)));
            all.add(Arguments.of(kind, "two nodes, holder on the last", (Supplier<CloseableAcquireCounter>) () ->
                    CloseableAcquireCounter.withShape(2, 2, () -> HOME.get() == HOLDER_HOME ? 1 : 0, false)));
        }
        return all.stream();
    }

    /**
     * Invariant 3, the one a naive "set a closing flag, check, clear it" design breaks: while one
     * acquisition is held for the whole test, closers hammer tryClose (every call must say BUSY) and
     * workers acquire and release; not a single acquisition may fail. Halfway, the workers wait until
     * each closer has made 500 attempts, so the two sides certainly overlap.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndHolderLastShapes")
    void busyClosesNeverMakeAnAcquisitionFail(ThreadKind kind, String shape, Supplier<CloseableAcquireCounter> factory)
            throws Exception {
        CloseableAcquireCounter c = factory.get();
        HOME.set(HOLDER_HOME);
        int holder = c.tryAcquire();
        HOME.remove();
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch closersWarm = new CountDownLatch(2);
        AtomicBoolean workersDone = new AtomicBoolean();
        AtomicLong closes = new AtomicLong();
        AtomicInteger workersLeft = new AtomicInteger(WORKERS);
        ThreadKind.Crew crew = kind.crew();
        for (int w = 0; w < WORKERS; w++) {
            int home = w % HOLDER_HOME;
            crew.start("worker-" + w, () -> {
                try {
                    HOME.set(home);
                    go.await();
                    for (int i = 0; i < 20_000; i++) {
                        if (i == 10_000) {
                            closersWarm.await();
                        }
                        int t = c.tryAcquire();
                        if (t < 0) {
                            fail("acquisition " + i + " failed while the counter was held open: " + c);
                        }
                        if ((i & 15) == 0) {
                            Thread.yield();   // inside the acquisition
                        }
                        c.release(t);
                        if ((i & 3) == 0) {
                            ThreadKind.breathe();
                        }
                    }
                } finally {
                    if (workersLeft.decrementAndGet() == 0) {
                        workersDone.set(true);
                    }
                }
            });
        }
        for (int k = 0; k < 2; k++) {
            crew.start("closer-" + k, () -> {
                go.await();
                for (int n = 1; !workersDone.get(); n++) {
                    CloseResult r = c.tryClose();
                    if (r != CloseResult.BUSY) {
                        closersWarm.countDown();   // do not leave the workers waiting
                        closersWarm.countDown();
                        fail("tryClose said " + r + " while an acquisition was outstanding");
                    }
                    closes.incrementAndGet();
                    if (n == 500) {
                        closersWarm.countDown();
                    }
                    ThreadKind.breathe();
                }
            });
        }
        go.countDown();
        crew.join(TIMEOUT);
        assertTrue(closes.get() >= 1_000, "closes raced with the workers: " + closes);
        assertEquals(1, c.outstanding());
        c.release(holder);
        assertEquals(CloseResult.CLOSED, c.tryClose());
    }

    /**
     * Invariants 1, 2 and 4 together: workers acquire and release until they are refused; two closers
     * try to close once every worker has made 2,500 acquisitions. The close that succeeds must find
     * every worker outside its acquisition; only one close succeeds; every refusal comes after the
     * close took effect.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndShapes")
    void aCloseSucceedsOnlyWhenNothingIsOutstandingAndThenEveryAcquireFails(
            ThreadKind kind, String shape, Supplier<CloseableAcquireCounter> factory) throws Exception {
        CloseableAcquireCounter c = factory.get();
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch warm = new CountDownLatch(WORKERS);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger wins = new AtomicInteger();
        AtomicInteger refusedWorkers = new AtomicInteger();
        ConcurrentLinkedQueue<CloseResult> results = new ConcurrentLinkedQueue<>();
        ThreadKind.Crew crew = kind.crew();
        for (int w = 0; w < WORKERS; w++) {
            crew.start("worker-" + w, () -> {
                go.await();
                for (int i = 0; ; i++) {
                    int t = c.tryAcquire();
                    if (t < 0) {
                        assertTrue(c.isClosed(), "refused, so the close has taken effect");
                        assertEquals(-1, c.tryAcquire(), "and stays in effect");
                        refusedWorkers.incrementAndGet();
                        if (i <= 2_500) {
                            warm.countDown();
                        }
                        return;
                    }
                    inside.incrementAndGet();
                    if ((i & 15) == 0) {
                        Thread.yield();
                    }
                    inside.decrementAndGet();
                    c.release(t);
                    if (i == 2_500) {
                        warm.countDown();
                    }
                    if ((i & 3) == 0) {
                        ThreadKind.breathe();
                    }
                }
            });
        }
        for (int k = 0; k < 2; k++) {
            crew.start("closer-" + k, () -> {
                go.await();
                warm.await();
                for (;;) {
                    CloseResult r = c.tryClose();
                    if (r == CloseResult.CLOSED) {
                        assertEquals(0, inside.get(), "closed while a worker was inside its acquisition");
                        wins.incrementAndGet();
                    }
                    if (r != CloseResult.BUSY) {
                        results.add(r);
                        return;
                    }
                    ThreadKind.breathe();
                }
            });
        }
        go.countDown();
        crew.join(TIMEOUT);
        assertEquals(1, wins.get(), "exactly one closer wins: " + results);
        assertTrue(results.contains(CloseResult.ALREADY_CLOSED), "the other one is told: " + results);
        assertEquals(WORKERS, refusedWorkers.get());
        assertTrue(c.isClosed());
        assertEquals(0, c.outstanding());
    }

    /** Invariant 4 in many short rounds: closers race on an idle counter, with acquirers racing them. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndShapes")
    void exactlyOneCloserWins(ThreadKind kind, String shape, Supplier<CloseableAcquireCounter> factory)
            throws Exception {
        for (int round = 0; round < 100; round++) {
            CloseableAcquireCounter c = factory.get();
            CountDownLatch go = new CountDownLatch(1);
            ConcurrentLinkedQueue<CloseResult> results = new ConcurrentLinkedQueue<>();
            AtomicInteger refused = new AtomicInteger();
            ThreadKind.Crew crew = kind.crew();
            for (int k = 0; k < 3; k++) {
                crew.start("closer-" + k, () -> {
                    go.await();
                    results.add(c.tryClose());
                });
            }
            for (int a = 0; a < 2; a++) {
                crew.start("acquirer-" + a, () -> {
                    go.await();
                    int t = c.tryAcquire();
                    if (t >= 0) {
                        c.release(t);
                    } else {
                        assertTrue(c.isClosed());
                        refused.incrementAndGet();
                    }
                });
            }
            go.countDown();
            crew.join(TIMEOUT);
            long closed = results.stream().filter(r -> r == CloseResult.CLOSED).count();
            assertTrue(closed <= 1, "round " + round + ": " + results);
            CloseResult last = c.tryClose();
            assertEquals(closed == 1 ? CloseResult.ALREADY_CLOSED : CloseResult.CLOSED, last,
                    "round " + round + ": " + results);
            if (closed == 0) {
                assertEquals(0, refused.get(), "nobody closed, nobody may be refused");
            }
        }
    }

    /**
     * Invariant 5: plain writes a holder makes before its release are visible to the closer once its
     * tryClose returns CLOSED.
     */
    @ParameterizedTest
    @EnumSource(ThreadKind.class)
    void everythingAHolderDidBeforeReleaseIsVisibleAfterTheClose(ThreadKind kind) throws Exception {
        for (int round = 0; round < 200; round++) {
            CloseableAcquireCounter c = round % 2 == 0 ? new CloseableAcquireCounter() : CloseableAcquireCounter.striped();
            long[] data = new long[WORKERS * 16];   // plain, unpublished except through release/close
            int[] tickets = new int[WORKERS];
            for (int w = 0; w < WORKERS; w++) {
                tickets[w] = c.tryAcquire();
            }
            long expected = round + 1;
            ThreadKind.Crew crew = kind.crew();
            for (int w = 0; w < WORKERS; w++) {
                int slot = w;
                crew.start("holder-" + w, () -> {
                    data[slot * 16] = expected;
                    c.release(tickets[slot]);
                });
            }
            crew.start("closer", () -> {
                while (c.tryClose() != CloseResult.CLOSED) {
                    ThreadKind.breathe();
                }
                for (int w = 0; w < WORKERS; w++) {
                    assertEquals(expected, data[w * 16], "holder " + w + "'s write before release");
                }
            });
            crew.join(TIMEOUT);
        }
    }

    /**
     * Contention on the base word inflates a lazy counter; the striped counter keeps its guarantees.
     *
     * <p>Contention needs two workers on CPUs at the same moment, which a busy machine may not give
     * for a long while, and which neither seconds nor overlapping acquisitions prove (a worker
     * descheduled inside its acquisition "overlaps" without competing). What does prove it is CPU
     * time: the workers' (or, for virtual threads, the carriers') CPU time minus the wall time is a
     * lower bound on the time two of them ran at once (see {@link CpuProbe}). Half a second of that
     * without a stripe fails the test; a machine too busy to give it within two minutes skips it.
     */
    @ParameterizedTest
    @EnumSource(ThreadKind.class)
    void contentionCreatesStripes(ThreadKind kind) throws Exception {
        CloseableAcquireCounter c = new CloseableAcquireCounter();
        CpuProbe cpu = new CpuProbe();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger highestTicket = new AtomicInteger();
        ThreadKind.Crew crew = kind.crew();
        List<Thread> workers = new ArrayList<>();
        long start = System.nanoTime();
        long deadline = start + Duration.ofMinutes(2).toNanos();
        long carriers0 = cpu.carriersCpuNanos();
        for (int w = 0; w < WORKERS; w++) {
            workers.add(crew.start("worker-" + w, () -> {
                for (int i = 0; !stop.get(); i++) {
                    int t = c.tryAcquire();
                    highestTicket.accumulateAndGet(t, Math::max);
                    c.release(t);
                    if (c.stripeCount() > 0 || System.nanoTime() > deadline) {
                        stop.set(true);
                    }
                    if ((i & 1023) == 0 && kind == ThreadKind.VIRTUAL) {
                        Thread.yield();
                    }
                }
            }));
        }
        long together = 0;
        while (!stop.get()) {
            Thread.sleep(10);
            long used = kind == ThreadKind.VIRTUAL
                    ? cpu.carriersCpuNanos() - carriers0
                    : workers.stream().mapToLong(t -> { try { return cpu.cpuNanos(t); } catch (ReflectiveOperationException e) { throw new IllegalStateException(e); } }).sum();
            together = Math.max(together, used - (System.nanoTime() - start));
            if (together > 500_000_000L) {
                stop.set(true);
            }
        }
        crew.join(Duration.ofMinutes(1));
        org.junit.jupiter.api.Assumptions.assumeTrue(c.stripeCount() > 0 || together > 500_000_000L,
                "the machine was too busy: two workers ran at once for only " + together / 1_000_000 + " ms in 2 minutes");
        assertTrue(c.stripeCount() > 0, "no stripe after two workers ran at once for at least "
                + together / 1_000_000 + " ms: " + c);
        assertTrue(highestTicket.get() >= 1, "acquisitions moved to the stripes");
        assertEquals(0, c.outstanding());
        assertEquals(CloseResult.CLOSED, c.tryClose());
        assertEquals(-1, c.tryAcquire());
    }
}
