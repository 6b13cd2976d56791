package io.numaloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.LockSupport;

/**
 * A waiting thread's entry in one MCS queue of a {@code VnaLock} ({@link VnaWaiters}). One node
 * per thread, cached and reused across locks (a thread waits for one lock at a time, and a node
 * is released as soon as its thread owns the lock); a cancelled node is abandoned and never
 * reused.
 *
 * <p><b>Idea.</b> The MCS queue node of J. M. Mellor-Crummey and M. L. Scott, "Algorithms for
 * Scalable Synchronization on Shared-Memory Multiprocessors" (ACM TOCS 1991), as the VNA lock
 * (Kovalev, Koval et al., "NUMA-aware lock for Java Lightweight Threads") queues it per NUMA node,
 * with what a parking waiter needs besides its link: a status that says whether it is a
 * candidate, the park it announces so that a release wakes it ({@link #unparkIfParked}, once per
 * announcement), the deadline it reserves the lock at as heir ({@link VnaReservation}), and an
 * incarnation, so that a designation made for one wait never applies to the next
 * ({@link VnaSuccession}).
 *
 * <p><b>Properties.</b> No allocation per acquisition (one node per thread, until it cancels);
 * a thread waits on its own node only; the status moves by CAS where two threads race for it
 * (the grant of the candidacy against the node's own cancellation), by a store where only the
 * node's own thread moves it.
 *
 * <p>Status moves WAITING -> CANDIDATE (granted by the MCS predecessor, or at once on an
 * empty queue) -> DONE, or from WAITING or CANDIDATE to CANCELLED. {@code waiters} is the
 * lock the node is queued in and is null once DONE, so "waiters == w and status ==
 * CANDIDATE", read in that order, proves the node is a live candidate of w.
 *
 * <p><b>Cancellation.</b> A timed-out or interrupted waiter that is not yet a candidate marks
 * its node cancelled by CAS (racing the grant of the candidacy, also a CAS) and leaves it in
 * the queue; whoever passes the candidacy on skips cancelled nodes, releasing their MCS position
 * on their behalf. A cancelled node is never reused (its thread takes a fresh one), so no stale
 * reference can reach a later incarnation. A cancelling candidate clears its reservation,
 * passes its candidacy on, gives up the heir role and calls {@code wakeHeir}, so no wake-up is
 * lost.
 */
final class VnaQueueNode {
    static final int WAITING = 0;
    static final int CANDIDATE = 1;
    static final int CANCELLED = 3;
    static final int DONE = 4;

    private static final ThreadLocal<VnaQueueNode> CACHE = new ThreadLocal<>();

    final Thread thread;
    /** The queue index; written before the node is published by the tail swap. */
    int queue;
    // Volatile where the hot paths read or write them directly (see "Hot paths warm up" in VnaLock);
    // VarHandles ignore that and keep their own modes.
    private VnaQueueNode next;               // NEXT
    private volatile int status;             // STATUS_UPDATER
    private volatile boolean parked;         // PARKED
    private volatile VnaWaiters waiters;
    /**
     * When the heir stops letting others barge (nanoTime): written by the designator before the
     * heir slot's CAS, the earlier of the designation plus {@link VnaSuccession#PATIENCE_NANOS} and
     * {@link #queuedAt} plus {@link VnaSuccession#STARVATION_NANOS}.
     */
    private long deadline;         // DEADLINE
    /** Counts the waits this node served; a designation is valid for one. */
    private volatile int incarnation;
    /** This wait's parks and whether it reserved the lock: for the JFR event; the owner thread's own. */
    int parks;
    boolean reserved;
    /**
     * Whether this thread, in this wait, has read the lock word free (a volatile read, after
     * it registered): every later owner then releases through the fenced path. Its own.
     */
    boolean sawFree;
    /**
     * When this wait was queued (nanoTime); written by its own thread before the node is published,
     * read by designators, which find the node through volatile reads after that.
     */
    long queuedAt;

    private VnaQueueNode(Thread thread) {
        this.thread = thread;
    }

    static VnaQueueNode forCurrentThread(Thread me) {
        VnaQueueNode q = CACHE.get();
        if (q == null || q.status == CANCELLED) {
            q = new VnaQueueNode(me);
            CACHE.set(q);
        }
        return q;
    }

    void prepare(VnaWaiters w, int n) {
        // First: a designator that sees this incarnation's status also sees its number.
        incarnation = incarnation + 1;
        queue = n;
        parks = 0;
        reserved = false;
        sawFree = false;
        queuedAt = System.nanoTime();
        NEXT.set(this, null);
        PARKED.set(this, false);
        STATUS_UPDATER.lazySet(this, WAITING); // a plain store on x86; published by the volatile write below
        waiters = w;
    }

    void becomeCandidate(VnaWaiters w, int n) {
        status = CANDIDATE;
        w.setCandidate(n, this);
    }

    boolean grantCandidacy() {
        return STATUS_UPDATER.compareAndSet(this, WAITING, CANDIDATE);
    }

    boolean cancelWaiting() {
        return STATUS_UPDATER.compareAndSet(this, WAITING, CANCELLED);
    }

    /** Only the candidate's own thread moves it out of CANDIDATE. */
    void cancelCandidate() {
        status = CANCELLED;
    }

    boolean isCandidateOf(VnaWaiters w) {
        return waiters == w && status == CANDIDATE;
    }

    /** Whether this node waits for the candidacy of a queue of {@code w}, or has it (for the monitoring methods). */
    boolean isQueuedIn(VnaWaiters w) {
        int s = status;
        return waiters == w && (s == WAITING || s == CANDIDATE);
    }

    /** Whether this node still waits for its MCS predecessor to pass the candidacy on. */
    boolean awaitsCandidacy() {
        return status == WAITING;
    }

    /** The heir announces that it is about to park: a release from now on wakes it ({@link #unparkIfParked}). */
    void announcePark() {
        parked = true;
    }

    int incarnation() {
        return incarnation;
    }

    /** Nanoseconds from {@code now} (nanoTime) to this heir's deadline; negative once it has passed. */
    long untilDeadline(long now) {
        return (long) DEADLINE.getOpaque(this) - now;
    }

    /** Whether this heir's deadline has passed at {@code now} (nanoTime). */
    boolean overdue(long now) {
        return now - (long) DEADLINE.getOpaque(this) >= 0;
    }

    /** Wakes the thread if it announced a park; at most once per announcement. Returns whether it did. */
    boolean unparkIfParked() {
        if (parked && PARKED.compareAndSet(this, true, false)) {
            LockDiagnostics.unpark();
            LockSupport.unpark(thread);
            return true;
        }
        return false;
    }

    /**
     * Parks this node's thread (the caller) with {@code blocker}, its lock, counting the park for diagnostics
     * and its JFR event.
     */
    void park(Object blocker, long nanos) {
        LockDiagnostics.park();
        parks++;
        if (nanos == Long.MAX_VALUE) {
            LockSupport.park(blocker);
        } else {
            LockSupport.parkNanos(blocker, nanos);
        }
    }

    void retire() {
        status = DONE;
        waiters = null;
    }

    VnaQueueNode awaitSuccessor() {
        VnaQueueNode s;
        for (int spins = 0; (s = (VnaQueueNode) NEXT.getVolatile(this)) == null; spins++) {
            // The successor swapped the tail and is about to link itself: a few instructions.
            VnaCarriers.pauseBriefly(spins);
        }
        return s;
    }

    static final VarHandle NEXT;
    static final VarHandle PARKED;
    static final VarHandle DEADLINE;
    private static final AtomicIntegerFieldUpdater<VnaQueueNode> STATUS_UPDATER =
            AtomicIntegerFieldUpdater.newUpdater(VnaQueueNode.class, "status");

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            NEXT = l.findVarHandle(VnaQueueNode.class, "next", VnaQueueNode.class);
            PARKED = l.findVarHandle(VnaQueueNode.class, "parked", boolean.class);
            DEADLINE = l.findVarHandle(VnaQueueNode.class, "deadline", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
