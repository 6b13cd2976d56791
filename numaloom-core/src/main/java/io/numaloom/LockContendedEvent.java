package io.numaloom;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * JFR event {@value #NAME}: an acquisition of a {@link VnaLock} (or of a {@link KeyedLock} key)
 * that had to wait, the numaloom counterpart of {@code jdk.JavaMonitorEnter}. Recorded when the
 * wait lasted at least the threshold, 20 ms by default as for {@code jdk.JavaMonitorEnter}; change
 * it in a recording's settings, e.g. {@code -XX:StartFlightRecording:settings=...} or
 * {@code jfr configure}, or with {@code RecordingStream.enable(NAME).withThreshold(...)}.
 *
 * <p>The event carries the lock's name ({@link VnaLock#named}, {@code KeyedLock.builder().name}),
 * for a {@code KeyedLock} the key (its {@code toString}, bounded, unless
 * {@link KeyedLock.Builder#keysInEvents} turned that off), and the waiter's stack. It is committed
 * inside numaloom, a few frames below the caller's {@code lock()} (for a {@code KeyedLock} a few
 * more); with JFR's default {@code stackdepth} of 64 the caller's frame is recorded, and the
 * contention summary ({@code numaloom-tools}) groups waits by it. A recording with a much smaller
 * {@code stackdepth} may cut it off.
 *
 * <p>Costs: none on the uncontended path, which never reaches this class. On the contended path
 * without a recording, one check that JFR keeps false; with a recording, one small object per
 * contended acquisition.
 */
@Name(LockContendedEvent.NAME)
@Label("numaloom Lock Contended")
@Category({"numaloom", "Locks"})
@Description("A thread waited to acquire a numaloom lock")
@StackTrace(true)
@Threshold("20 ms")
final class LockContendedEvent extends LockEvent {
    static final String NAME = "io.numaloom.LockContended";

    /** Reads the event's enabled state (a static of the instrumented class) without allocating. */
    private static final LockContendedEvent PROBE = new LockContendedEvent();

    @Label("Previous Owner")
    @Description("The thread that held the lock when the wait began; none if the lock was changing hands or free but reserved for a waiter that had been overtaken too long")
    Thread previousOwner;

    @Label("Waiter Queue")
    @Description("The waiter's queue: its NUMA node for new VnaLock(), its socket for perSocket()")
    int waiterQueue;

    @Label("Owner Queue")
    @Description("The queue through which the holder at the start of the wait acquired, -1 if it barged in or was unknown")
    int ownerQueue;

    @Label("Queued")
    @Description("Whether the waiter queued; false if it took the lock while polling as a newcomer")
    boolean queued;

    @Label("Reserved")
    @Description("Whether the waiter reserved the lock after being overtaken for its patience (1 ms) and took it that way, rather than by competition")
    boolean reserved;

    @Label("Parks")
    @Description("How many times the waiter parked")
    int parks;

    /**
     * A started event for a lock about to be waited for, or null when no recording wants it. The
     * owner's queue is read from {@code waiters} only then, so that without a recording the slow
     * path does not touch the line the owner reads on release.
     */
    static LockContendedEvent beginIfEnabled(ConditionLock lock, Thread previousOwner, int waiterQueue,
                                             VnaWaiters waiters) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        LockContendedEvent e = new LockContendedEvent();
        e.begin(lock);
        e.previousOwner = previousOwner;
        e.waiterQueue = waiterQueue;
        e.ownerQueue = waiters.ownerQueue();
        return e;
    }

    /** Ends and commits the event of an acquisition; {@code parks} and {@code reserved} as the waiter saw them. */
    void acquired(boolean queued, int parks, boolean reserved) {
        end();
        if (shouldCommit()) {
            describeKey();
            this.queued = queued;
            this.parks = parks;
            this.reserved = reserved;
            commit();
        }
    }
}
