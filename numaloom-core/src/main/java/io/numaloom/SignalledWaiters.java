package io.numaloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * The condition waiters of one lock that were signalled and do not hold the lock yet: the threads
 * that {@code ReentrantLock} reports as queued for the lock from the moment {@code signal()}
 * returns. One mechanism, bookkeeping for the monitoring methods; it has no say in who gets the
 * lock.
 *
 * <p><b>Idea.</b> {@code AbstractQueuedSynchronizer}'s {@code signal()} moves the waiter's node
 * from the condition queue to the lock's queue, and HotSpot's {@code notify()} moves the thread
 * from the wait set to the monitor's entry list: from then on the thread counts as waiting for the
 * lock. {@code VnaLock} wakes a signalled waiter instead ({@link VnaConditionWakes}), and the woken
 * thread then takes the lock as any other thread does, by its fast path or through a queue.
 * Between the signal and that acquisition it is in no queue of the lock, so the signal
 * counts it among the lock's waiting threads ({@code queued}, which {@code getQueueLength()}
 * reports and which makes releases take the contended path) and links it here, for
 * {@code hasQueuedThread} and {@code getQueuedThreads}; its re-acquisition unlinks it, holding the
 * lock again. A signalled thread that finds the lock held queues without counting itself again,
 * so {@code queued} counts it once throughout; the thread lists of this class and of the lock's
 * queues are merged by identity.
 *
 * <p><b>Protocol.</b> Only owners of the lock write the list, so the lock orders every write and a
 * plain {@code prev} link serves the O(1) unlink. Monitoring readers hold nothing: they read
 * {@code head} and the {@code next} links with acquire loads, which owners write with release
 * stores after the node's other fields. Nodes are pushed at the head and a node is linked once in
 * its life (every await makes a new waiter), so following {@code next} from any node reaches only
 * nodes linked before it: a reader's walk ends, even across nodes unlinked while it walks (it may
 * then report a thread that has just acquired, as {@code ReentrantLock}'s snapshot may).
 *
 * <p>Properties: no allocation (the condition's waiter is the node); the list needs no atomic
 * instruction, a signal and a re-acquisition each add a few plain and release stores to the
 * owner's critical section; the count in {@code queued} costs one atomic add per signal and one
 * per re-acquisition that does not queue.
 *
 * <p><b>What the count in {@code queued} costs the releases.</b> While a signalled waiter is on its
 * way to the lock, every release takes the contended path (an atomic add and a look at the heir)
 * instead of a release store. One run (commit 6edadd9, pre-method bench, 2 cores, the queue
 * sweep's capacity 1024 at 4 and 8 platform threads) read 57% and 99% of the releases contended,
 * 3% and 27% with signalled waiters left out of {@code queued}, and the throughput unmoved there
 * (on virtual threads, within the sweep's spread); see docs/measurements.md, entry 28.
 */
final class SignalledWaiters {

    /** The latest signalled waiter still to re-acquire, or null. Written by owners only. */
    private VnaConditionWaiter head; // HEAD

    /** Links a waiter just signalled; called by the owner. */
    void add(VnaConditionWaiter w) {
        VnaConditionWaiter h = head;
        w.transitPrev = null;
        VnaConditionWaiter.TRANSIT_NEXT.setRelease(w, h);
        if (h != null) {
            h.transitPrev = w;
        }
        w.inTransit = true;
        HEAD.setRelease(this, w);
    }

    /** Unlinks {@code w} if it is linked; called by {@code w}'s thread once it holds the lock again. */
    void remove(VnaConditionWaiter w) {
        if (!w.inTransit) {
            return;
        }
        w.inTransit = false;
        VnaConditionWaiter prev = w.transitPrev;
        VnaConditionWaiter next = (VnaConditionWaiter) VnaConditionWaiter.TRANSIT_NEXT.getAcquire(w);
        if (next != null) {
            next.transitPrev = prev;
        }
        if (prev == null) {
            HEAD.setRelease(this, next);
        } else {
            VnaConditionWaiter.TRANSIT_NEXT.setRelease(prev, next);
        }
        w.transitPrev = null; // w's next stays: a reader standing on w walks on to older nodes
    }

    /** Adds the signalled threads to {@code threads}, except those already there; a snapshot. */
    void addThreadsTo(List<Thread> threads) {
        for (VnaConditionWaiter w = first(); w != null; w = next(w)) {
            if (!threads.contains(w.thread)) {
                threads.add(w.thread);
            }
        }
    }

    /** Whether {@code thread} is a signalled thread that does not hold the lock yet; a snapshot. */
    boolean contains(Thread thread) {
        for (VnaConditionWaiter w = first(); w != null; w = next(w)) {
            if (w.thread == thread) {
                return true;
            }
        }
        return false;
    }

    private VnaConditionWaiter first() {
        return (VnaConditionWaiter) HEAD.getAcquire(this);
    }

    private static VnaConditionWaiter next(VnaConditionWaiter w) {
        return (VnaConditionWaiter) VnaConditionWaiter.TRANSIT_NEXT.getAcquire(w);
    }

    private static final VarHandle HEAD;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(SignalledWaiters.class, "head", VnaConditionWaiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
