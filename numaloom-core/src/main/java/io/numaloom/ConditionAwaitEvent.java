package io.numaloom;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import jdk.jfr.Timespan;

/**
 * JFR event {@value #NAME}: a wait on a {@link VnaLock}'s {@link java.util.concurrent.locks.Condition},
 * from the call to its return with the lock held again, the numaloom counterpart of
 * {@code jdk.JavaMonitorWait}. Recorded when it lasted at least the threshold, 20 ms by default.
 */
@Name(ConditionAwaitEvent.NAME)
@Label("numaloom Condition Await")
@Category({"numaloom", "Locks"})
@Description("A thread waited on a condition of a numaloom lock")
@StackTrace(true)
@Threshold("20 ms")
final class ConditionAwaitEvent extends LockEvent {
    static final String NAME = "io.numaloom.ConditionAwait";

    private static final ConditionAwaitEvent PROBE = new ConditionAwaitEvent();

    @Label("Timeout")
    @Description("The timeout asked for; Long.MAX_VALUE ns (shown as infinite) for an untimed await")
    @Timespan(Timespan.NANOSECONDS)
    long timeout;

    @Label("Timed Out")
    boolean timedOut;

    /** A started event for an await, or null when no recording wants it. */
    static ConditionAwaitEvent beginIfEnabled(ConditionLock lock, long timeoutNanos) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        ConditionAwaitEvent e = new ConditionAwaitEvent();
        e.begin(lock);
        e.timeout = timeoutNanos;
        return e;
    }

    /** Ends and commits the event once the lock is held again. */
    void returned(boolean timedOut) {
        end();
        if (shouldCommit()) {
            describeKey();
            this.timedOut = timedOut;
            commit();
        }
    }
}
