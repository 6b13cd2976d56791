package io.numaloom.bench.run;

import java.util.Optional;

/**
 * A measured JVM (a JMH fork of a bench run) halts when the JVM that forked it is gone: killed with SIGKILL, say, so
 * that its shutdown hook, which ends the measured JVMs, never ran. JMH's fork does not notice (seen: a fork in its
 * first round ran on under init), and would finish its rounds for no one or, with a section that never returns, run
 * forever. The JDK sees a process that is not its child end within about 5 s ({@link ProcessHandle#onExit()} polls
 * it), one thread asleep meanwhile.
 *
 * <p>Only in forked JVMs: the run passes its pid in {@value #PARENT_PROPERTY}. A point measured in the JVM that runs
 * it ({@code LockMatrix.of(Runnable)}) has none.
 */
final class ForkGuard {
    /** The system property that holds the pid of the JVM that forked this one. */
    static final String PARENT_PROPERTY = "numaloom.bench.parent";

    /** The status a measured JVM halts with when its parent is gone (no one reads it). */
    static final int ORPHANED = 97;

    private static boolean parentWatched;

    private ForkGuard() {}

    /** In a forked JVM, halts it once its parent is gone (at once if it is gone already); elsewhere nothing. */
    static synchronized void watchParent() {
        String parent = System.getProperty(PARENT_PROPERTY);
        if (parent == null || parent.isBlank() || parentWatched) {
            return;
        }
        long pid = Long.parseLong(parent.strip());
        Optional<ProcessHandle> current = ProcessHandle.current().parent();
        if (current.isEmpty() || current.get().pid() != pid) {
            Runtime.getRuntime().halt(ORPHANED); // reparented already: the run that forked this JVM is gone
        }
        current.get().onExit().thenRun(() -> Runtime.getRuntime().halt(ORPHANED));
        parentWatched = true;
    }
}
