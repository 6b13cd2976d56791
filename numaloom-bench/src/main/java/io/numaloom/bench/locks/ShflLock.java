package io.numaloom.bench.locks;

/**
 * SHFL: a shuffle lock in the manner of ShflLock's blocking mutex.
 *
 * <p>Paper: S. Kashyap, I. Calciu, X. Cheng, C. Min and T. Kim, "Scalable and Practical Locking with
 * Shuffling", SOSP 2019. Idea: decouple the lock word from the waiter queue. The lock is a test-and-set
 * word that anyone may take on the fast path ("stealing"); contended threads join an MCS queue of parked
 * waiters, and only the queue's head competes for the word. While they wait, waiters do the NUMA policy
 * off the critical path: a shuffler walks the queue behind itself and moves waiters of its own node up to
 * join its batch, so that consecutive lock holders come from one node, and wakes the waiters it moved
 * ("wakes the next ones early"), so that they are spinning, not parked, when their turn comes. The head,
 * once it has the word, passes headship to its successor and enters the critical section; unlock is a
 * single release store to the word.
 *
 * <p>Policy details (this implementation):
 * <ul>
 * <li>Shuffling: the queue head starts a batch when it has none ({@code count == 0}); a shuffle moves same-node
 *     waiters right behind the batch's last node, numbers them ({@code count}), wakes them, and, if the batch
 *     grew, leaves the shuffler role to its last node, which continues while it waits. A batch stops growing at
 *     {@code maxBatch} waiters (the paper's {@code MAX_SHUFFLES}): the bound on how many waiters of one node
 *     can be moved ahead of a waiter of another. One shuffle runs at a time (a guard word), and a shuffler
 *     only touches nodes behind itself that are not the tail, so arrivals race only with the tail, as in MCS.
 *     A head that sees the word free stops shuffling to take it.
 * <li>Stealing: the fast path and {@link #tryLock()} take the word only while no head has disabled stealing.
 *     A head that has not won the word after {@link Spin#SPINS} polls disables stealing until it wins, so
 *     barging cannot starve the queue.
 * </ul>
 *
 * <p>Properties: not strictly fair (stealing, and reordering within {@code maxBatch}); starvation-free;
 * NUMA-aware (node batching); parks: a queued waiter spins briefly then parks until the shuffler wakes it or
 * it becomes head; woken and head waiters spin, then yield, then sleep briefly ({@link Spin#pause}), since nobody
 * signals a head when the word is released. Not reentrant. No timed or
 * interruptible acquisition: a queued waiter cannot leave the queue.
 *
 * <p>Queue nodes come from {@link NodeCache} and go back as soon as their thread has passed headship on
 * (before its critical section): nodes are never moved ahead of a shuffler, so no shuffler can still
 * reference a node that has left the queue.
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class ShflLock extends BaselineLock {
    /** Default bound on the waiters of one batch (the paper's {@code MAX_SHUFFLES} is 1024; we keep batches shorter). */
    public static final int DEFAULT_MAX_BATCH = 64;

    private static final int WAITING = 0;
    private static final int SPINNING = 1;
    private static final int HEAD = 2;

    private final NumaNodes nodes;
    private final int maxBatch;
    /** state: 1 while held; aux: 1 while a queue head has disabled stealing; tail: the waiter queue. */
    private final LockWord word = new LockWord();
    /** state: 1 while a shuffle runs. */
    private final LockWord shuffleGuard = new LockWord();

    /** Follows the process topology ({@code -Dnumaloom.topology}) and the current CPU's node. */
    public ShflLock() {
        this(NumaNodes.system(), DEFAULT_MAX_BATCH);
    }

    /** @param maxBatch the most waiters of one node grouped into one batch (at least 1) */
    public ShflLock(NumaNodes nodes, int maxBatch) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1, got " + maxBatch);
        }
        this.nodes = nodes;
        this.maxBatch = maxBatch;
    }

    @Override
    public void lock() {
        if (!trySteal()) {
            QNode me = NodeCache.take().prepare(WAITING, nodes.current());
            if (word.enqueue(me) != null) {
                awaitHeadship(me);
            }
            acquireAsHead(me);
            word.leave(me, HEAD);
            NodeCache.give(me);
        }
        word.own();
    }

    private boolean trySteal() {
        return word.aux() == 0 && word.casState(0, 1);
    }

    @Override
    public boolean tryLock() {
        return word.ownIf(trySteal());
    }

    @Override
    public void unlock() {
        word.disown();
        word.releaseState(0);
    }

    private void awaitHeadship(QNode me) {
        for (int spins = 0; ; ) {
            int s = me.status();
            if (s == HEAD) {
                return;
            }
            if (me.isShuffler()) {
                shuffle(me, false);
            }
            if (s == WAITING && spins >= Spin.SPINS && !me.isShuffler()) {
                me.parkWhile(WAITING);
            } else {
                spins = Spin.pause(spins);
            }
        }
    }

    private void acquireAsHead(QNode me) {
        boolean stealingDisabled = false;
        for (int spins = 0; ; spins = Spin.pause(spins)) {
            if (word.state() == 0) {
                if (word.casState(0, 1)) {
                    break;
                }
            } else if (me.isShuffler() || me.count == 0) {
                shuffle(me, true);
            }
            if (!stealingDisabled && spins >= Spin.SPINS) {
                word.releaseAux(1);
                stealingDisabled = true;
            }
        }
        if (stealingDisabled) {
            word.releaseAux(0);
        }
    }

    /**
     * Moves waiters of {@code me}'s node that queue behind it up behind the last node of {@code me}'s batch,
     * wakes them, and hands the shuffler role to the batch's last node. Returns at once if another shuffle
     * runs. Count and links are published to each moved waiter by the {@code signal} that wakes it.
     */
    private void shuffle(QNode me, boolean isHead) {
        if (!shuffleGuard.tryFlag()) {
            return;
        }
        try {
            me.setShuffler(false);
            int batch = Math.max(me.count, 1);
            me.count = batch;
            QNode last = me;
            QNode prev = me;
            while (batch < maxBatch) {
                QNode cur = prev.next();
                if (cur == null || cur == word.tail()) {
                    break;
                }
                if (cur.numaNode != me.numaNode) {
                    prev = cur;
                } else {
                    if (prev != last) {
                        QNode after = cur.next();
                        if (after == null) {
                            break;
                        }
                        prev.linkNext(after);
                        cur.linkNext(last.next());
                        last.linkNext(cur);
                    } else {
                        prev = cur;
                    }
                    cur.count = ++batch;
                    cur.signal(SPINNING);
                    last = cur;
                }
                if (isHead && word.state() == 0) {
                    break;
                }
            }
            if (last != me && batch < maxBatch) {
                last.setShuffler(true); // the batch grew: its last node goes on shuffling while it waits
            }
        } finally {
            shuffleGuard.releaseFlag();
        }
    }

    @Override
    public String toString() {
        return "ShflLock[" + word.flagState() + ", maxBatch=" + maxBatch + ", " + nodes + "]";
    }
}
