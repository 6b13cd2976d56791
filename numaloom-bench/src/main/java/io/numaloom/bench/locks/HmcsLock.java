package io.numaloom.bench.locks;

/**
 * HMCS: the hierarchical MCS lock.
 *
 * <p>Paper: M. Chabbi, M. Fagan and J. Mellor-Crummey, "High Performance Locks for Multi-level NUMA
 * Systems", PPoPP 2015. Idea: a tree of MCS locks that mirrors the machine: one per NUMA node at the leaves,
 * one per socket in the middle (three levels), one at the root. A thread acquires its leaf; the first
 * waiter of a leaf's queue acquires the parent level on the leaf's behalf with the leaf's own node, and so
 * on to the root. At release, a holder with a successor at its level and a passing count below that
 * level's threshold passes the lock (with every level above it) to that successor, count + 1; otherwise it
 * releases the parent level first and then hands its level to the successor with "acquire the parent".
 * Status values: {@code WAIT}, {@code ACQUIRE_PARENT}, or the cohort count {@code 1..threshold}.
 *
 * <p>Built from the topology: {@link #twoLevel} (node, root) is what the VNA paper compares against (its
 * three-level variant did worse there); {@link #threeLevel} adds the socket level. With one node or one
 * socket a level has a single child and costs one uncontended CAS pair.
 *
 * <p>Fairness: a waiter on another node (or socket) waits for at most {@code threshold} consecutive
 * handoffs inside the current holder's subtree per level before the level above is released to the next
 * subtree in FIFO order. The root never passes a count (it has no parent to keep).
 *
 * <p>Properties: fair within the thresholds, NUMA-aware; every waiter (thread or level representative)
 * spins briefly on its node, then parks ({@link QNode#awaitChange}); the releaser unparks it. Not
 * reentrant. No timed or interruptible acquisition: a waiter cannot leave the queue. {@link #tryLock()}
 * tries each level with one CAS on an empty queue and, if an upper level is busy, releases the levels it
 * took by the normal release (so a thread that queued behind it meanwhile goes on to acquire the parent).
 *
 * <p>Threads' leaf nodes come from {@link NodeCache}; each inner level owns the one node it uses in its
 * parent's queue (only that level's holder uses it). No allocation per acquisition.
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class HmcsLock extends BaselineLock {
    /** Default passing threshold of the node level. */
    public static final int DEFAULT_NODE_THRESHOLD = 64;
    /** Default passing threshold of the socket level (each pass there hands over a whole node cohort). */
    public static final int DEFAULT_SOCKET_THRESHOLD = 16;

    private static final int WAIT = Integer.MAX_VALUE;
    private static final int ACQUIRE_PARENT = Integer.MAX_VALUE - 1;
    private static final int COHORT_START = 1;

    /** One level of the tree: an MCS queue, its parent, and this level's node in the parent's queue. */
    private static final class Level {
        final LockWord queue = new LockWord();
        final Level parent;
        final int threshold;
        final QNode inParent = new QNode();

        Level(Level parent, int threshold) {
            this.parent = parent;
            this.threshold = threshold;
        }
    }

    private final NumaNodes nodes;
    private final Level[] leaves;
    private final LockWord owner = new LockWord();
    private final int levels;

    /** Two levels from the process topology ({@code -Dnumaloom.topology}), default threshold. */
    public HmcsLock() {
        this(NumaNodes.system(), DEFAULT_NODE_THRESHOLD);
    }

    /** Two levels: NUMA node, root. */
    public HmcsLock(NumaNodes nodes, int nodeThreshold) {
        this(nodes, nodeThreshold, 0, false);
    }

    private HmcsLock(NumaNodes nodes, int nodeThreshold, int socketThreshold, boolean socketLevel) {
        checkThreshold("node", nodeThreshold);
        this.nodes = nodes;
        Level root = new Level(null, Integer.MAX_VALUE);
        Level[] sockets = new Level[nodes.socketCount()];
        if (socketLevel) {
            checkThreshold("socket", socketThreshold);
            for (int s = 0; s < sockets.length; s++) {
                sockets[s] = new Level(root, socketThreshold);
            }
        }
        this.leaves = new Level[nodes.count()];
        for (int n = 0; n < leaves.length; n++) {
            leaves[n] = new Level(socketLevel ? sockets[nodes.socketOf(n)] : root, nodeThreshold);
        }
        this.levels = socketLevel ? 3 : 2;
    }

    /** Two levels (node, root) from the process topology. */
    public static HmcsLock twoLevel() {
        return new HmcsLock();
    }

    /** Three levels (node, socket, root) from the process topology, default thresholds. */
    public static HmcsLock threeLevel() {
        return threeLevel(NumaNodes.system(), DEFAULT_NODE_THRESHOLD, DEFAULT_SOCKET_THRESHOLD);
    }

    /** Three levels: NUMA node, socket ({@link NumaNodes#socketOf}), root. */
    public static HmcsLock threeLevel(NumaNodes nodes, int nodeThreshold, int socketThreshold) {
        return new HmcsLock(nodes, nodeThreshold, socketThreshold, true);
    }

    private static void checkThreshold(String level, int threshold) {
        if (threshold < 1) {
            throw new IllegalArgumentException(level + " threshold must be at least 1, got " + threshold);
        }
    }

    @Override
    public void lock() {
        int node = nodes.current();
        QNode me = NodeCache.take();
        acquire(leaves[node], me, node);
        owner.hold(me);
    }

    private static void acquire(Level level, QNode me, int node) {
        me.prepare(WAIT, node);
        QNode pred = level.queue.enqueue(me);
        if (pred != null && me.awaitChange(WAIT) != ACQUIRE_PARENT) {
            return; // passed within the cohort: every level above is held
        }
        me.setStatusOpaque(COHORT_START);
        if (level.parent != null) {
            acquire(level.parent, level.inParent, node);
        }
    }

    @Override
    public boolean tryLock() {
        int node = nodes.current();
        QNode me = NodeCache.take();
        if (!tryAcquire(leaves[node], me, node)) {
            NodeCache.give(me);
            return false;
        }
        owner.hold(me);
        return true;
    }

    private static boolean tryAcquire(Level level, QNode me, int node) {
        me.prepare(WAIT, node);
        if (!level.queue.casTail(null, me)) {
            return false;
        }
        me.setStatusOpaque(COHORT_START);
        if (level.parent != null && !tryAcquire(level.parent, level.inParent, node)) {
            level.queue.leave(me, ACQUIRE_PARENT);
            return false;
        }
        return true;
    }

    @Override
    public void unlock() {
        QNode me = owner.unhold();
        release(leaves[me.numaNode], me);
        NodeCache.give(me);
    }

    private static void release(Level level, QNode me) {
        if (level.parent == null) {
            level.queue.leave(me, COHORT_START);
            return;
        }
        int count = me.status();
        if (count < level.threshold) {
            QNode succ = me.next();
            if (succ != null) {
                succ.signal(count + 1);
                return;
            }
        }
        release(level.parent, level.inParent);
        level.queue.leave(me, ACQUIRE_PARENT);
    }

    @Override
    public String toString() {
        return "HmcsLock[" + levels + " levels, " + nodes + "]";
    }
}
