package io.numaloom.bench.locks;


/**
 * HSPIN: a hierarchical spin lock, one test-and-set flag per NUMA node under one global flag.
 *
 * <p>Source: the VNA paper ("NUMA-aware lock for Java Lightweight Threads", §3), which compares VNA against "HSPIN (hierarchical spin) locks" that
 * "call Thread.yield() after some spins on the flag, because, otherwise, the system might be blocked when all
 * carrier threads are actively spinning". Lineage: the hierarchical locks of Z. Radović and E. Hagersten
 * ("Hierarchical Backoff Locks for Nonuniform Communication Architectures", HPCA 2003) and the test-and-set
 * cohorts of Dice, Marathe and Shavit (PPoPP 2012). Idea: a thread takes its node's flag, then the global
 * flag; it releases the global flag, then the node flag it took (recorded at lock time, since a virtual
 * thread may move to another node inside the critical section). At most one thread per node competes on
 * the global flag, so its cache line sees at most one contender per node; the others spin on a flag in
 * their own node. Both levels are test-and-test-and-set.
 *
 * <p>Properties: not fair (no order at either level); NUMA-aware only in where it waits: there is no
 * preference for handing the global flag to the same node; spins, then yields, then sleeps briefly
 * ({@link Spin#pause}) at both levels, as the paper's HSPIN yields; it never parks untimed (no queue, no one
 * to wake). Not reentrant. Timed and interruptible acquisition poll {@link #tryLock()}
 * ({@link PollingLock}).
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class HspinLock extends PollingLock {
    private final NumaNodes nodes;
    private final LockWord global = new LockWord();
    private final LockWord[] local;

    /** Follows the process topology ({@code -Dnumaloom.topology}) and the current CPU's node. */
    public HspinLock() {
        this(NumaNodes.system());
    }

    public HspinLock(NumaNodes nodes) {
        this.nodes = nodes;
        this.local = LockWord.array(nodes.count());
    }

    @Override
    public void lock() {
        int node = nodes.current();
        local[node].acquireFlag();
        global.acquireFlag();
        acquired(node);
    }

    @Override
    public boolean tryLock() {
        int node = nodes.current();
        if (!local[node].tryFlag()) {
            return false;
        }
        if (!global.tryFlag()) {
            local[node].releaseFlag();
            return false;
        }
        acquired(node);
        return true;
    }

    private void acquired(int node) {
        global.slot = node;
        global.own();
    }

    @Override
    public void unlock() {
        global.disown();
        int node = global.slot;
        global.releaseFlag();
        local[node].releaseFlag();
    }

    @Override
    public String toString() {
        return "HspinLock[" + global.flagState() + ", " + nodes + "]";
    }
}
