package io.numaloom.scheduler;

import io.numaloom.topology.CurrentCpu;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Records, at every step of a virtual thread (after each park, yield, sleep, lock, condition wait...), which carrier
 * runs it, and collects every step that ran anywhere but on a carrier of the thread's intended home node. The
 * carrier is found by the test's own call of {@code Thread.currentCarrierThread()} (needs the same
 * {@code --add-opens} as the scheduler), and compared by identity with the scheduler's carriers of that node.
 * Where the carriers are pinned and {@code CurrentCpu} reads the real CPU, it also checks that the CPU the step
 * runs on belongs to the home node, i.e. that {@code CurrentCpu.node()} and {@code NumaScheduler.homeNode} agree.
 */
final class Steps {
    /** Failure guard only: a healthy run takes well under a second per test. */
    static final long DEADLINE_SECONDS = 60;

    private static final MethodHandle CURRENT_CARRIER;

    static {
        try {
            CURRENT_CARRIER = MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup())
                    .findStatic(Thread.class, "currentCarrierThread", MethodType.methodType(Thread.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final NumaScheduler scheduler;
    private final boolean cpuChecked;
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final LongAdder steps = new LongAdder();
    private final List<Thread> threads = new ArrayList<>();

    Steps(NumaScheduler scheduler) {
        this.scheduler = scheduler;
        this.cpuChecked = scheduler.pinned() && CurrentCpu.source() == CurrentCpu.Source.SCHED_GETCPU;
    }

    static Thread carrier() {
        try {
            return (Thread) CURRENT_CARRIER.invokeExact();
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** Whether steps also check the CPU (pinned carriers, real CPU ids). */
    boolean cpuChecked() {
        return cpuChecked;
    }

    /** Checks that the calling virtual thread, meant to be homed on {@code home}, runs there now. */
    void step(int home, String what) {
        steps.increment();
        Thread me = Thread.currentThread();
        Thread carrier = carrier();
        if (NumaScheduler.homeNode(me) != home) {
            violations.add(me + " " + what + ": homeNode " + NumaScheduler.homeNode(me) + ", expected " + home);
        }
        if (!scheduler.carriers(home).contains(carrier)) {
            violations.add(me + " " + what + ": on carrier " + carrier + ", not one of node " + home + "'s");
        }
        if (NumaScheduler.currentCarrierNode() != home) {
            violations.add(me + " " + what + ": currentCarrierNode " + NumaScheduler.currentCarrierNode());
        }
        if (cpuChecked) {
            int cpu = CurrentCpu.cpu();
            int node = CurrentCpu.node();
            if (node != home) {
                violations.add(me + " " + what + ": on cpu " + cpu + " of node " + node);
            }
        }
    }

    long steps() {
        return steps.sum();
    }

    /** A body of a virtual thread; its exceptions are collected and fail {@link #joinAll()}. */
    interface Body {
        void run() throws Exception;
    }

    /** Starts a virtual thread homed on {@code home} that runs {@code body} after a first step check. */
    Thread start(int home, Body body) {
        Thread t = scheduler.threadFactory(home).newThread(() -> {
            step(home, "at start");
            try {
                body.run();
            } catch (Throwable e) {
                errors.add(e);
            }
        });
        threads.add(t);
        t.start();
        return t;
    }

    /** Joins every started thread (failing on the deadline), then fails on any violation or exception. */
    void joinAll() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !t.join(java.time.Duration.ofNanos(left))) {
                fail("not finished in " + DEADLINE_SECONDS + " s: " + t + " " + t.getState() + "\n" + dump(t));
            }
        }
        assertNoViolations();
    }

    void assertNoViolations() {
        if (!errors.isEmpty()) {
            AssertionError e = new AssertionError(errors.size() + " thread(s) failed; first: " + errors.peek(), errors.peek());
            errors.forEach(x -> { if (x != errors.peek()) e.addSuppressed(x); });
            throw e;
        }
        assertTrue(violations.isEmpty(), () -> violations.size() + " of " + steps() + " steps off their home node; first ones: "
                + violations.stream().limit(10).toList());
    }

    private static String dump(Thread t) {
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            sb.append("    at ").append(e).append('\n');
        }
        return sb.toString();
    }

    static void assertStopped(NumaScheduler scheduler) {
        assertTrue(scheduler.isClosed());
        for (int node = 0; node < scheduler.nodes(); node++) {
            for (Thread c : scheduler.carriers(node)) {
                assertEquals(Thread.State.TERMINATED, c.getState(), c + " still alive after close()");
            }
        }
    }
}
