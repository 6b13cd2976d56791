package io.numaloom.bench.run;

import java.util.Optional;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a measured JVM (a JMH fork of a bench run) does about its own end, which JMH does not tell the run.
 *
 * <ul>
 * <li><b>It halts when the JVM that forked it is gone</b> (killed with SIGKILL, say, so that its shutdown hook, which
 *     ends the measured JVMs, never ran): JMH's fork does not notice (seen: a fork in its first round ran on under
 *     init), and would finish its rounds for no one, or, with a section that never returns, run forever. The JDK
 *     sees a process that is not its child end within about 5 s ({@link ProcessHandle#onExit()} polls it), one
 *     thread asleep meanwhile.</li>
 * <li><b>When it is ended while its point runs, it says how</b>: {@code System.exit(N)} and the frame that called it
 *     (a user's critical section that exits the JVM), or a signal. JMH reports only "Benchmark caught the exception"
 *     (status 0) or the exit code. The JDK logs every {@code Runtime.exit} with its status and stack on the
 *     {@code System.Logger} {@code java.lang.Runtime} at level DEBUG, before it runs the shutdown hooks (see
 *     {@link Runtime#exit(int)}); a handler on that logger keeps the record, and a shutdown hook reports it.</li>
 * </ul>
 *
 * <p>Only in forked JVMs: the run passes its pid in {@value #PARENT_PROPERTY}. A point measured in the JVM that runs
 * it ({@code LockMatrix.of(Runnable)}) has neither, and its logging is left alone.
 */
final class ForkGuard {
    /** The system property that holds the pid of the JVM that forked this one. */
    static final String PARENT_PROPERTY = "numaloom.bench.parent";

    /** The status a measured JVM halts with when its parent is gone (no one reads it). */
    static final int ORPHANED = 97;

    /** The JDK's logger of {@code Runtime.exit}; held here, as a logger nobody holds may be collected with its level. */
    private static final Logger RUNTIME_EXIT = Logger.getLogger("java.lang.Runtime");

    /** The last {@code Runtime.exit} this JVM logged, or null. */
    private static volatile LogRecord exit;
    /** Whether the parent is watched and the exit logger set, once per JVM. */
    private static boolean installed;

    private final Thread hook;

    private ForkGuard(Thread hook) {
        this.hook = hook;
    }

    /**
     * In a forked JVM, watches the parent and, until {@link #close()}, tells {@code ended} how this JVM is being ended
     * (from a shutdown hook, before it halts); elsewhere nothing.
     *
     * @return the guard, or empty outside a forked JVM
     */
    static synchronized Optional<ForkGuard> install(Consumer<String> ended) {
        String parent = System.getProperty(PARENT_PROPERTY);
        if (parent == null || parent.isBlank()) {
            return Optional.empty();
        }
        if (!installed) {
            watchParent(Long.parseLong(parent.strip()));
            RUNTIME_EXIT.setLevel(Level.FINE); // System.Logger's DEBUG
            RUNTIME_EXIT.setUseParentHandlers(false);
            RUNTIME_EXIT.addHandler(new Handler() {
                @Override
                public void publish(LogRecord r) {
                    if (r.getThrown() != null) {
                        exit = r;
                    }
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            });
            installed = true;
        }
        Thread hook = new Thread(() -> ended.accept(describe(exit)), "numaloom-fork-ended");
        Runtime.getRuntime().addShutdownHook(hook);
        return Optional.of(new ForkGuard(hook));
    }

    /** The point ended as it should: its end is no longer reported. */
    void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The JVM is being ended already, as the point finished: the hook runs and reports it.
        }
    }

    private static void watchParent(long pid) {
        Optional<ProcessHandle> parent = ProcessHandle.current().parent();
        if (parent.isEmpty() || parent.get().pid() != pid) {
            Runtime.getRuntime().halt(ORPHANED); // reparented already: the run that forked this JVM is gone
        }
        parent.get().onExit().thenRun(() -> Runtime.getRuntime().halt(ORPHANED));
    }

    /** The message of the JDK's record of {@code Runtime.exit}. */
    private static final Pattern EXIT_MESSAGE = Pattern.compile("Runtime\\.exit\\((-?\\d+)\\)");

    /**
     * How the JVM is being ended, from the record of its {@code Runtime.exit}: the status and the first frame outside
     * the JDK's exit path when code called it, the status when a signal did (its stack holds no {@code Runtime.exit}).
     */
    static String describe(LogRecord exit) {
        if (exit == null || exit.getThrown() == null) {
            return "the measured JVM was shut down while its point ran";
        }
        Matcher m = EXIT_MESSAGE.matcher(String.valueOf(exit.getThrown().getMessage()));
        String status = m.matches() ? m.group(1) : "?";
        StackTraceElement[] frames = exit.getThrown().getStackTrace();
        for (int i = 0; i < frames.length; i++) {
            if (frames[i].getClassName().equals("java.lang.Runtime") && frames[i].getMethodName().equals("exit")) {
                int caller = i + 1;
                String call = "Runtime.exit";
                if (caller < frames.length && frames[caller].getClassName().equals("java.lang.System")) {
                    call = "System.exit";
                    caller++;
                }
                String where = caller < frames.length ? " at " + frame(frames[caller]) : "";
                return "the measured JVM was exited by " + call + "(" + status + ")" + where + " while its point ran: a "
                        + "critical section, and the code it calls, must return, not end the JVM";
            }
        }
        int code = m.matches() ? Integer.parseInt(status) : -1;
        return "the measured JVM was stopped from outside while its point ran (exit status " + status
                + (code > 128 && code < 160 ? ": signal " + (code - 128) : "") + ")";
    }

    /** A frame as a stack trace shows it, without its class loader and module. */
    private static String frame(StackTraceElement f) {
        String at = f.getFileName() == null ? "Unknown Source"
                : f.getLineNumber() >= 0 ? f.getFileName() + ":" + f.getLineNumber() : f.getFileName();
        return f.getClassName() + "." + f.getMethodName() + "(" + at + ")";
    }
}
