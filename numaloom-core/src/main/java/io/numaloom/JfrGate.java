package io.numaloom;

import jdk.jfr.FlightRecorder;

/**
 * Whether numaloom's JFR events may be wanted: false until the JVM's Flight Recorder has been
 * initialized (a recording started on the command line, by {@code jcmd JFR.start}, through JMX or
 * the {@code jdk.jfr} API), since no recording can exist before that.
 *
 * <p>The first use of an event class ({@link LockContendedEvent}, {@link ConditionAwaitEvent})
 * registers it with JFR, and the first registration in a JVM builds JFR's metadata repository in
 * the class's initialization, spent by the first thread that waits for a lock, while every other
 * thread that starts to wait at that moment blocks on it. One run (commit 9c7394a, pre-method, not
 * re-measured since) read the first contended {@code lock()} at 125-150 ms from the waiter's start
 * to its park, 3-5 ms with this gate; see docs/measurements.md, entry 37. ({@code JfrGateTest}
 * checks that the classes stay uninitialized.) A JVM that never records
 * should not pay that at its first contended acquisition, so the slow paths ask this gate (one read
 * of a static flag) before they touch an event class. Once a recording has started, the next
 * contended acquisition registers the event class, and a recording that enables the event sees it
 * from then on.
 */
final class JfrGate {
    private JfrGate() {}

    /** {@return whether a JFR recording may be running, so that the event classes are worth loading} */
    static boolean recorderStarted() {
        return FlightRecorder.isInitialized();
    }
}
