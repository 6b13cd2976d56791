package io.numaloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * The contended state of a {@code VnaLock} and its per-node MCS queues. Created on first
 * contention: the per-queue MCS tails and candidates, in an array whose
 * queues are {@link #STRIDE} references apart (at least 128 bytes, two adjacent-line
 * prefetch pairs), and the hot fields, padded by the superclass chain. The JVM may reorder
 * fields within a class and keeps superclass fields before subclass fields, except that it fills a
 * gap a superclass left (the four bytes after a compressed header) with a subclass's small field:
 * {@link VnaWaitersPadBefore} fills that gap itself.
 *
 * <p><b>Idea.</b> The VNA lock of Kovalev, Koval et al., "NUMA-aware lock for Java Lightweight
 * Threads": a global flag (the lock word, in {@link VnaLockWord}) plus one MCS queue per NUMA node
 * (J. M. Mellor-Crummey and M. L. Scott, "Algorithms for Scalable Synchronization on Shared-Memory
 * Multiprocessors", ACM TOCS 1991). A waiter appends its {@link VnaQueueNode} to its node's queue
 * with one swap of the tail; the head of each queue is its <em>candidate</em>, and a candidate
 * that leaves, by acquiring or giving up, passes the candidacy to its successor
 * ({@link #passCandidacy}). Which candidate competes is {@link VnaSuccession}'s choice. This
 * record also holds the count of waiting threads, the release's hint ({@link #quiet}), the
 * queue of a queued owner, and the conditions' signalled waiters ({@link VnaConditionWakes}).
 *
 * <p><b>Properties.</b> FIFO within a queue; NUMA-aware (a queue per node, or socket, or custom
 * placement); one node per thread serves every lock, since a node leaves its queue as soon as
 * its thread owns the lock; a lock that never waits never allocates this record (a fresh
 * {@code VnaLock} stays 40 bytes); the fields every contended acquire and release touch are
 * padded, through the superclass chain ({@link VnaWaitersHot}), against false sharing.
 *
 * <p><b>Exceptions between the swap and the link.</b> Between the swap of an MCS tail and the
 * link from the predecessor there is no call that can grow the stack: a {@link StackOverflowError}
 * there would leave the predecessor waiting for its successor forever. The same VarHandle access
 * is performed once on the thread's own node just before the swap, so the frames it needs are
 * known to fit; what remains is a stack overflow inside the VarHandle's own code between two
 * identical accesses, which the JDK's {@code ReentrantLock} avoids with
 * {@code @ReservedStackAccess}, an annotation user code cannot use.
 */
final class VnaWaiters extends VnaWaitersPadAfter {
    static final int STRIDE = 32;

    final int queueCount;
    private final Object[] slots;
    /** Condition waiters signalled and not yet holding the lock again: reported as queued. */
    final SignalledWaiters signalled = new SignalledWaiters();
    /** Which condition was waited on last, for the conditions' signal poll; guarded by the lock. */

    VnaWaiters(int queueCount) {
        this.queueCount = Math.max(1, queueCount);
        this.slots = new Object[(this.queueCount + 2) * STRIDE];
    }

    private static int tailIndex(int n) {
        return (n + 1) * STRIDE;
    }

    private static int candidateIndex(int n) {
        return (n + 1) * STRIDE + 1;
    }

    /**
     * The release's hint; a volatile read, which the heir's untimed park relies on (see "The benign
     * race" in {@link VnaHeirWait}).
     */
    boolean quiet() {
        return queued == 0;
    }

    void register() {
        QUEUED_UPDATER.getAndIncrement(this);
    }

    void unregister() {
        QUEUED_UPDATER.getAndDecrement(this);
    }

    int waitingThreads() {
        int n = queued - ((int) OWNER_QUEUE.getVolatile(this) >= 0 ? 1 : 0);
        return Math.max(0, n);
    }

    VnaQueueNode heir() {
        return heir;
    }

    /** Whether there is a heir and its deadline has passed. */
    boolean heirOverdue() {
        VnaQueueNode h = heir();
        return h != null && h.overdue(System.nanoTime());
    }

    void clearHeir(VnaQueueNode q) {
        casHeir(q, null);
    }

    /** The heir slot's CAS: installs {@code update} if the heir is {@code expect}. */
    boolean casHeir(VnaQueueNode expect, VnaQueueNode update) {
        return HEIR_UPDATER.compareAndSet(this, expect, update);
    }

    int ownerQueue() {
        return (int) OWNER_QUEUE.getVolatile(this);
    }

    /**
     * Called by a queued thread that now owns the lock, which then gives its queue the turn
     * ({@link VnaSuccession#startTurn}).
     */
    void recordQueuedOwner(int n) {
        OWNER_QUEUE.setVolatile(this, n);
    }

    /** Called by the owner before it releases: a queued owner stops counting as queued. */
    void forgetQueuedOwner() {
        if (ownerQueue >= 0) {
            OWNER_QUEUE.setVolatile(this, -1);
            unregister();
        }
    }

    /**
     * Appends q to queue n and links it behind its predecessor, which it returns (null if
     * the queue was empty). Nothing between the swap and the link can grow the stack: the
     * link's VarHandle access is performed once on q itself just before the swap.
     */
    VnaQueueNode enqueue(int n, VnaQueueNode q) {
        VnaQueueNode.NEXT.setVolatile(q, null);
        VnaQueueNode pred = (VnaQueueNode) SLOTS.getAndSet(slots, tailIndex(n), q);
        if (pred != null) {
            VnaQueueNode.NEXT.setVolatile(pred, q);
        }
        return pred;
    }

    /** At most this many nodes are walked per queue: nodes are reused, so a walk could chase new arrivals. */
    private static final int MAX_WALK = 1 << 16;

    /**
     * The threads of the nodes queued and still waiting, queue by queue from the candidate along the
     * MCS links (a snapshot: nodes that acquire, cancel or queue meanwhile may be seen or missed).
     */
    List<Thread> queuedThreads() {
        List<Thread> threads = new ArrayList<>();
        for (int n = 0; n < queueCount; n++) {
            VnaQueueNode c = (VnaQueueNode) SLOTS.getVolatile(slots, candidateIndex(n));
            // Between two candidates the slot is briefly empty while the queue is not: look again.
            for (int tries = 0; c == null && tries < 64 && SLOTS.getVolatile(slots, tailIndex(n)) != null; tries++) {
                Thread.onSpinWait();
                c = (VnaQueueNode) SLOTS.getVolatile(slots, candidateIndex(n));
            }
            for (int steps = 0; c != null && steps < MAX_WALK; steps++) {
                if (c.isQueuedIn(this) && !threads.contains(c.thread)) {
                    threads.add(c.thread);
                }
                c = (VnaQueueNode) VnaQueueNode.NEXT.getVolatile(c);
            }
        }
        return threads;
    }

    void setCandidate(int n, VnaQueueNode q) {
        SLOTS.setVolatile(slots, candidateIndex(n), q);
    }

    /**
     * The MCS release of queue n by its candidate q (which acquired the flag or gave up):
     * the first successor that is still waiting becomes the candidate; cancelled successors
     * are released on their behalf. The slot is written before the grant, so a candidate
     * never finds a stale slot written after its own departure.
     */
    void passCandidacy(int n, VnaQueueNode q) {
        SLOTS.compareAndSet(slots, candidateIndex(n), q, null);
        for (VnaQueueNode c = q;;) {
            VnaQueueNode s = (VnaQueueNode) VnaQueueNode.NEXT.getVolatile(c);
            if (s == null) {
                if (SLOTS.compareAndSet(slots, tailIndex(n), c, null)) {
                    SLOTS.compareAndSet(slots, candidateIndex(n), c, null); // a cancelled tail
                    return;
                }
                s = c.awaitSuccessor();
            }
            setCandidate(n, s);
            if (s.grantCandidacy()) {
                return;
            }
            c = s;
        }
    }

    /** The candidate of queue {@code n} if it is still a live candidate of this lock, else null. */
    VnaQueueNode candidateOf(int n) {
        VnaQueueNode c = (VnaQueueNode) SLOTS.getVolatile(slots, candidateIndex(n));
        return c != null && c.isCandidateOf(this) ? c : null;
    }

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final AtomicReferenceFieldUpdater<VnaWaitersHot, VnaQueueNode> HEIR_UPDATER =
            AtomicReferenceFieldUpdater.newUpdater(VnaWaitersHot.class, VnaQueueNode.class, "heir");
    private static final AtomicIntegerFieldUpdater<VnaWaitersHot> QUEUED_UPDATER =
            AtomicIntegerFieldUpdater.newUpdater(VnaWaitersHot.class, "queued");
    /** {@code reservedFreeSince} when no caller has seen the lock free and reserved. */
    static final long NOT_SEEN = Long.MIN_VALUE;

    static final VarHandle OWNER_QUEUE;
    static final VarHandle SERVING_QUEUE;
    static final VarHandle TURN_START;
    static final VarHandle RESERVED_FREE_SINCE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OWNER_QUEUE = l.findVarHandle(VnaWaitersHot.class, "ownerQueue", int.class);
            SERVING_QUEUE = l.findVarHandle(VnaWaitersHot.class, "servingQueue", int.class);
            TURN_START = l.findVarHandle(VnaWaitersHot.class, "turnStart", long.class);
            RESERVED_FREE_SINCE = l.findVarHandle(VnaWaitersHot.class, "reservedFreeSince", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}

/** 128 bytes of padding before the hot fields (class-hierarchy padding; see {@link VnaWaiters}). */
abstract class VnaWaitersPadBefore {
    /**
     * Fills the four bytes after the object header (compressed class pointers): left empty, the JVM
     * put a subclass's int there, {@code queued}, the hottest contended field, outside the padding.
     */
    int p;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The fields every contended acquire and release touch, with 128 bytes of padding on each side. */
abstract class VnaWaitersHot extends VnaWaitersPadBefore {
    /** The one candidate allowed to compete for the flag; null if none. Moved by CAS ({@code HEIR_UPDATER}). */
    volatile VnaQueueNode heir;
    /** Threads in the slow path, plus one while a queued owner holds the lock. Counted by {@code QUEUED_UPDATER}. */
    volatile int queued;
    /** Queue of the owner if it came through a queue, else -1; written under the lock. */
    int ownerQueue = -1;
    /** The queue whose turn it is, and when its turn began (nanoTime); written under the lock. */
    int servingQueue;
    long turnStart;
    /**
     * When a {@code tryLock()} first found the lock free but reserved (nanoTime), or
     * {@link VnaWaiters#NOT_SEEN}: the clock of {@link VnaReservation#RESERVATION_GRACE_NANOS}.
     */
    long reservedFreeSince = VnaWaiters.NOT_SEEN;
}

/** 128 bytes of padding after the hot fields. */
abstract class VnaWaitersPadAfter extends VnaWaitersHot {
    long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
}
