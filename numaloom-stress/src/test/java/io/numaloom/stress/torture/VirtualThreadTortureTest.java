package io.numaloom.stress.torture;

import io.numaloom.scheduler.NumaScheduler;
import io.numaloom.stress.subject.InspectableLock;
import io.numaloom.stress.subject.Subject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Thousands of virtual threads hammer one lock with a random mix of {@code lock}, {@code lockInterruptibly},
 * {@code tryLock}, {@code tryLock(timeout)}, re-entry, {@code await}/{@code awaitNanos}/{@code signal}/
 * {@code signalAll}, interrupts from outside and {@link Thread#yield()} inside critical sections, while a
 * watchdog fails the run with a thread dump of every thread, virtual ones included, when no operation completes
 * for {@value #STALL_SECONDS} seconds.
 *
 * <p>Checked inside every critical section: nobody else is inside, the guarded pair {@code (a, b)} is equal on
 * entry, the hold count is right. Checked at the end: every operation finished, the critical sections counted
 * inside and outside agree, the lock is free with no queued thread and no condition waiter, and there were more
 * critical sections than threads (the run goes on past its duration until there were, on a busy machine).
 *
 * <p>Runs once per {@link Subject} in a JVM whose virtual-thread scheduler has the parallelism the build sets
 * ({@code -Djdk.virtualThreadScheduler.parallelism=1} and {@code 2}, two surefire executions); at parallelism 1 a
 * holder that yields must still let everybody finish, which is where spinning waiters livelock. Properties:
 * {@code numaloom.torture.seconds} (per subject; 1 in CI, 60 under {@code -Pstress}),
 * {@code numaloom.torture.parallelism} (what the build set, checked), {@code numaloom.torture.dumpDir}.
 *
 * <p>With {@code numaloom.torture.scheduler=numa} (the surefire execution {@code torture-numa}, which adds the
 * {@code --add-opens} it needs) every virtual thread of the test runs on a {@link NumaScheduler} with one carrier per
 * node of the two-node virtual topology, homes assigned round-robin, and every critical section also checks that
 * it runs on a carrier of its thread's home node.
 */
class VirtualThreadTortureTest {

    static final int STALL_SECONDS = 10;
    static final int THREADS = 2_000;
    /** How long the workers may go on past the run's duration to make more critical sections than threads. */
    static final Duration ENOUGH_SECTIONS_PATIENCE = Duration.ofMinutes(1);

    private static Duration duration;
    private static Path dumpDir;
    /** The scheduler of every virtual thread of the test, or null for the JDK's. */
    private static NumaScheduler scheduler;

    @BeforeAll
    static void configuration() throws IOException {
        duration = Duration.ofMillis((long) (1000 * Double.parseDouble(System.getProperty("numaloom.torture.seconds", "1"))));
        dumpDir = Path.of(System.getProperty("numaloom.torture.dumpDir", "target/torture")).toAbsolutePath();
        Files.createDirectories(dumpDir);
        String expected = System.getProperty("numaloom.torture.parallelism");
        if (expected != null) {
            assertEquals(expected, System.getProperty("jdk.virtualThreadScheduler.parallelism"),
                    "the build asked for this scheduler parallelism; the JVM was started without it");
        }
        if ("numa".equals(System.getProperty("numaloom.torture.scheduler"))) {
            scheduler = NumaScheduler.builder().carriersPerNode(1).name("torture-numa").build();
            assertEquals(2, scheduler.nodes(), "the torture on NumaScheduler runs on two (virtual) nodes");
        }
    }

    @AfterAll
    static void closeScheduler() {
        if (scheduler != null) {
            scheduler.close();
        }
    }

    /** An unstarted virtual thread on the scheduler under test. */
    private static Thread virtual(String name, Runnable task) {
        if (scheduler == null) {
            return Thread.ofVirtual().name(name).unstarted(task);
        }
        Thread t = scheduler.threadFactory().newThread(task);
        t.setName(name);
        return t;
    }

    /** Which scheduler runs the virtual threads, for the report lines. */
    private static String schedulerName() {
        return scheduler != null ? "NumaScheduler (" + scheduler.placement() + ")"
                : "parallelism=" + System.getProperty("jdk.virtualThreadScheduler.parallelism");
    }

    /** The shared state the lock guards; every field is plain and only touched under the lock. */
    private static final class Guarded {
        long a;
        long b;
        long sections;
        Thread inside;
        int tokens;
        boolean stop;
    }

    /** A failure seen by a worker; the first few are reported. */
    private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();

    @ParameterizedTest
    @EnumSource(Subject.class)
    void tortureOneLock(Subject subject) throws Exception {
        InspectableLock lock = subject.create();
        Condition condition = lock.newCondition();
        Guarded g = new Guarded();
        LongAdder completed = new LongAdder();
        LongAdder sectionsOutside = new LongAdder();
        LongAdder interruptsSeen = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);

        List<Thread> workers = new ArrayList<>(THREADS);
        for (int i = 0; i < THREADS; i++) {
            workers.add(virtual("torture-" + subject + "-" + i, () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (running.get()) {
                    try {
                        if (step(lock, condition, g, random, sectionsOutside)) {
                            completed.increment();
                        }
                    } catch (InterruptedException e) {
                        interruptsSeen.increment();
                        completed.increment();
                    } catch (Throwable t) {
                        failures.add(t);
                        return;
                    }
                    if (Thread.interrupted()) {
                        interruptsSeen.increment();
                    }
                    if (lock.getHoldCount() != 0) {
                        failures.add(new AssertionError("a step returned holding the lock " + lock.getHoldCount() + " times"));
                        return;
                    }
                }
            }));
        }
        Thread interrupter = virtual("torture-interrupter", () -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (running.get()) {
                workers.get(random.nextInt(workers.size())).interrupt();
                if (random.nextInt(4) == 0) {
                    Thread.yield();
                }
                try {
                    Thread.sleep(0, random.nextInt(200_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
        });

        try (Watchdog watchdog = new Watchdog("torture-" + subject, completed, Duration.ofSeconds(STALL_SECONDS), dumpDir)) {
            workers.forEach(Thread::start);
            interrupter.start();
            Thread.sleep(duration.toMillis());
            // A busy machine may have given the workers too little CPU in that time for a torture (more critical
            // sections than threads, checked at the end): they go on until there were that many, for up to a minute.
            long deadline = System.nanoTime() + ENOUGH_SECTIONS_PATIENCE.toNanos();
            while (sectionsOutside.sum() <= THREADS && System.nanoTime() - deadline < 0) {
                watchdog.check();
                Thread.sleep(10);
            }
            running.set(false);
            interrupter.interrupt();
            // Wake the untimed waiters: the run is over.
            lock.lock();
            try {
                g.stop = true;
                condition.signalAll();
            } finally {
                lock.unlock();
            }
            for (Thread w : workers) {
                while (!w.join(Duration.ofMillis(200))) {
                    watchdog.check();
                }
            }
            interrupter.join();
            watchdog.check();
        }

        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError(failures.size() + " worker failure(s) under " + subject
                    + "; the first: " + failures.peek(), failures.peek());
            failures.stream().skip(1).limit(4).forEach(e::addSuppressed);
            throw e;
        }
        assertFalse(lock.isLocked(), "lock left locked");
        assertEquals(0, lock.getQueueLength(), "threads left queued");
        assertFalse(lock.hasQueuedThreads(), "threads left queued");
        lock.lock();
        try {
            assertFalse(lock.hasWaiters(condition), "waiters left on the condition");
            assertEquals(g.a, g.b);
            assertEquals(sectionsOutside.sum(), g.sections, "critical sections counted inside vs outside");
            assertEquals(g.sections, g.a, "one increment of a per critical section");
        } finally {
            lock.unlock();
        }
        System.out.printf("torture %s %s: %d threads, %d ops, %d critical sections, %d interrupts, %s%n",
                subject, schedulerName(), THREADS, completed.sum(),
                g.sections, interruptsSeen.sum(), duration);
        assertTrue(g.sections > THREADS, "too little happened to call this a torture: " + g.sections);
    }

    /**
     * CPU time of the virtual-thread scheduler's carrier threads, where a spinning waiter would burn it; the
     * JIT's and GC's threads, which may be busy after an earlier test, are not counted.
     */
    private static long carrierCpuNanos() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            String name = info == null ? "" : info.getThreadName();
            if (name.startsWith("ForkJoinPool-") && name.contains("-worker-") || name.startsWith("torture-numa-") && name.contains("-carrier")) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    /**
     * Waiters use no CPU: a thousand virtual threads wait on a condition and on the held lock (lock,
     * lockInterruptibly, a long timed tryLock), a tenth of them interrupted, while the carrier threads' CPU time is
     * measured over one second (the process's also counted the JIT and a GC cycle left by the test before, and
     * once exceeded the bound). A bound of a third of one CPU leaves room for a heir's timed re-checks; a waiter
     * that spins, or an interrupted one that keeps retrying, costs a whole CPU.
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void parkedWaitersUseNoCpu(Subject subject) throws Exception {
        InspectableLock lock = subject.create();
        Condition condition = lock.newCondition();
        boolean[] released = {false};
        java.util.concurrent.atomic.AtomicInteger awaiting = new java.util.concurrent.atomic.AtomicInteger();
        LongAdder finished = new LongAdder();
        List<Thread> waiters = new ArrayList<>();
        int conditionWaiters = 250;
        for (int i = 0; i < conditionWaiters; i++) {
            waiters.add(started(virtual("awaiter-" + subject + "-" + i, () -> {
                lock.lock();
                try {
                    awaiting.incrementAndGet();
                    while (!released[0]) {
                        condition.awaitUninterruptibly();
                    }
                } finally {
                    lock.unlock();
                    finished.increment();
                }
            })));
        }
        while (awaiting.get() < conditionWaiters) {
            Thread.sleep(1);
        }
        lock.lock(); // every awaiter is now inside await: each released the lock only there
        try {
            for (int i = 0; i < 750; i++) {
                int kind = i % 3;
                waiters.add(started(virtual("waiter-" + subject + "-" + i, () -> {
                    try {
                        switch (kind) {
                            case 0 -> lock.lock();
                            case 1 -> lock.lockInterruptibly();
                            default -> {
                                if (!lock.tryLock(1, TimeUnit.HOURS)) {
                                    return;
                                }
                            }
                        }
                        lock.unlock();
                    } catch (InterruptedException e) {
                        // left the queue
                    } finally {
                        finished.increment();
                    }
                })));
            }
            // Interrupt a tenth of all: they leave (interruptible) or keep waiting (lock(), awaitUninterruptibly).
            for (int i = 0; i < waiters.size(); i += 10) {
                waiters.get(i).interrupt();
            }
            Thread.sleep(500);
            long cpu0 = carrierCpuNanos();
            long wall0 = System.nanoTime();
            Thread.sleep(1_000);
            long cpu = carrierCpuNanos() - cpu0;
            long wall = System.nanoTime() - wall0;
            System.out.printf("parked waiters %s %s: %.1f ms of carrier CPU in %.1f ms%n", subject,
                    schedulerName(), cpu / 1e6, wall / 1e6);
            assertTrue(cpu < wall / 3, subject + ": the carriers used " + cpu / 1_000_000 + " ms of CPU in "
                    + wall / 1_000_000 + " ms while every thread was waiting");
            released[0] = true;
            condition.signalAll();
        } finally {
            lock.unlock();
        }
        try (Watchdog watchdog = new Watchdog("waiters-" + subject, finished, Duration.ofSeconds(STALL_SECONDS), dumpDir)) {
            for (Thread w : waiters) {
                while (!w.join(Duration.ofMillis(200))) {
                    watchdog.check();
                }
            }
        }
        assertEquals(waiters.size(), finished.sum());
        assertFalse(lock.isLocked());
        assertEquals(0, lock.getQueueLength());
    }

    private static Thread started(Thread t) {
        t.start();
        return t;
    }

    /** One random operation; returns whether it completed (as opposed to gave up). */
    private static boolean step(InspectableLock lock, Condition condition, Guarded g, ThreadLocalRandom random,
                                LongAdder sections) throws InterruptedException {
        switch (random.nextInt(10)) {
            case 0, 1 -> lock.lock();
            case 2 -> lock.lockInterruptibly();
            case 3 -> {
                if (!lock.tryLock()) {
                    Thread.yield();
                    return false;
                }
            }
            case 4, 5 -> {
                if (!lock.tryLock(random.nextLong(1, 2_000), TimeUnit.MICROSECONDS)) {
                    return false;
                }
            }
            case 6 -> {
                lock.lock();
                try {
                    if (!lock.tryLock()) {
                        throw new AssertionError("the owner failed to re-enter with tryLock");
                    }
                    try {
                        section(lock, g, random, sections, 2);
                    } finally {
                        lock.unlock();
                    }
                } finally {
                    lock.unlock();
                }
                return true;
            }
            case 7 -> {
                lock.lock();
                try {
                    g.tokens++;
                    if (random.nextInt(8) == 0) {
                        condition.signalAll();
                    } else {
                        condition.signal();
                    }
                    section(lock, g, random, sections, 1);
                } finally {
                    lock.unlock();
                }
                return true;
            }
            default -> {
                lock.lock();
                try {
                    boolean timed = random.nextBoolean();
                    long nanos = TimeUnit.MICROSECONDS.toNanos(random.nextLong(1, 5_000));
                    while (g.tokens == 0 && !g.stop) {
                        if (timed) {
                            if (nanos <= 0) {
                                return false;
                            }
                            nanos = condition.awaitNanos(nanos);
                        } else {
                            condition.await();
                        }
                        checkHeld(lock, 1);
                    }
                    if (g.tokens > 0) {
                        g.tokens--;
                    }
                    section(lock, g, random, sections, 1);
                    return true;
                } finally {
                    lock.unlock();
                }
            }
        }
        try {
            section(lock, g, random, sections, 1);
        } finally {
            lock.unlock();
        }
        return true;
    }

    /**
     * The critical section, entered holding the lock {@code holds} times: checks exclusion and the invariant,
     * and mutates the guarded pair with a yield in the middle.
     */
    private static void section(InspectableLock lock, Guarded g, ThreadLocalRandom random, LongAdder sections, int holds) {
        checkHeld(lock, holds);
        Thread me = Thread.currentThread();
        if (scheduler != null && NumaScheduler.currentCarrierNode() != NumaScheduler.homeNode(me)) {
            throw new AssertionError(me + " homed on node " + NumaScheduler.homeNode(me) + " runs on a carrier of node "
                    + NumaScheduler.currentCarrierNode());
        }
        if (g.inside != null) {
            throw new AssertionError(me + " entered while " + g.inside + " was inside");
        }
        if (g.a != g.b) {
            throw new AssertionError("invariant a == b broken on entry: " + g.a + " != " + g.b);
        }
        g.inside = me;
        g.a++;
        if (random.nextInt(4) == 0) {
            Thread.yield();
        }
        if (g.inside != me) {
            throw new AssertionError(g.inside + " got in while " + me + " was inside");
        }
        g.b++;
        g.sections++;
        g.inside = null;
        sections.increment();
    }

    private static void checkHeld(InspectableLock lock, int holds) {
        if (!lock.isHeldByCurrentThread() || lock.getHoldCount() != holds) {
            throw new AssertionError("expected to hold the lock " + holds + " time(s), hold count is " + lock.getHoldCount());
        }
    }
}
