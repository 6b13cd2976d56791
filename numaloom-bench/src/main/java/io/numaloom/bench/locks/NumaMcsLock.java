package io.numaloom.bench.locks;

/**
 * NUMA_MCS: the thesis's lock, an atomic flag guarded by one MCS queue per NUMA node.
 *
 * <p>Source: the ITMO bachelor thesis behind the VNA paper (§3.1, Listing 4; the VNA paper,
 * Listings 1-2, is the same structure). Idea: a thread first tries the flag with one CAS (the fast
 * path). If that fails it joins the MCS queue of its current NUMA node; the head of each node's queue (the
 * "leader") competes for the flag with CAS. So at most one thread per node spins on the shared flag, and
 * the others wait on their own node-local queue node. Release stores {@code false} to the flag and then
 * passes the node queue's headship to the next local waiter, using the queue the holder joined (recorded
 * at lock time, because a virtual thread may have moved to another node inside the critical section).
 * Listing 4, as written:
 * <pre>
 *   if cas(flag, 0, 1) return
 *   cur = Node(); prev = localQueues[node()].getAndSet(cur)
 *   while (prev != null &amp;&amp; cur.spin) {}          // wait for local headship
 *   while !cas(flag, 0, 1) {}                      // leader competes for the flag
 * </pre>
 *
 * <p>Properties: not fair (the fast path and the node leaders race for the flag; a node can win it
 * repeatedly); NUMA-aware only in that waiting is node-local (no handoff preference across nodes);
 * parks: queued waiters spin briefly then park, as §3.1 describes ("a small number of waiting iterations,
 * then LockSupport.park()"), and are unparked by their predecessor; the leader's CAS loop spins, then yields, then
 * sleeps briefly ({@link Spin#pause}), because no one would wake a parked leader when the flag is released by
 * a fast-path holder. Not reentrant. No timed or interruptible acquisition: a queued waiter cannot leave the queue.
 *
 * <p>Nodes come from {@link NodeCache} (only the slow path takes one) and go back after the local handoff.
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class NumaMcsLock extends BaselineLock {
    private static final int WAITING = 0;
    private static final int LEADER = 1;

    private final NumaNodes nodes;
    private final LockWord flag = new LockWord();
    private final LockWord[] queues;

    /** Follows the process topology ({@code -Dnumaloom.topology}) and the current CPU's node. */
    public NumaMcsLock() {
        this(NumaNodes.system());
    }

    public NumaMcsLock(NumaNodes nodes) {
        this.nodes = nodes;
        this.queues = LockWord.array(nodes.count());
    }

    @Override
    public void lock() {
        flag.hold(flag.casState(0, 1) ? null : slowLock());
    }

    private QNode slowLock() {
        int node = nodes.current();
        QNode me = NodeCache.take().prepare(WAITING, node);
        if (queues[node].enqueue(me) != null) {
            me.awaitChange(WAITING);
        }
        for (int spins = 0; !flag.casState(0, 1); ) {
            spins = Spin.pause(spins);
        }
        return me;
    }

    @Override
    public boolean tryLock() {
        return flag.ownIf(flag.casState(0, 1));
    }

    @Override
    public void unlock() {
        QNode me = flag.unhold();
        flag.releaseFlag();
        if (me != null) {
            queues[me.numaNode].leave(me, LEADER);
            NodeCache.give(me);
        }
    }

    @Override
    public String toString() {
        return "NumaMcsLock[" + flag.flagState() + ", " + nodes + "]";
    }
}
