package io.numaloom.bench.locks;

/**
 * CNA: the compact NUMA-aware lock.
 *
 * <p>Paper: D. Dice and A. Kogan, "Compact NUMA-aware Locks", EuroSys 2019. Idea: an MCS lock whose
 * holder, at release, looks down the queue for a waiter on its own NUMA node. The waiters it skips are cut
 * out of the main queue and appended to a secondary queue, which the lock carries from holder to holder
 * (in the paper, in the successor's {@code spin} word; here in its {@code secHead} field, written before
 * the grant). The secondary queue goes back in front of the main queue when no local waiter is left or when
 * the fairness threshold says so. The lock stays one word (the tail) and one node per waiter.
 *
 * <p>Fairness threshold: the paper flushes the secondary queue with a small probability at each handoff
 * ({@code keep_lock_local()}, 1 in 2^16). Here the holder counts consecutive handoffs within the node
 * ({@code count}, handed to the successor with the lock) and flushes when the count reaches
 * {@code threshold}: the same mean with a hard bound. A waiter on another node is therefore overtaken by at
 * most {@code threshold} local handoffs after it was moved to the secondary queue, plus the waiters already
 * ahead of it there. Default {@value #DEFAULT_THRESHOLD}, the paper's expected interval.
 *
 * <p>Properties: fair within the threshold (starvation-free), NUMA-aware (prefers local handoff); waiters
 * spin briefly on their own node, then park ({@link QNode#awaitChange}); the holder unparks its chosen
 * successor. Waiters in the secondary queue stay parked, untouched, until they get the lock. Not reentrant.
 * No timed or interruptible acquisition: a waiter cannot leave the queue.
 *
 * <p>Queue surgery is done only by the holder, and only on nodes strictly between itself and the tail
 * (a node whose {@code next} is still null may be the tail, being linked, and is never cut), so arrivals
 * race with nothing but the tail CAS, as in MCS. Nodes come from {@link NodeCache} and go back when the
 * holder leaves: a released holder is in neither queue.
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class CnaLock extends BaselineLock {
    /** The paper's expected number of local handoffs between flushes (2^16). */
    public static final int DEFAULT_THRESHOLD = 1 << 16;

    private static final int WAITING = 0;
    private static final int GRANTED = 1;

    private final NumaNodes nodes;
    private final int threshold;
    private final LockWord word = new LockWord();

    /** Follows the process topology ({@code -Dnumaloom.topology}) and the current CPU's node. */
    public CnaLock() {
        this(NumaNodes.system(), DEFAULT_THRESHOLD);
    }

    /**
     * @param threshold the most consecutive handoffs within a node before the secondary queue is flushed
     *                  (at least 1)
     */
    public CnaLock(NumaNodes nodes, int threshold) {
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be at least 1, got " + threshold);
        }
        this.nodes = nodes;
        this.threshold = threshold;
    }

    @Override
    public void lock() {
        QNode me = NodeCache.take().prepare(WAITING, -1);
        QNode pred = word.swapTail(me);
        if (pred != null) {
            me.numaNode = nodes.current(); // before the link publishes the node to its predecessor
            pred.linkNext(me);
            me.awaitChange(WAITING);
        }
        word.hold(me);
    }

    @Override
    public boolean tryLock() {
        return word.tryHoldAlone(WAITING);
    }

    @Override
    public void unlock() {
        QNode me = word.unhold();
        QNode next = me.next();
        if (next == null) {
            QNode sec = me.secHead;
            if (sec == null) {
                if (word.casTail(me, null)) {
                    NodeCache.give(me);
                    return;
                }
            } else if (word.casTail(me, sec.secTail)) {
                grant(sec, null, 0); // the secondary queue becomes the main queue
                NodeCache.give(me);
                return;
            }
            next = me.awaitNext();
        }
        QNode local = me.count < threshold ? findLocalSuccessor(me, next) : null;
        if (local != null) {
            grant(local, me.secHead, me.count + 1);
        } else if (me.secHead != null) {
            QNode sec = me.secHead;
            sec.secTail.linkNext(next); // flush: secondary queue first, then the main queue
            grant(sec, null, 0);
        } else {
            grant(next, null, 0);
        }
        NodeCache.give(me);
    }

    private static void grant(QNode succ, QNode secondary, int localHandoffs) {
        succ.secHead = secondary;
        succ.count = localHandoffs;
        succ.signal(GRANTED);
    }

    /**
     * The paper's {@code find_successor}: the first waiter on the holder's node, moving the waiters before it
     * to the end of the secondary queue; null (and no change) if the main queue has none.
     */
    private QNode findLocalSuccessor(QNode me, QNode next) {
        int myNode = me.numaNode >= 0 ? me.numaNode : nodes.current();
        if (next.numaNode == myNode) {
            return next;
        }
        QNode skippedTail = next;
        for (QNode cur = next.next(); cur != null; cur = cur.next()) {
            if (cur.numaNode == myNode) {
                if (me.secHead == null) {
                    me.secHead = next;
                } else {
                    me.secHead.secTail.linkNext(next);
                }
                skippedTail.linkNext(null);
                me.secHead.secTail = skippedTail;
                return cur;
            }
            skippedTail = cur;
        }
        return null;
    }

    @Override
    public String toString() {
        return "CnaLock[" + (word.tail() == null ? "free" : "held") + ", threshold=" + threshold + ", " + nodes + "]";
    }
}
