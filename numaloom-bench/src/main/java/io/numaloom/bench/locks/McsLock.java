package io.numaloom.bench.locks;

/**
 * MCS: the Mellor-Crummey and Scott queue lock.
 *
 * <p>Paper: J. M. Mellor-Crummey and M. L. Scott, "Algorithms for Scalable Synchronization on Shared-Memory
 * Multiprocessors", ACM TOCS 9(1), 1991. Idea: waiters form a linked queue; a thread swaps its node into
 * the tail, links itself behind its predecessor and waits on a flag in its own node, so each handoff
 * touches one waiter's cache line instead of all of them. The holder passes the lock by setting its
 * successor's flag, or empties the queue with a CAS on the tail when it has none.
 *
 * <p>Properties: fair (FIFO); not NUMA-aware; spins briefly on its own node, then parks
 * ({@link QNode#awaitChange}): the releaser knows its successor's node and unparks it, so a queued virtual
 * thread costs no CPU. (The original spins; parking is the adaptation any lock on virtual threads needs,
 * and the queue order is unchanged.) Not reentrant. No timed or interruptible acquisition: a waiter cannot
 * leave the queue.
 *
 * <p>Nodes come from {@link NodeCache}: after {@code unlock()} returns nobody references the holder's node
 * (the successor linked itself before it was granted, and {@link LockWord#leave} waits for that link), so
 * the holder takes it back. No allocation per acquisition once a thread has its node.
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class McsLock extends BaselineLock {
    private static final int WAITING = 0;
    private static final int GRANTED = 1;

    private final LockWord word = new LockWord();

    @Override
    public void lock() {
        QNode me = NodeCache.take().prepare(WAITING, -1);
        if (word.enqueue(me) != null) {
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
        word.leave(me, GRANTED);
        NodeCache.give(me);
    }

    @Override
    public String toString() {
        return "McsLock[" + (word.tail() == null ? "free" : "held") + "]";
    }
}
