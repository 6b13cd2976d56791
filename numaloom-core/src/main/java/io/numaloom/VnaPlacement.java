package io.numaloom;

import io.numaloom.topology.CurrentCpu;
import io.numaloom.topology.HomeNode;

/**
 * Which queue of a {@code VnaLock} a waiting thread joins: the queue of its NUMA node, of its
 * socket, or the one a custom {@link QueuePlacement} names.
 *
 * <p><b>Idea.</b> Threads that queue on the same node's queue hand the lock to one another for a
 * turn ({@link VnaSuccession}), so the lock, and the data it guards, stay in that node's caches.
 * The node is the one the thread's scheduler named as its home ({@link HomeNode}: the thread
 * resumes there after its park), else the node of the CPU it runs on
 * ({@link CurrentCpu}, {@code sched_getcpu} through the FFM API on a machine with several nodes).
 *
 * <p><b>Paper.</b> One queue per NUMA node, or per socket (the paper's VNA_2_Q), is the VNA lock
 * of Kovalev, Koval et al., "NUMA-aware lock for Java Lightweight Threads".
 *
 * <p><b>Properties.</b> Asked only on the contended path of a lock with more than one queue, and
 * before the thread registers, so a placement that throws leaves the lock as it was; the
 * re-acquisition of a condition waiter at the end of its wait (signalled, timed out or
 * interrupted) never fails on it, whatever it throws: it queues on queue 0.
 */
final class VnaPlacement {

    private VnaPlacement() {
    }

    /** A lock with one queue per NUMA node of the topology. */
    static final byte PER_NODE = 0;
    /** A lock with one queue per socket (the paper's VNA_2_Q). */
    static final byte PER_SOCKET = 1;
    /** A lock whose queues a {@link QueuePlacement} chooses. */
    static final byte CUSTOM = 2;

    /**
     * The queue of the current thread among {@code queues}, for a lock of placement {@code mode}
     * ({@code placement} for {@link #CUSTOM}). A placement that throws fails the
     * acquisition, except a condition waiter's re-acquisition ({@code mustNotFail}), which
     * {@code await} cannot abandon (it must return holding the lock, and the next signalled waiter's
     * wake-up waits for it): that one waits on queue 0 whatever the placement threw, an
     * {@link Error} included.
     */
    static int placedQueue(byte mode, QueuePlacement placement, int queues, boolean mustNotFail) {
        if (!mustNotFail) {
            return Math.floorMod(currentQueue(mode, placement), queues);
        }
        try {
            return Math.floorMod(currentQueue(mode, placement), queues);
        } catch (Throwable e) { // an Error too: the waiter would leave await without the lock
            return 0;
        }
    }

    private static int currentQueue(byte mode, QueuePlacement placement) {
        return switch (mode) {
            case PER_NODE -> nodeQueue();
            case PER_SOCKET -> CurrentCpu.socket();
            default -> placement.currentQueue();
        };
    }

    /**
     * The queue of a per-node lock: the calling thread's home node when a scheduler has told it through
     * {@link HomeNode} (a thread of a NumaScheduler: it will resume there after its park, so the kernel is not
     * asked), else the node of the CPU it runs on. Called only on the contended path of a lock with more than one
     * queue.
     */
    private static int nodeQueue() {
        int home = HomeNode.of(Thread.currentThread());
        if (home >= 0) {
            LockDiagnostics.placedByHomeNode();
            return home;
        }
        LockDiagnostics.placedByCpu();
        return CurrentCpu.node();
    }
}
