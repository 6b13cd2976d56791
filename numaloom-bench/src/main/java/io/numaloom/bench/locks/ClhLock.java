package io.numaloom.bench.locks;

/**
 * CLH: the Craig, Landin and Hagersten queue lock.
 *
 * <p>Papers: T. S. Craig, "Building FIFO and Priority-Queuing Spin Locks from Atomic Swap", TR 93-02-02,
 * University of Washington, 1993; P. Magnusson, A. Landin and E. Hagersten, "Queue Locks on Cache Coherent
 * Multiprocessors", IPPS 1994. Idea: an implicit queue: a thread swaps its node (marked held) into the tail
 * and waits on its predecessor's node until the predecessor marks it released. Releasing is a single store
 * to the holder's own node; no successor pointer and no CAS on release. The tail is never empty: it starts
 * at a released dummy node.
 *
 * <p>Properties: fair (FIFO); not NUMA-aware; spins briefly on the predecessor's node, then parks
 * ({@link QNode#awaitChange}; the waiter registers itself in that node, so the releaser can unpark it).
 * Not reentrant. No timed or interruptible acquisition: a waiter cannot leave the queue (the original has
 * no abort; Scott's abortable CLH is a different algorithm).
 *
 * <p>Nodes migrate, as in the original: on release a thread leaves its node to its successor (who is still
 * watching it) and takes its predecessor's node, which nobody watches any more, into {@link NodeCache}. No
 * allocation per acquisition. {@link #tryLock()} appends only behind a released tail; see
 * {@link LockWord#tryAppendReleased} for its one ABA corner, where it waits like {@code lock()}.
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class ClhLock extends BaselineLock {
    static final int RELEASED = 0;
    static final int HELD = 1;

    private final LockWord word = new LockWord();

    public ClhLock() {
        word.initTail(new QNode().prepare(RELEASED, -1));
    }

    @Override
    public void lock() {
        QNode me = NodeCache.take().prepare(HELD, -1);
        QNode pred = word.swapTail(me);
        pred.awaitChange(HELD);
        acquired(word, me, pred);
    }

    @Override
    public boolean tryLock() {
        return tryAcquire(word, -1);
    }

    @Override
    public void unlock() {
        release(word);
    }

    // ---- the CLH steps, shared with HCLH's global queue ----

    /** Records that {@code me}, which waited on {@code pred}, holds the lock whose tail is in {@code word}. */
    static void acquired(LockWord word, QNode me, QNode pred) {
        me.pred = pred;
        word.hold(me);
    }

    /** tryLock on a CLH tail: appends a node only behind a released tail. */
    static boolean tryAcquire(LockWord word, int node) {
        QNode me = NodeCache.take().prepare(HELD, node);
        QNode pred = word.tryAppendReleased(me, RELEASED);
        if (pred == null) {
            NodeCache.give(me);
            return false;
        }
        acquired(word, me, pred);
        return true;
    }

    /**
     * Releases: marks the holder's node released (its successor, still watching it, now owns it) and recycles
     * the predecessor node the holder waited on, which nobody watches any more.
     */
    static void release(LockWord word) {
        QNode me = word.unhold();
        QNode pred = me.pred;
        me.signal(RELEASED);
        NodeCache.give(pred);
    }

    @Override
    public String toString() {
        return "ClhLock[" + (word.tail().status() == RELEASED ? "free" : "held") + "]";
    }
}
