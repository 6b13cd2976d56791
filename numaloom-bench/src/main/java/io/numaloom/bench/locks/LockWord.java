package io.numaloom.bench.locks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Hot fields of {@link LockWord}, after {@link HeadPad}. */
abstract class LockWordFields extends HeadPad {
    /** Lock flag, next ticket, or locked bit, by algorithm. Access through {@code LockWord.STATE}. */
    int state;
    /** Now-serving ticket, no-stealing flag, or waiter count, by algorithm. Access through {@code LockWord.AUX}. */
    int aux;
    /** Queue tail (MCS: null when empty; CLH: never null). Access through {@code LockWord.TAIL}. */
    QNode tail;
    /** The holding thread, written by it after acquiring and cleared by it before releasing. */
    Thread owner;
    /** The holder's queue node (or null after a fast-path acquisition); owner-private, read back in unlock(). */
    QNode holder;
    /** Owner-private small integer (HSPIN: the node whose flag the holder took). */
    int slot;
    /** Owner-private hold count of a reentrant lock (RELAXED). */
    int holds;
}

/** Tail padding of {@link LockWord}. */
abstract class LockWordTailPad extends LockWordFields {
    long t01, t02, t03, t04, t05, t06, t07, t08, t09, t10, t11, t12, t13, t14, t15, t16;
}

/**
 * A padded lock word: the hot, written state of one lock (or of one level or NUMA node of a hierarchical
 * lock), with the building blocks the family shares: test-and-set, tickets, and MCS/CLH queue tails.
 *
 * <p>Implementation note. The object owns its cache lines: 128 bytes of padding before and after the fields,
 * so neither the lock's immutable configuration nor unrelated data written by the critical section shares a
 * line with it. Locks of the family keep only final fields themselves and put every written word here.
 *
 * <p>Owner tracking ({@link #own()}, {@link #disown()}) uses plain accesses: a thread that does not hold the
 * lock can never read its own identity in {@code owner} (its last write there, if any, was the {@code null}
 * it wrote before its own release, and coherence forbids reading an older value), so the misuse check in
 * {@code disown()} is exact without fences.
 */
final class LockWord extends LockWordTailPad {
    static final VarHandle STATE;
    static final VarHandle AUX;
    static final VarHandle TAIL;
    static final VarHandle OWNER;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(LockWordFields.class, "state", int.class);
            AUX = l.findVarHandle(LockWordFields.class, "aux", int.class);
            TAIL = l.findVarHandle(LockWordFields.class, "tail", QNode.class);
            OWNER = l.findVarHandle(LockWordFields.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // ---- owner tracking (misuse detection) ----

    /** Records the current thread as the holder (plain write; the caller has just acquired). */
    void own() {
        OWNER.set(this, Thread.currentThread());
    }

    /**
     * Checks that the current thread holds the lock and clears the record, before the caller releases.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     */
    void disown() {
        if (OWNER.get(this) != Thread.currentThread()) {
            throw new IllegalMonitorStateException("unlock() by " + Thread.currentThread()
                    + ", which does not hold the lock");
        }
        OWNER.set(this, null);
    }

    /** {@link #own()} if {@code acquired}; returns {@code acquired} (the tail of every {@code tryLock()}). */
    boolean ownIf(boolean acquired) {
        if (acquired) {
            own();
        }
        return acquired;
    }

    /** Records an acquisition: the holder's queue node (null after a fast path) and the owning thread. */
    void hold(QNode node) {
        holder = node;
        own();
    }

    /**
     * Checks that the current thread holds the lock ({@link #disown()}) and takes back the holder's queue
     * node for the release, clearing the record.
     */
    QNode unhold() {
        disown();
        QNode node = holder;
        holder = null;
        return node;
    }

    /** {@code n} fresh lock words: one per NUMA node or level of a hierarchical lock. */
    static LockWord[] array(int n) {
        LockWord[] words = new LockWord[n];
        for (int i = 0; i < n; i++) {
            words[i] = new LockWord();
        }
        return words;
    }

    // ---- state and aux words ----

    int state() {
        return (int) STATE.getAcquire(this);
    }

    boolean casState(int expected, int value) {
        return STATE.compareAndSet(this, expected, value);
    }

    void releaseState(int value) {
        STATE.setRelease(this, value);
    }

    int aux() {
        return (int) AUX.getAcquire(this);
    }

    void releaseAux(int value) {
        AUX.setRelease(this, value);
    }

    // ---- test-and-set flag (TAS, TTAS, HSPIN, NUMA_MCS): state 0 = free, 1 = held ----

    /** One test-and-test-and-set attempt: a read first, so a held flag costs no write. */
    boolean tryFlag() {
        return (int) STATE.getOpaque(this) == 0 && STATE.compareAndSet(this, 0, 1);
    }

    /** Test-and-test-and-set with the spin-yield-sleep policy ({@link Spin#pause}). */
    void acquireFlag() {
        for (int spins = 0; !tryFlag(); ) {
            spins = Spin.pause(spins);
        }
    }

    void releaseFlag() {
        STATE.setRelease(this, 0);
    }

    /** unlock() of a flag lock: the misuse check, then the release store. */
    void unlockFlag() {
        disown();
        releaseFlag();
    }

    /** "free" or "held", for toString(). */
    String flagState() {
        return state() == 0 ? "free" : "held";
    }

    // ---- ticket lock (TICKET, COHORT's global lock): state = next ticket, aux = now serving ----

    int takeTicket() {
        return (int) STATE.getAndAdd(this, 1);
    }

    /** Spin, yield, then sleep ({@link Spin#pause}) until {@code ticket} is served (tickets wrap; only equality is compared). */
    void awaitTurn(int ticket) {
        for (int spins = 0; aux() != ticket; ) {
            spins = Spin.pause(spins);
        }
    }

    /** Takes a ticket only if it would be served at once. */
    boolean tryTicket() {
        int serving = aux();
        return STATE.compareAndSet(this, serving, serving + 1);
    }

    /** Serves the next ticket; only the holder writes {@code aux}, so a release store suffices. */
    void nextTurn() {
        AUX.setRelease(this, (int) AUX.getOpaque(this) + 1);
    }

    // ---- queue tail (MCS family and CLH family) ----

    QNode tail() {
        return (QNode) TAIL.getAcquire(this);
    }

    QNode swapTail(QNode node) {
        return (QNode) TAIL.getAndSet(this, node);
    }

    boolean casTail(QNode expected, QNode node) {
        return TAIL.compareAndSet(this, expected, node);
    }

    void initTail(QNode node) {
        TAIL.setRelease(this, node);
    }

    /**
     * MCS enqueue: swaps {@code me} into the tail and links it behind its predecessor.
     *
     * @return the predecessor, or null if the queue was empty (then {@code me} heads it)
     */
    QNode enqueue(QNode me) {
        QNode pred = swapTail(me);
        if (pred != null) {
            pred.linkNext(me);
        }
        return pred;
    }

    /**
     * MCS tryLock: a node from {@link NodeCache} made the whole queue with one CAS on an empty tail.
     *
     * @return the node, now the queue's head, or null (node returned to the cache) if the queue is not empty
     */
    QNode tryEnqueueAlone(int status, int node) {
        QNode me = NodeCache.take().prepare(status, node);
        if (casTail(null, me)) {
            return me;
        }
        NodeCache.give(me);
        return null;
    }

    /** MCS tryLock: {@link #tryEnqueueAlone}, and on success the holder is recorded. */
    boolean tryHoldAlone(int status) {
        QNode me = tryEnqueueAlone(status, -1);
        if (me == null) {
            return false;
        }
        hold(me);
        return true;
    }

    /**
     * MCS exit of the queue head {@code me}: empties the queue if {@code me} is alone, else hands
     * {@code grant} to the successor (waiting for it to link itself if it is between its swap and its link).
     * After this returns nobody references {@code me} any more: it may be reused.
     */
    void leave(QNode me, int grant) {
        QNode succ = me.next();
        if (succ == null) {
            if (casTail(me, null)) {
                return;
            }
            succ = me.awaitNext();
        }
        succ.signal(grant);
    }

    /**
     * CLH tryLock: appends {@code me} only behind a released tail.
     *
     * <p>Recycled nodes allow ABA: between the read of the tail and the CAS, the tail node can be dequeued,
     * recycled and enqueued again (held). CLH cannot abandon a queue position, so in that rare case the
     * caller waits for that predecessor, as {@code lock()} would, instead of failing.
     *
     * @return the predecessor {@code me} now follows, or null (not enqueued) if the lock is held
     */
    QNode tryAppendReleased(QNode me, int released) {
        QNode t = tail();
        if (t.status() != released || !casTail(t, me)) {
            return null;
        }
        for (int s; (s = t.status()) != released; ) {
            t.awaitChange(s);
        }
        return t;
    }
}
