package io.numaloom;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The successor policy of {@code VnaLock}: which waiting thread competes for the lock next, the
 * <em>heir</em>, and how it is woken. A reader looking for "who gets the lock after me" needs
 * only this file; the queues the candidates come from are {@link VnaWaiters}', the heir's own
 * competition is {@link VnaHeirWait}'s.
 *
 * <p><b>Idea.</b> Every per-node MCS queue has one candidate, its head. Of all candidates one
 * only, the heir, is awake and competes for the lock word; every other waiter is parked without
 * a timeout. The heir slot is filled by whoever finds it empty, and emptied by whoever finds it
 * stale, so no designation waits for one particular thread to be scheduled. The heir is taken
 * from the queue whose turn it is for a bounded time, then round-robin from the next queue that
 * has a candidate, so the lock, and the data it guards, stay on one NUMA node for a while and
 * then move on.
 *
 * <p><b>Papers.</b> The per-node queues, one contender per node, are the VNA lock's (Kovalev,
 * Koval et al., "NUMA-aware lock for Java Lightweight Threads"); keeping every waiter but one
 * parked and waking one successor at a time is the wake-up discipline of D. Dice, "Implementing
 * Fast Java Monitors with Relaxed-Locks" (JVM '01); a node's turn bounded in time follows the
 * compact NUMA-aware lock of D. Dice and A. Kogan, "Compact NUMA-aware Locks" (EuroSys '19), as
 * merged into Linux (its 1 ms {@code numa_spinlock_threshold_ns}).
 *
 * <p><b>Properties.</b> NUMA-aware: the serving queue keeps the heir role for
 * {@link #TURN_NANOS}. Fair across queues: a candidate of any queue is picked within
 * {@code queues - 1} turns (the bound is worked out in {@link VnaReservation}). FIFO within a
 * queue (MCS order). Wakes at most one thread per call; designation never depends on one thread
 * being scheduled.
 *
 * <p><b>Choosing the heir.</b> Whoever releases a contended lock, leaves the heir role, or
 * becomes the first candidate of an empty queue while a barger owns the lock, calls
 * {@link #wakeHeir}. (The first candidate of an empty queue leaves the pick to a queued owner's
 * release, which keeps the turn of the queues.) If the slot holds a live heir that announced a park, it wakes it,
 * once per park (the announcement is cleared by CAS). If the slot holds a node that is no
 * longer a candidate of this lock (it acquired, or gave up, and the thread that installed it was
 * slow), whoever sees that clears it and picks again: designation never depends on one thread
 * being scheduled. If the slot is empty, it picks a candidate, installs it by CAS and unparks
 * it. Nodes are reused, so a designator that was slow between its pick and its CAS could
 * install a node that has since acquired and queued again: such a node would look live (a
 * candidate of this lock) once its new wait reaches the head, while nobody wakes it. So each
 * node counts its waits ({@code incarnation}), and the designator checks after its CAS that
 * the node is still a candidate in the incarnation it picked, and otherwise uninstalls it and
 * picks again. The pick prefers the queue whose turn it is (the queue of the last queued owner)
 * until the turn has lasted {@link #TURN_NANOS}, then moves round-robin to the next queue
 * with a candidate.

 */
final class VnaSuccession {

    private VnaSuccession() {
    }

    /**
     * How long a heir lets newcomers barge before it reserves the lock: 1 ms after its designation, the default of
     * the Linux kernel's compact NUMA-aware lock ({@code numa_spinlock_threshold_ns}); {@code VnaLock.PATIENCE_NANOS}.
     */
    static final long PATIENCE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * How long a queued thread waits, in all, before it stops letting newcomers barge: one designated 4 ms or more
     * after it queued is overdue at once; {@code VnaLock.STARVATION_NANOS}.
     */
    static final long STARVATION_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

    /** How long one queue keeps the heir role before the next queue with a candidate gets its turn: 1 ms. */
    static final long TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Makes sure a candidate competes: wakes the heir if it announced a park; clears a heir
     * that is no longer a candidate (whoever installed it may be descheduled) and picks
     * again; or, when there is no heir, designates one and unparks it. Returns whether it
     * unparked a thread.
     */
    static boolean wakeHeir(VnaWaiters w, Thread me) {
        for (;;) {
            VnaQueueNode h = w.heir();
            if (h != null) {
                if (h.isCandidateOf(w)) {
                    return h.unparkIfParked();
                }
                w.casHeir(h, null); // stale: acquired or gave up
                continue;
            }
            VnaQueueNode c = pickCandidate(w);
            if (c == null) {
                return false;
            }
            int incarnation = c.incarnation();
            if (!c.isCandidateOf(w)) {
                continue;
            }
            VnaSeams seams = VnaSeams.installed;
            if (seams != null) {
                seams.beforeHeirInstall(c.thread);
            }
            designate(c);
            if (w.casHeir(null, c)) {
                if (seams != null) {
                    seams.afterHeirInstall(c.thread);
                }
                if (!(c.isCandidateOf(w) && c.incarnation() == incarnation)) {
                    // c acquired, or left, and may be waiting again in a new incarnation:
                    // installed now it would look live while nobody has woken it.
                    w.casHeir(c, null);
                    continue;
                }
                if (c.thread != me) {
                    LockDiagnostics.unpark();
                    LockSupport.unpark(c.thread);
                    return true;
                }
                return false;
            }
        }
    }

    /** The serving queue's candidate while its turn lasts, else the next queue's, round-robin. */
    private static VnaQueueNode pickCandidate(VnaWaiters w) {
        if (w.queueCount == 1) {
            return w.candidateOf(0);
        }
        int serving = (int) VnaWaiters.SERVING_QUEUE.getOpaque(w);
        if (System.nanoTime() - (long) VnaWaiters.TURN_START.getOpaque(w) < TURN_NANOS) {
            VnaQueueNode c = w.candidateOf(serving);
            if (c != null) {
                return c;
            }
        }
        for (int i = 1; i <= w.queueCount; i++) {
            int k = serving + i;
            VnaQueueNode c = w.candidateOf(k >= w.queueCount ? k - w.queueCount : k);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /**
     * Sets the deadline, before the CAS that installs the node as heir: the heir's patience
     * counts from here, so the time it takes to be scheduled counts too, and a thread that
     * has waited {@link #STARVATION_NANOS} since it queued is overdue at once. A racing
     * designator that loses its CAS may set it again a little later, which only delays the
     * reservation by that little.
     */
    static void designate(VnaQueueNode c) {
        long patient = System.nanoTime() + PATIENCE_NANOS;
        long starving = c.queuedAt + STARVATION_NANOS;
        VnaQueueNode.DEADLINE.setOpaque(c, starving - patient < 0 ? starving : patient);
    }

    /**
     * Called by a queued thread that now owns the lock, after {@link VnaWaiters#recordQueuedOwner}:
     * its queue's turn starts if another queue had it.
     */
    static void startTurn(VnaWaiters w, int n) {
        if (w.queueCount > 1 && n != (int) VnaWaiters.SERVING_QUEUE.getOpaque(w)) {
            VnaWaiters.TURN_START.setOpaque(w, System.nanoTime());
            VnaWaiters.SERVING_QUEUE.setOpaque(w, n);
        }
    }
}
