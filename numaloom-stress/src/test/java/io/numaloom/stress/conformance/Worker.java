package io.numaloom.stress.conformance;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A thread that runs one step of a conformance test, and the waiting helpers the tests share.
 *
 * <p>Bounds are generous on purpose: {@link #PATIENCE} is how long a test waits for something that must happen
 * (a thread to block, a waiter to finish); it is only reached when the lock is broken, and then the failure
 * message carries the stuck thread's stack. Timeouts under test are {@link #SHORT_MS}; the tests check that they
 * are not returned early, and return well within {@link #PATIENCE}, never how fast.
 */
final class Worker {

    /** How long to wait for something that must happen before calling it a failure. */
    static final Duration PATIENCE = Duration.ofSeconds(20);

    /** A timeout that must expire in the test. */
    static final long SHORT_MS = 50;

    /** How long a thread that must stay blocked is watched. */
    static final long OBSERVE_MS = 100;

    /** A step run by a worker; any {@link Throwable} fails the test when the worker is joined. */
    @FunctionalInterface
    interface Body {
        void run() throws Throwable;
    }

    private final Thread thread;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Throwable failure;

    private Worker(String name, boolean virtual, Body body) {
        Runnable task = () -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure = t;
            } finally {
                done.countDown();
            }
        };
        this.thread = virtual
                ? Thread.ofVirtual().name(name).unstarted(task)
                : Thread.ofPlatform().name(name).daemon().unstarted(task);
    }

    /** Starts {@code body} on a new platform thread. */
    static Worker start(String name, Body body) {
        return start(name, false, body);
    }

    /** Starts {@code body} on a new virtual thread when {@code virtual}, else on a platform thread. */
    static Worker start(String name, boolean virtual, Body body) {
        Worker w = new Worker(name, virtual, body);
        w.thread.start();
        return w;
    }

    Thread thread() {
        return thread;
    }

    boolean finished() {
        return done.getCount() == 0;
    }

    void interrupt() {
        thread.interrupt();
    }

    /** Waits for the worker to finish and rethrows what it threw; fails with its stack when it does not finish. */
    void join() {
        try {
            if (!done.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                fail(thread + " did not finish within " + PATIENCE + "; it is at:\n" + stackOf(thread));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted while joining " + thread);
        }
        Throwable t = failure;
        if (t instanceof Error e) {
            throw e;
        }
        if (t != null) {
            throw new AssertionError(thread + " failed", t);
        }
    }

    /** Waits until the worker is parked or blocked (it has entered a wait and given up its CPU). */
    void awaitBlocked() {
        eventually(thread + " blocks (state " + thread.getState() + ")", () -> switch (thread.getState()) {
            case WAITING, TIMED_WAITING, BLOCKED -> true;
            default -> false;
        });
    }

    /** Waits until the worker is parked or blocked, or has finished: a timed wait may end before it is seen. */
    void awaitBlockedOrFinished() {
        eventually(thread + " blocks or finishes (state " + thread.getState() + ")", () -> finished()
                || switch (thread.getState()) {
                    case WAITING, TIMED_WAITING, BLOCKED -> true;
                    default -> false;
                });
    }

    /** Asserts that the worker is still waiting after {@link #OBSERVE_MS}. */
    void assertStillWaiting(String why) {
        sleep(OBSERVE_MS);
        assertFalse(finished(), () -> thread + " returned although " + why);
    }

    /** Polls {@code condition} until it holds, failing after {@link #PATIENCE}. */
    static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + PATIENCE + " waiting until " + what);
            }
            sleep(1);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("test thread interrupted", e);
        }
    }

    static String stackOf(Thread t) {
        return Arrays.stream(t.getStackTrace()).map(e -> "\tat " + e).collect(Collectors.joining("\n"));
    }
}
