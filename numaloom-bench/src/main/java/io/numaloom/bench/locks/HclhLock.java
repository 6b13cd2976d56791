package io.numaloom.bench.locks;

/**
 * HCLH: the hierarchical CLH queue lock.
 *
 * <p>Paper: V. Luchangco, D. Nussbaum and N. Shavit, "A Hierarchical CLH Queue Lock", Euro-Par 2006 (also
 * in Herlihy and Shavit, "The Art of Multiprocessor Programming", §7.8). Idea: one CLH queue per NUMA node
 * (cluster) and one global CLH queue. A thread enqueues in its node's local queue; if it has a local
 * predecessor it simply waits on it. The thread that found the local queue empty is the cluster master:
 * after a short combining delay, during which more local threads may join behind it, it splices the whole
 * local batch into the global queue with one atomic operation and waits on its global predecessor. A batch
 * is contiguous in the global queue, so the lock passes between threads of one node without global traffic
 * until the batch ends.
 *
 * <p>Deviation, for safety with recycled nodes: the original leaves the local tail pointing at the spliced
 * batch's last node and marks that node {@code tailWhenSpliced}, so the next local arrival reads it to learn
 * it must become master. With node recycling that read can land on a node that has meanwhile been released,
 * recycled and re-enqueued in the same cluster (an ABA that deadlocks or breaks exclusion when a thread is
 * preempted between its swap and its read). Here the master detaches the batch with a swap of the local
 * tail to {@code null} and appends it with a swap of the global tail, so a thread only ever reads the
 * predecessor its own swap returned, which nobody but that thread can recycle. Batches, the master role, the
 * single global splice and the per-node handoff are as in the paper; the node needs no cluster id or
 * {@code tailWhenSpliced} bit.
 *
 * <p>Properties: fair (FIFO within a batch; batches in splice order); NUMA-aware through batching (no
 * threshold: a batch is bounded by the threads that joined during its master's combining delay); waiters
 * spin briefly on their predecessor's node, then park ({@link QNode#awaitChange}; each node is watched by
 * exactly one thread, its successor in the global order, which registers to be unparked). The combining
 * delay is a bounded spin ({@value #COMBINING_SPINS} hints, no yield). Not reentrant. No timed or
 * interruptible acquisition: a waiter cannot leave the queue. {@link #tryLock()} appends a batch of one to a
 * released global tail (see {@link LockWord#tryAppendReleased} for its ABA corner).
 *
 * <p>Nodes migrate as in CLH: a thread releases by marking its own node, which its successor still watches,
 * and takes the predecessor node it waited on into {@link NodeCache}. No allocation per acquisition.
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class HclhLock extends BaselineLock {
    static final int COMBINING_SPINS = 64;

    private final NumaNodes nodes;
    private final LockWord global = new LockWord();
    private final LockWord[] local;

    /** Follows the process topology ({@code -Dnumaloom.topology}) and the current CPU's node. */
    public HclhLock() {
        this(NumaNodes.system());
    }

    public HclhLock(NumaNodes nodes) {
        this.nodes = nodes;
        this.local = LockWord.array(nodes.count());
        global.initTail(new QNode().prepare(ClhLock.RELEASED, -1));
    }

    @Override
    public void lock() {
        int node = nodes.current();
        QNode me = NodeCache.take().prepare(ClhLock.HELD, node);
        QNode pred = local[node].swapTail(me);
        if (pred == null) {
            pred = spliceBatch(local[node]);
        }
        pred.awaitChange(ClhLock.HELD);
        ClhLock.acquired(global, me, pred);
    }

    /** The cluster master: let local threads join, detach the batch, append it to the global queue. */
    private QNode spliceBatch(LockWord localQueue) {
        Spin.delay(COMBINING_SPINS);
        QNode batchTail = localQueue.swapTail(null);
        return global.swapTail(batchTail);
    }

    @Override
    public boolean tryLock() {
        return ClhLock.tryAcquire(global, nodes.current());
    }

    @Override
    public void unlock() {
        ClhLock.release(global);
    }

    @Override
    public String toString() {
        return "HclhLock[" + (global.tail().status() == ClhLock.RELEASED ? "free" : "held") + ", " + nodes + "]";
    }
}
