package io.numaloom.bench.locks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The conformance suite of every lock in {@link Locks}: the baselines of issue 4, the JDK's locks and
 * numaloom's {@code VnaLock} (VNA, VNA_2_Q), which is skipped, not failed, while its {@code lock()} still
 * throws {@link UnsupportedOperationException}.
 *
 * <p>What each lock must show: mutual exclusion under contention on platform and virtual threads (a plain
 * counter and an "inside" flag checked in the critical section), on the process topology, on two nodes with
 * threads migrating at random between calls, and on four nodes; progress at virtual-thread parallelism 1 with
 * {@code Thread.yield()} inside the critical section under one, two (sparse kernel ids) and four nodes (in a
 * child JVM, {@link ProgressProbe}); {@code tryLock()} semantics, including reentrancy where claimed; the
 * misuse each lock detects (unlock by a non-holder); that operations it does not support say why; that an
 * uncontended lock/unlock allocates nothing; and, for CNA, HMCS, HMCS_3 and COHORT, that the fairness
 * threshold bounds, in handoffs, how long a waiter on another node waits (with a control showing the same
 * waiter starving when the threshold is effectively removed, so the test can fail).
 *
 * <p>Every test is bounded in time ({@code assertTimeoutPreemptively}, child-JVM watchdogs).
 */
class LockConformanceTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    /** Locks whose holder may acquire again. */
    private static final Set<String> REENTRANT = Set.of("VNA", "VNA_2_Q", "UNFAIR_REENTRANT", "UNFAIR_REENTRANT_TWIN",
            "FAIR_REENTRANT", "RELAXED");
    /** Locks with timed and interruptible acquisition. */
    private static final Set<String> ABORTABLE = Set.of("VNA", "VNA_2_Q", "UNFAIR_REENTRANT", "UNFAIR_REENTRANT_TWIN",
            "FAIR_REENTRANT", "TAS", "TTAS", "HSPIN");
    /** Locks with condition variables. */
    private static final Set<String> CONDITIONS = Set.of("VNA", "VNA_2_Q", "UNFAIR_REENTRANT", "UNFAIR_REENTRANT_TWIN",
            "FAIR_REENTRANT");
    /** Locks with a fairness threshold that bounds the wait of a waiter on another node. */
    private static final List<String> THRESHOLD_LOCKS = List.of("CNA", "HMCS", "HMCS_3", "COHORT");

    static Stream<String> names() {
        return Locks.names().stream();
    }

    static Stream<String> thresholdLocks() {
        return THRESHOLD_LOCKS.stream();
    }

    enum Threads { PLATFORM, VIRTUAL }

    static Stream<Arguments> namesAndThreads() {
        return names().flatMap(n -> Stream.of(Arguments.of(n, Threads.PLATFORM), Arguments.of(n, Threads.VIRTUAL)));
    }

    static Stream<Arguments> namesAndNodes() {
        return names().flatMap(n -> Stream.of(Arguments.of(n, 1), Arguments.of(n, 2), Arguments.of(n, 4)));
    }

    // ------------------------------------------------------------------ registry

    @Test
    void registryHasEveryLockTheBenchComparesAndNothingElse() {
        assertEquals(List.of("VNA", "VNA_2_Q", "UNFAIR_REENTRANT", "UNFAIR_REENTRANT_TWIN", "FAIR_REENTRANT",
                "NUMA_MCS", "MCS", "CLH", "TICKET", "TTAS", "TAS", "HSPIN", "CNA", "HMCS", "HMCS_3", "HCLH", "COHORT",
                "SHFL", "RELAXED"),
                Locks.names());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void createReturnsANewLockEachCall(String name) {
        Lock a = Locks.create(name);
        Lock b = Locks.create(name);
        assertNotSame(a, b);
        assertNotSame(Locks.create(name, NumaNodes.of(2, () -> 0)), Locks.create(name, NumaNodes.of(2, () -> 0)));
    }

    @Test
    void unknownNameIsRejectedWithTheKnownNames() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Locks.create("MSC"));
        assertTrue(e.getMessage().contains("'MSC'") && e.getMessage().contains("MCS, CLH"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Locks.create(null));
    }

    @Test
    void synchronizedIsRecognisedButIsNotALock() {
        assertTrue(Locks.isSynchronized(Locks.SYNCHRONIZED));
        assertFalse(Locks.isSynchronized("MCS"));
        assertFalse(Locks.names().contains(Locks.SYNCHRONIZED));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Locks.create(Locks.SYNCHRONIZED));
        assertTrue(e.getMessage().contains("synchronized"), e.getMessage());
    }

    @Test
    void nodeSupplierOutOfRangeIsAClearError() {
        NumaNodes bad = NumaNodes.of(2, () -> 2);
        IllegalStateException e = assertThrows(IllegalStateException.class, bad::current);
        assertTrue(e.getMessage().contains("returned 2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NumaNodes.of(0, () -> 0));
        assertThrows(IllegalArgumentException.class, () -> new CnaLock(NumaNodes.of(1, () -> 0), 0));
    }

    // ------------------------------------------------------------------ mutual exclusion

    /**
     * Bounded in work, not in wall time: a FIFO spin lock (TICKET, COHORT's global ticket) whose next owner
     * is preempted hands over once per scheduling quantum, so on a machine busier than its cores (CI under
     * load) a fixed number of acquisitions can take minutes. The test fails only on a wrong count, an
     * overlap, or {@link #STALL} without a single acquisition completing anywhere (a deadlock or a
     * livelock), never on a slow run.
     */
    @ParameterizedTest(name = "{0} on {1} threads")
    @MethodSource("namesAndThreads")
    void excludesUnderContention(String name, Threads kind) throws InterruptedException {
        int threads = kind == Threads.PLATFORM ? 4 : 16;
        int iterations = kind == Threads.PLATFORM ? 1_000 : 300;
        IntSupplier byThread = () -> (int) (Thread.currentThread().threadId() % 4);
        List<Lock> variants = List.of(
                fresh(name),
                fresh(name, NumaNodes.of(2, () -> ThreadLocalRandom.current().nextInt(2))),
                fresh(name, NumaNodes.of(4, byThread)));
        for (Lock lock : variants) {
            Guarded guarded = new Guarded();
            AtomicInteger sections = new AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Runnable body = () -> {
                    for (int i = 0; i < iterations; i++) {
                        lock.lock();
                        try {
                            guarded.enter();
                            if ((i & 7) == 0) {
                                Thread.yield();
                            }
                            guarded.exit();
                        } finally {
                            lock.unlock();
                        }
                        sections.incrementAndGet();
                    }
                };
                workers.add(kind == Threads.PLATFORM ? Thread.ofPlatform().daemon().start(body) : Thread.ofVirtual().start(body));
            }
            joinWhileProgressing(workers, sections, lock);
            assertNull(guarded.check(threads * iterations), lock.toString());
            assertTrue(lock.tryLock(), "free after the run: " + lock);
            lock.unlock();
        }
    }

    /** How long {@link #joinWhileProgressing} waits for one more critical section before it calls the lock stuck. */
    private static final Duration STALL = Duration.ofSeconds(60);

    /**
     * Joins {@code workers}, however long they take, as long as {@code sections} keeps growing: fails once
     * {@link #STALL} passes with no critical section completed by any of them.
     */
    static void joinWhileProgressing(List<Thread> workers, AtomicInteger sections, Lock lock) throws InterruptedException {
        int seen = sections.get();
        long lastProgress = System.nanoTime();
        for (Thread w : workers) {
            while (!w.join(Duration.ofMillis(200))) {
                int now = sections.get();
                if (now != seen) {
                    seen = now;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > STALL.toNanos()) {
                    fail("no critical section completed for " + STALL.toSeconds() + " s (" + now
                            + " done): stuck in " + lock);
                }
            }
        }
    }

    // ------------------------------------------------------------------ progress at parallelism 1

    @ParameterizedTest(name = "{0} on {1} node(s)")
    @MethodSource("namesAndNodes")
    void progressesAtParallelismOneWithAYieldInsideTheCriticalSection(String name, int nodes) throws Exception {
        String result = ProgressProbe.results(nodes).get(name);
        assertNotNull(result, "no result for " + name);
        assumeTrue(!result.startsWith("SKIP"), result);
        assertTrue(result.startsWith("OK"), name + " at parallelism 1, topology " + ProgressProbe.topologySpec(nodes)
                + ": " + result);
    }

    // ------------------------------------------------------------------ tryLock

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void tryLockSucceedsWhenFreeAndFailsWhenHeldByAnother(String name) {
        assertTimeoutPreemptively(LIMIT, () -> {
            Lock lock = fresh(name);
            assertTrue(lock.tryLock(), "tryLock on a free lock");
            if (REENTRANT.contains(name)) {
                assertTrue(lock.tryLock(), "reentrant: tryLock by the holder succeeds");
                lock.unlock();
            } else {
                assertFalse(lock.tryLock(), "not reentrant: tryLock by the holder must fail");
            }
            assertFalse(inOtherThread(() -> lock.tryLock()), "tryLock while another thread holds it");
            lock.unlock();
            assertTrue(inOtherThread(() -> tryLockAndUnlock(lock)), "tryLock after release, from another thread");

            // failed attempts leave the queue intact: a queued waiter still gets the lock, and then it is free
            try (Holder holder = new Holder(lock)) {
                Thread waiter = Thread.ofPlatform().daemon().start(() -> {
                    lock.lock();
                    lock.unlock();
                });
                awaitParkedOrSleeping(waiter);
                for (int i = 0; i < 100; i++) {
                    assertFalse(lock.tryLock(), "tryLock with a holder and a queued waiter");
                }
                holder.close();
                waiter.join();
            }
            assertTrue(lock.tryLock(), "free after holder and waiter left");
            lock.unlock();
        });
    }

    // ------------------------------------------------------------------ misuse

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void unlockByANonHolderIsRejectedAndChangesNothing(String name) {
        assertTimeoutPreemptively(LIMIT, () -> {
            Lock lock = fresh(name);
            assertThrows(IllegalMonitorStateException.class, lock::unlock, "unlock of a free lock");
            assertTrue(lock.tryLock(), "still usable after a rejected unlock");
            lock.unlock();
            assertThrows(IllegalMonitorStateException.class, lock::unlock, "second unlock");
            try (Holder holder = new Holder(lock)) {
                assertThrows(IllegalMonitorStateException.class, lock::unlock, "unlock while another thread holds it");
                assertFalse(lock.tryLock(), "the holder still holds it");
                holder.close();
            }
            assertTrue(lock.tryLock(), "free after the holder released it");
            lock.unlock();
        });
    }

    // ------------------------------------------------------------------ unsupported operations

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void whatALockDoesNotSupportItRefusesWithAReason(String name) {
        assertTimeoutPreemptively(LIMIT, () -> {
            Lock lock = fresh(name);
            if (CONDITIONS.contains(name)) {
                assertNotNull(lock.newCondition());
            } else {
                assertUnsupported(lock, lock::newCondition);
            }
            if (!ABORTABLE.contains(name)) {
                assertUnsupported(lock, () -> {
                    lock.lockInterruptibly();
                    return null;
                });
                assertUnsupported(lock, () -> lock.tryLock(1, TimeUnit.MILLISECONDS));
                return;
            }
            lock.lockInterruptibly();
            lock.unlock();
            assertTrue(lock.tryLock(1, TimeUnit.SECONDS));
            lock.unlock();
            try (Holder holder = new Holder(lock)) {
                assertFalse(lock.tryLock(20, TimeUnit.MILLISECONDS), "timed tryLock while held elsewhere");
                AtomicReference<Throwable> outcome = new AtomicReference<>();
                Thread waiter = Thread.ofPlatform().daemon().start(() -> {
                    try {
                        lock.lockInterruptibly();
                        lock.unlock();
                        outcome.set(new AssertionError("acquired while held elsewhere"));
                    } catch (Throwable t) {
                        outcome.set(t);
                    }
                });
                awaitParkedOrSleeping(waiter);
                waiter.interrupt();
                waiter.join();
                assertInstanceOf(InterruptedException.class, outcome.get());
                holder.close();
            }
            assertTrue(lock.tryLock(), "free after an abandoned wait");
            lock.unlock();
        });
    }

    private static void assertUnsupported(Lock lock, Callable<?> call) {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, call::call);
        String why = e.getMessage();
        assertTrue(why != null && why.contains(lock.getClass().getSimpleName()) && why.length() > 40,
                "the message must name the lock and say why: " + why);
    }

    // ------------------------------------------------------------------ allocation

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void uncontendedLockAndUnlockAllocateNothing(String name) throws Exception {
        Lock lock = fresh(name);
        // in a new platform thread, so that per-thread state (a queue node) is created during the warm-up
        long allocated = inOtherThread(() -> {
            for (int i = 0; i < 20_000; i++) {
                lockUnlockTwice(lock);
            }
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long me = Thread.currentThread().threadId();
            long before = mx.getThreadAllocatedBytes(me);
            for (int i = 0; i < 10_000; i++) {
                lockUnlockTwice(lock);
            }
            return mx.getThreadAllocatedBytes(me) - before;
        });
        assertTrue(allocated < 2_048, name + ": 10,000 uncontended lock/unlock + tryLock/unlock rounds allocated "
                + allocated + " bytes");
    }

    private static void lockUnlockTwice(Lock lock) {
        lock.lock();
        lock.unlock();
        if (lock.tryLock()) {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ fairness thresholds

    /** Handoffs to threads of the holder's node that a waiter on the other node may have to sit through. */
    private static final int THRESHOLD = 4;
    /** Threads on node 0 that keep taking the lock. */
    private static final int LOCALS = 6;
    /** Handoffs after which the scenario stops: a remote waiter still waiting then counts as starved. */
    private static final int STARVED = 200;
    /**
     * What the control must show at least: ten times the threshold. A node-0 holder finds no node-0 successor
     * (and so releases to node 1 early) only if all other node-0 threads are between their unlock and their
     * next enqueue at once, which OS preemption on a loaded machine can cause now and then.
     */
    private static final int CONTROL_MINIMUM = 10 * THRESHOLD;
    /**
     * Runs of the control scenario, of which one must show the starvation: preemption cuts a run short now and
     * then, while a lock without a preference for its node never keeps the remote waiter out that long.
     */
    private static final int CONTROL_RUNS = 5;

    @ParameterizedTest(name = "{0}")
    @MethodSource("thresholdLocks")
    void fairnessThresholdBoundsTheWaitOfAWaiterOnAnotherNode(String name) {
        assertTimeoutPreemptively(LIMIT, () -> {
            int handoffs = handoffsBeforeRemoteWaiter(name, THRESHOLD);
            int bound = remoteWaitBound(name);
            assertTrue(handoffs <= bound, name + " with threshold " + THRESHOLD + ": the waiter on node 1 sat through "
                    + handoffs + " handoffs on node 0; the bound is " + bound);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("thresholdLocks")
    void withoutAThresholdTheSameWaiterStarves(String name) {
        assertTimeoutPreemptively(LIMIT, () -> {
            List<Integer> handoffs = new ArrayList<>();
            while (handoffs.size() < CONTROL_RUNS) {
                handoffs.add(handoffsBeforeRemoteWaiter(name, 1_000_000));
                if (handoffs.getLast() >= CONTROL_MINIMUM) {
                    return;
                }
            }
            fail(name + " with no effective threshold: the remote waiter got the lock after " + handoffs + " handoffs in "
                    + CONTROL_RUNS + " runs; the scenario no longer shows a preference for the local node");
        });
    }

    /**
     * The most node-0 critical sections the node-1 waiter may see in {@link #handoffsBeforeRemoteWaiter}.
     * HMCS and COHORT: the node-1 waiter competes at the level above the nodes, so it waits for at most the
     * {@code THRESHOLD - 1} passes that follow the main thread's own section (which starts the count at 1).
     * CNA: the node-1 waiter sits in the same queue behind the {@value #LOCALS} node-0 threads that queued
     * before it; those are served first in FIFO order (a flush that finds no secondary queue restarts the
     * count), and from the handoff that moves it to the secondary queue at most {@code THRESHOLD} more.
     */
    private static int remoteWaitBound(String name) {
        return name.equals("CNA") ? LOCALS + THRESHOLD : THRESHOLD - 1;
    }

    private static Lock withThreshold(String name, NumaNodes nodes, int threshold) {
        return switch (name) {
            case "CNA" -> new CnaLock(nodes, threshold);
            case "HMCS" -> new HmcsLock(nodes, threshold);
            case "HMCS_3" -> HmcsLock.threeLevel(nodes, threshold, threshold);
            case "COHORT" -> new CohortLock(nodes, threshold);
            default -> throw new IllegalArgumentException(name);
        };
    }

    /**
     * {@value #LOCALS} threads on node 0 take the lock in a loop; a waiter on node 1 arrives while the main
     * thread (node 0) holds the lock and they are queued behind it. Returns how many critical sections of node-0 threads
     * ran after the main thread's release and before the node-1 waiter's, stopping the loop at
     * {@value #STARVED}. Nodes 0 and 1 are on different sockets, so HMCS_3 passes through its socket level.
     */
    private static int handoffsBeforeRemoteWaiter(String name, int threshold) throws InterruptedException {
        Map<Thread, Integer> placement = new ConcurrentHashMap<>();
        NumaNodes nodes = NumaNodes.of(2, () -> placement.getOrDefault(Thread.currentThread(), 0), new int[] {0, 1});
        Lock lock = withThreshold(name, nodes, threshold);
        AtomicBoolean stop = new AtomicBoolean();
        int[] localSections = {0};
        AtomicInteger remoteSaw = new AtomicInteger(-1);

        lock.lock();
        List<Thread> locals = new ArrayList<>();
        for (int t = 0; t < LOCALS; t++) {
            locals.add(Thread.ofPlatform().daemon().start(() -> {
                while (!stop.get()) {
                    lock.lock();
                    try {
                        if (++localSections[0] >= STARVED) {
                            stop.set(true);
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            }));
        }
        for (Thread l : locals) {
            awaitParkedOrSleeping(l);
        }
        Thread remote = Thread.ofPlatform().daemon().unstarted(() -> {
            lock.lock();
            try {
                remoteSaw.set(localSections[0]);
                stop.set(true);
            } finally {
                lock.unlock();
            }
        });
        placement.put(remote, 1);
        remote.start();
        awaitParkedOrSleeping(remote);
        lock.unlock();
        remote.join();
        for (Thread l : locals) {
            l.join();
        }
        return remoteSaw.get();
    }

    // ------------------------------------------------------------------ helpers

    /** A critical section's witness: a plain counter and an "inside" flag, touched only under the lock. */
    static final class Guarded {
        private int count;
        private boolean inside;
        private final AtomicInteger overlaps = new AtomicInteger();

        void enter() {
            if (inside) {
                overlaps.incrementAndGet();
            }
            inside = true;
            count++;
        }

        void exit() {
            inside = false;
        }

        /** Null if there were exactly {@code expected} sections and none overlapped, else what went wrong. */
        String check(int expected) {
            if (overlaps.get() != 0 || count != expected) {
                return overlaps.get() + " overlapping critical sections; count " + count + ", expected " + expected;
            }
            return null;
        }
    }

    /** A platform thread that holds {@code lock} from construction until {@link #close()}. */
    private static final class Holder implements AutoCloseable {
        private final CountDownLatch release = new CountDownLatch(1);
        private final Thread thread;

        Holder(Lock lock) throws InterruptedException {
            CountDownLatch acquired = new CountDownLatch(1);
            thread = Thread.ofPlatform().daemon().start(() -> {
                lock.lock();
                try {
                    acquired.countDown();
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lock.unlock();
                }
            });
            acquired.await();
        }

        @Override
        public void close() throws InterruptedException {
            release.countDown();
            thread.join();
        }
    }

    /** Whether the lock works yet ({@code VnaLock} is skipped until its {@code lock()} is implemented). */
    static boolean implemented(Lock lock) {
        try {
            if (lock.tryLock()) {
                lock.unlock();
            }
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    private static Lock fresh(String name) {
        return fresh(name, null);
    }

    private static Lock fresh(String name, NumaNodes nodes) {
        Lock lock = nodes == null ? Locks.create(name) : Locks.create(name, nodes);
        assumeTrue(implemented(lock), name + " is not implemented yet");
        return lock;
    }

    private static boolean tryLockAndUnlock(Lock lock) {
        if (!lock.tryLock()) {
            return false;
        }
        lock.unlock();
        return true;
    }

    private static <T> T inOtherThread(Callable<T> call) throws Exception {
        FutureTask<T> task = new FutureTask<>(call);
        Thread.ofPlatform().daemon().start(task);
        return task.get(30, TimeUnit.SECONDS);
    }

    /** Waits until {@code t} is blocked in the lock: parked, or sleeping in a spin-yield-sleep wait. */
    private static void awaitParkedOrSleeping(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() > deadline) {
                fail(t + " did not block: " + t.getState());
            }
            Thread.sleep(1);
        }
    }
}
