package io.numaloom.bench.locks;

/**
 * COHORT: a cohort lock, C-TKT-MCS (a global ticket lock over one MCS lock per NUMA node).
 *
 * <p>Paper: D. Dice, V. J. Marathe and N. Shavit, "Lock Cohorting: A General Technique for Designing NUMA
 * Locks", PPoPP 2012 (C-TKT-MCS is one of its instances). Idea: a thread acquires its node's local lock,
 * then the global lock. At release, if another thread of the same node is waiting ("cohort detection": the
 * local MCS node has a successor) and fewer than {@code bound} consecutive local handoffs have happened,
 * the holder passes the local lock with the global lock still held; otherwise it releases the global lock,
 * then the local one. The global lock must be thread-oblivious (released by a thread that did not acquire
 * it): a ticket lock is. The local lock must detect waiters: MCS does.
 *
 * <p>Fairness: the local-handoff bound ({@value #DEFAULT_BOUND} by default) caps consecutive handoffs within
 * a node; the next global acquisition then serves the node heads in ticket (FIFO) order, so a waiter on
 * another node that already holds a ticket waits for at most {@code bound} local handoffs of the current
 * node.
 *
 * <p>Properties: fair within the bound, NUMA-aware; local waiters spin briefly on their own node, then park
 * ({@link QNode#awaitChange}); a node's head waiting for its global ticket spins, then yields, then
 * sleeps briefly ({@link Spin#pause}), because a ticket lock cannot know whom to wake (one such waiter per
 * node at most).
 * Not reentrant. No timed or interruptible acquisition: neither a queued MCS waiter nor a taken ticket can
 * be abandoned. {@link #tryLock()} takes the local lock only on an empty queue and the global one only if
 * its ticket would be served at once; if the global one is busy it releases the local lock normally.
 *
 * <p>Local nodes come from {@link NodeCache} and go back after the release (as in MCS). This is the same
 * structure as a two-level {@link HmcsLock} whose root is a ticket lock instead of an MCS lock.
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class CohortLock extends BaselineLock {
    /** Default bound on consecutive handoffs within a node. */
    public static final int DEFAULT_BOUND = 64;

    private static final int WAIT = Integer.MAX_VALUE;
    private static final int ACQUIRE_GLOBAL = Integer.MAX_VALUE - 1;
    private static final int COHORT_START = 1;

    private final NumaNodes nodes;
    private final int bound;
    private final LockWord global = new LockWord();
    private final LockWord[] local;

    /** Follows the process topology ({@code -Dnumaloom.topology}) and the current CPU's node. */
    public CohortLock() {
        this(NumaNodes.system(), DEFAULT_BOUND);
    }

    /** @param bound the most consecutive handoffs within a node while the global lock stays held (at least 1) */
    public CohortLock(NumaNodes nodes, int bound) {
        if (bound < 1) {
            throw new IllegalArgumentException("local handoff bound must be at least 1, got " + bound);
        }
        this.nodes = nodes;
        this.bound = bound;
        this.local = LockWord.array(nodes.count());
    }

    @Override
    public void lock() {
        int node = nodes.current();
        QNode me = NodeCache.take().prepare(WAIT, node);
        QNode pred = local[node].enqueue(me);
        if (pred == null || me.awaitChange(WAIT) == ACQUIRE_GLOBAL) {
            me.setStatusOpaque(COHORT_START);
            global.awaitTurn(global.takeTicket());
        }
        global.hold(me);
    }

    @Override
    public boolean tryLock() {
        int node = nodes.current();
        QNode me = local[node].tryEnqueueAlone(WAIT, node);
        if (me == null) {
            return false;
        }
        if (!global.tryTicket()) {
            local[node].leave(me, ACQUIRE_GLOBAL);
            NodeCache.give(me);
            return false;
        }
        me.setStatusOpaque(COHORT_START);
        global.hold(me);
        return true;
    }

    @Override
    public void unlock() {
        QNode me = global.unhold();
        int count = me.status();
        QNode succ = count < bound ? me.next() : null;
        if (succ != null) {
            succ.signal(count + 1); // local handoff: the global lock stays held
        } else {
            global.nextTurn();
            local[me.numaNode].leave(me, ACQUIRE_GLOBAL);
        }
        NodeCache.give(me);
    }

    @Override
    public String toString() {
        return "CohortLock[bound=" + bound + ", " + nodes + "]";
    }
}
