package io.numaloom.bench.run;

import org.junit.jupiter.api.Test;

import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * How a measured JVM names its end from the JDK's record of {@code Runtime.exit} (a real one is in WorkloadClassTest):
 * code that called {@code System.exit} or {@code Runtime.exit}, a signal (the JDK's signal handler calls the same exit
 * path, from no code of the point), or no record at all.
 */
class ForkGuardTest {
    @Test
    void namesTheCallerOfSystemExitAndItsStatus() {
        assertEquals("the measured JVM was exited by System.exit(3) at com.acme.Quits.run(Quits.java:4) while its point ran: "
                        + "a critical section, and the code it calls, must return, not end the JVM",
                ForkGuard.describe(record(3, frame("java.lang.Shutdown", "logRuntimeExit"), frame("java.lang.Shutdown", "exit"),
                        frame("java.lang.Runtime", "exit"), frame("java.lang.System", "exit"), frame("com.acme.Quits", "run"),
                        frame("io.numaloom.bench.Worker", "run"))));
        assertEquals("the measured JVM was exited by Runtime.exit(-1) at com.acme.Quits.run(Quits.java:4) while its point "
                        + "ran: a critical section, and the code it calls, must return, not end the JVM",
                ForkGuard.describe(record(-1, frame("java.lang.Shutdown", "exit"), frame("java.lang.Runtime", "exit"),
                        frame("com.acme.Quits", "run"))));
    }

    @Test
    void aSignalIsNotAnExitOfTheSection() {
        assertEquals("the measured JVM was stopped from outside while its point ran (exit status 143: signal 15)",
                ForkGuard.describe(record(143, frame("java.lang.Shutdown", "exit"), frame("java.lang.Terminator$1", "handle"),
                        frame("jdk.internal.misc.Signal$1", "run"), frame("java.lang.Thread", "run"))));
        assertEquals("the measured JVM was shut down while its point ran", ForkGuard.describe(null));
    }

    private static LogRecord record(int status, StackTraceElement... frames) {
        Throwable exit = new Throwable("Runtime.exit(" + status + ")");
        exit.setStackTrace(frames);
        LogRecord r = new LogRecord(Level.FINE, "Runtime.exit() called with status: " + status);
        r.setThrown(exit);
        return r;
    }

    private static StackTraceElement frame(String className, String method) {
        String file = className.substring(className.lastIndexOf('.') + 1).replaceAll("\\$.*", "") + ".java";
        return new StackTraceElement(className, method, file, 4);
    }
}
