package io.numaloom.bench.locks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/** Hot fields of {@link QNode}, after {@link HeadPad}. */
abstract class QNodeFields extends HeadPad {
    /** Algorithm-defined state word; the value a waiter waits on. Access through {@code QNode.STATUS}. */
    int status;
    /** The successor in an MCS-style queue. Access through {@code QNode.NEXT}. */
    QNode next;
    /** The thread parked on this node, if any (see {@link QNode#parkWhile(int)}). Access through {@code QNode.WAITER}. */
    Thread waiter;
    /** SHFL: this waiter is the current shuffler. Access through {@code QNode.SHUFFLER}. */
    boolean shuffler;
    /** The dense NUMA node index the waiter enqueued from, or -1 (written before publication, then read-only). */
    int numaNode;
    /** Algorithm-defined counter handed to the successor with the lock (HMCS/COHORT/CNA handoffs, SHFL batch). */
    int count;
    /** CLH/HCLH: the node this holder waited on; CNA: unused. Owner-private. */
    QNode pred;
    /** CNA: head of the secondary queue, handed from holder to holder; in a secondary head: that queue's tail. */
    QNode secHead;
    QNode secTail;
    /** {@link NodeCache}: next free node of the owning thread's stack. Owner-private. */
    QNode nextFree;
}

/** Tail padding of {@link QNode}. */
abstract class QNodeTailPad extends QNodeFields {
    long t01, t02, t03, t04, t05, t06, t07, t08, t09, t10, t11, t12, t13, t14, t15, t16;
}

/**
 * The queue node shared by every queue lock of the family (MCS, NUMA_MCS, CLH, HCLH, CNA, HMCS, COHORT, SHFL),
 * padded on both sides so that two nodes never share a cache line.
 *
 * <p>Implementation note. A node's {@code status} is the only word a waiter watches. Waiting is
 * spin-then-park: {@link #awaitChange(int)} polls for {@link Spin#SPINS} steps, then publishes the waiting
 * thread in {@code waiter} (volatile write) and re-reads {@code status} (volatile read) before every park.
 * {@link #signal(int)} writes {@code status} (volatile write) and then reads {@code waiter} (volatile read).
 * Both pairs are sequentially consistent, so either the waiter sees the new status or the signaller sees the
 * waiter and unparks it: no lost wake-up. A stale {@code waiter} read can unpark a thread that has already
 * moved on; that is a spurious wake-up, which every park loop tolerates. Exactly one thread waits on a node
 * at a time (its successor in the queue), which every algorithm here guarantees.
 *
 * <p>Fields other than {@code status}, {@code next}, {@code waiter} and {@code shuffler} are written before
 * the node is published by a volatile swap or CAS on a queue tail, or before a {@code signal}, and read after
 * the matching acquire, so plain access suffices; each algorithm's class comment says which it uses.
 */
final class QNode extends QNodeTailPad {
    static final VarHandle STATUS;
    static final VarHandle NEXT;
    static final VarHandle WAITER;
    static final VarHandle SHUFFLER;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATUS = l.findVarHandle(QNodeFields.class, "status", int.class);
            NEXT = l.findVarHandle(QNodeFields.class, "next", QNode.class);
            WAITER = l.findVarHandle(QNodeFields.class, "waiter", Thread.class);
            SHUFFLER = l.findVarHandle(QNodeFields.class, "shuffler", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Resets the node for a new enqueue by its (new) owner. Plain writes: the node is published afterwards by
     * a volatile swap or CAS on a queue tail.
     */
    QNode prepare(int initialStatus, int node) {
        STATUS.set(this, initialStatus);
        NEXT.set(this, null);
        SHUFFLER.set(this, false);
        numaNode = node;
        count = 0;
        pred = null;
        secHead = null;
        secTail = null;
        return this;
    }

    int status() {
        return (int) STATUS.getAcquire(this);
    }

    /** Sets the status seen only by the owner (e.g. the cohort count of a holder): opaque, no ordering. */
    void setStatusOpaque(int s) {
        STATUS.setOpaque(this, s);
    }

    QNode next() {
        return (QNode) NEXT.getAcquire(this);
    }

    /** Links {@code succ} behind this node (release: the successor's prepared fields are visible with it). */
    void linkNext(QNode succ) {
        NEXT.setRelease(this, succ);
    }

    boolean isShuffler() {
        return (boolean) SHUFFLER.getAcquire(this);
    }

    void setShuffler(boolean value) {
        SHUFFLER.setRelease(this, value);
    }

    /** Waits ({@link Spin#pause}) until a successor has linked itself behind this node (a window of a few instructions). */
    QNode awaitNext() {
        QNode n;
        for (int spins = 0; (n = next()) == null; ) {
            spins = Spin.pause(spins);
        }
        return n;
    }

    /** Spin briefly, then park, until {@code status != waiting}; returns the new status. Not interruptible. */
    int awaitChange(int waiting) {
        for (int i = 0; i < Spin.SPINS; i++) {
            int s = status();
            if (s != waiting) {
                return s;
            }
            Thread.onSpinWait();
        }
        return parkWhile(waiting);
    }

    /**
     * Parks the current thread until {@code status != waiting}; returns the new status. An interrupt does not
     * end the wait (lock() is not interruptible); the interrupt status is restored on return.
     */
    int parkWhile(int waiting) {
        Thread me = Thread.currentThread();
        WAITER.setVolatile(this, me);
        boolean interrupted = false;
        int s;
        while ((s = (int) STATUS.getVolatile(this)) == waiting) {
            LockSupport.park(this);
            interrupted |= Thread.interrupted();
        }
        WAITER.setOpaque(this, null);
        if (interrupted) {
            me.interrupt();
        }
        return s;
    }

    /** Publishes {@code newStatus} and unparks the waiter, if one is parked on this node. */
    void signal(int newStatus) {
        STATUS.setVolatile(this, newStatus);
        Thread w = (Thread) WAITER.getVolatile(this);
        if (w != null) {
            LockSupport.unpark(w);
        }
    }
}
