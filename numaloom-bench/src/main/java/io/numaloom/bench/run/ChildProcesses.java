package io.numaloom.bench.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The processes a run starts, and their end when the run is stopped: the measured JVMs (JMH forks them, from this
 * JVM: they are its children), the class cache's training JVM (a JMH fork too) and the JVM that writes the cache.
 *
 * <p>A stop (Ctrl-C, SIGTERM: the bench's shutdown hook calls {@link #stop}) must leave no JVM of the run running,
 * whenever it comes. Ending the descendants once is not enough: the run's thread goes on while the hook runs, and a
 * point whose class cache was being recorded when its training JVM died went on to start its measured JVM after the
 * hook had looked, which then outlived the bench (with a section that never returns, forever). So every start goes
 * through this class, which refuses it once the stop began: {@link #start} starts a process, {@link #run} runs code
 * that starts processes itself (a JMH run, which forks its JVMs later, inside). The stop sets its flag under the lock
 * those read it under, then ends every descendant until no {@link #run} begun before the stop is still going.
 */
public final class ChildProcesses {
    /** How long a stopped process has to end (its shutdown hooks) before it is killed. */
    static final Duration GRACE = Duration.ofSeconds(2);
    /** The longest {@link #stop} goes on ending processes while code that starts them still runs, in seconds. */
    public static final int STOP_BOUND_SECONDS = 10;

    /** Code that starts processes (a JMH run). */
    @FunctionalInterface
    public interface Starting<T, E extends Exception> {
        T run() throws E, InterruptedException;
    }

    /** Thrown instead of starting a process once the run is stopping. */
    public static final class StoppingException extends Exception {
        private static final long serialVersionUID = 1L;

        StoppingException() {
            super("the run is stopping: no JVM is started");
        }
    }

    private final Object lock = new Object();
    /** Set once, under {@link #lock}, by {@link #stop}. */
    private boolean stopping;
    /** The {@link #run} calls in progress, under {@link #lock}. */
    private int running;

    /** Starts {@code builder}'s process, unless the run is stopping. */
    Process start(ProcessBuilder builder) throws IOException, StoppingException {
        synchronized (lock) {
            if (stopping) {
                throw new StoppingException();
            }
            // Started under the lock: a stop that comes after the check finds the process among the descendants.
            return builder.start();
        }
    }

    /** Runs {@code body}, which starts processes (a JMH run), unless the run is stopping. */
    <T, E extends Exception> T run(Starting<T, E> body) throws E, InterruptedException, StoppingException {
        synchronized (lock) {
            if (stopping) {
                throw new StoppingException();
            }
            running++;
        }
        try {
            return body.run();
        } finally {
            synchronized (lock) {
                running--;
            }
        }
    }

    /** Whether {@link #stop} was called. */
    public boolean stopping() {
        synchronized (lock) {
            return stopping;
        }
    }

    /**
     * Stops the run's processes: no process starts through this object any more, and every descendant of this JVM
     * (children and theirs) is asked to end (SIGTERM), then killed after {@link #GRACE}, and waited for; again while a
     * {@link #run} begun before the stop goes on (it may start one more), for at most {@link #STOP_BOUND_SECONDS}.
     *
     * @return the descendants still running when it gave up (none, normally)
     */
    public List<ProcessHandle> stop() {
        synchronized (lock) {
            stopping = true;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOP_BOUND_SECONDS);
        while (true) {
            // One snapshot before any is ended: a grandchild whose parent died first would leave the tree unseen.
            List<ProcessHandle> all = ProcessHandle.current().descendants().toList();
            all.forEach(ProcessHandle::destroy);
            if (!awaitEnd(all, GRACE, deadline)) {
                all.stream().filter(ChildProcesses::running).forEach(ProcessHandle::destroyForcibly);
                awaitEnd(all, GRACE, deadline);
            }
            boolean starting;
            synchronized (lock) {
                starting = running > 0;
            }
            List<ProcessHandle> left = ProcessHandle.current().descendants().filter(ChildProcesses::running).toList();
            if (!starting && left.isEmpty() || System.nanoTime() - deadline > 0) {
                return left;
            }
            if (left.isEmpty() && !pause(POLL)) {
                return left; // a run still going may fork once more: look again
            }
        }
    }

    /**
     * Whether {@code p} runs: alive, and not a zombie (a process that ended and that its parent has not reaped yet,
     * which {@link ProcessHandle#isAlive()} counts as alive; a JVM's process reaper reaps its children at once, but
     * an orphan waits for init, which in a container may never come).
     */
    public static boolean running(ProcessHandle p) {
        if (!p.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            // pid (command) state ...: the command may hold spaces and parentheses, so from the last ')'.
            int close = stat.lastIndexOf(')');
            char state = close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException e) {
            return p.isAlive(); // no /proc (not Linux), or it ended meanwhile
        }
    }

    private static final Duration POLL = Duration.ofMillis(20);

    /** Waits until no process of {@code all} runs, at most {@code wait} and not past {@code deadline}; whether none does. */
    private static boolean awaitEnd(List<ProcessHandle> all, Duration wait, long deadline) {
        long until = System.nanoTime() + wait.toNanos();
        if (until - deadline > 0) {
            until = deadline;
        }
        while (all.stream().anyMatch(ChildProcesses::running)) {
            if (System.nanoTime() - until > 0 || !pause(POLL)) {
                return false;
            }
        }
        return true;
    }

    /** Sleeps; false if interrupted (the interrupt is kept). */
    private static boolean pause(Duration d) {
        try {
            Thread.sleep(d);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
