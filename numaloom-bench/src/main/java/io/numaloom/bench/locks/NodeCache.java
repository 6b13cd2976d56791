package io.numaloom.bench.locks;

/**
 * Per-thread free list of {@link QNode}s, so that queue locks allocate no node per acquisition.
 *
 * <p>A thread takes a node when it enqueues and gives back a node once no other thread can reference it
 * (each algorithm's class comment argues when that is). In the MCS family a thread gets its own node back;
 * in the CLH family it gets its predecessor's. The list holds at most {@link #MAX_FREE} nodes (a thread
 * holding that many queue locks at once), so nodes never pile up in one thread.
 *
 * <p>One {@code ThreadLocal} lookup per take or give; with virtual threads the list lives in the virtual
 * thread, so a parked waiter's node is never shared with the next virtual thread on its carrier.
 */
final class NodeCache {
    private static final int MAX_FREE = 8;
    private static final ThreadLocal<NodeCache> FREE = ThreadLocal.withInitial(NodeCache::new);

    private QNode top;
    private int size;

    private NodeCache() {}

    /** A node for the current thread to enqueue (recycled, or new the first times). */
    static QNode take() {
        NodeCache c = FREE.get();
        QNode n = c.top;
        if (n == null) {
            return new QNode();
        }
        c.top = n.nextFree;
        c.size--;
        n.nextFree = null;
        return n;
    }

    /** Returns a node no other thread references any more. */
    static void give(QNode n) {
        NodeCache c = FREE.get();
        if (c.size < MAX_FREE) {
            n.nextFree = c.top;
            c.top = n;
            c.size++;
        }
    }
}
