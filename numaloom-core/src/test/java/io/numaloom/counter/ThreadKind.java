package io.numaloom.counter;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/** Platform or virtual: the tests run every concurrent scenario on both. */
enum ThreadKind {
    PLATFORM, VIRTUAL;

    /** A task that may throw; failures are collected and rethrown by {@link Crew#join}. */
    interface Task {
        void run() throws Exception;
    }

    /** Starts threads of one kind and joins them, turning their failures into test failures. */
    final class Crew {
        private final List<Thread> threads = new ArrayList<>();
        private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();

        Thread start(String name, Task task) {
            Runnable body = () -> {
                try {
                    task.run();
                } catch (Throwable t) {
                    failures.add(t);
                }
            };
            Thread t = ThreadKind.this == PLATFORM
                    ? Thread.ofPlatform().name(name).start(body)
                    : Thread.ofVirtual().name(name).start(body);
            threads.add(t);
            return t;
        }

        void join(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            for (Thread t : threads) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                    StringBuilder dump = new StringBuilder();
                    for (Thread u : threads) {
                        if (u.isAlive()) {
                            dump.append('\n').append(u).append(' ').append(u.getState());
                            for (StackTraceElement e : u.getStackTrace()) {
                                dump.append("\n    at ").append(e);
                            }
                        }
                    }
                    fail(t + " did not finish within " + timeout + "; still running:" + dump
                            + "\nfailures so far: " + failures);
                }
            }
            Throwable first = failures.peek();
            if (first != null) {
                AssertionError e = new AssertionError(failures.size() + " thread(s) failed", first);
                failures.stream().skip(1).forEach(e::addSuppressed);
                throw e;
            }
        }
    }

    /**
     * Lets other threads run. Platform threads yield. Virtual threads park for a few microseconds:
     * a virtual thread that yields in a loop can keep its carrier's own queue busy so that threads
     * submitted from outside the pool (started by the test thread, say) wait for a long time, which
     * would make a test measure the scheduler's fairness instead of the counter.
     */
    static void breathe() {
        if (Thread.currentThread().isVirtual()) {
            LockSupport.parkNanos(20_000);
        } else {
            Thread.yield();
        }
    }

    Crew crew() {
        return new Crew();
    }

    /**
     * How long a test waits for something that must happen (a thread to park, a crew to finish) before
     * it fails instead of hanging: reached only when the counter is broken, so generous enough for a
     * machine busy with other work.
     */
    static final Duration PATIENCE = Duration.ofSeconds(30);

    /** Waits until {@code t} parks (or fails the test after {@link #PATIENCE}). */
    static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (t.getState() != Thread.State.WAITING) {
            assertFalse(t.getState() == Thread.State.TERMINATED, t + " ended instead of waiting");
            if (System.nanoTime() > deadline) {
                fail(t + " did not park; state " + t.getState());
            }
            Thread.sleep(1);
        }
    }
}
