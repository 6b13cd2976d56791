package io.numaloom.stress.planted;

import io.numaloom.stress.subject.InspectableLock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;

/**
 * A small parking lock with direct handoff and an optional planted bug, to show that every correctness tool of
 * this module catches a broken lock: jcstress ({@link PlantedMutex}, {@link PlantedHandoff}) and Lincheck, each
 * through a test that passes only when the tool reports the failure. With {@link Bug#NONE} it is correct, and the
 * same tests must pass on it: that is what shows a failure is the bug's doing and not the harness's.
 *
 * <p><b>Protocol.</b> {@code owner} is the flag. A newcomer takes a free flag by CAS (barging). A thread that
 * fails appends a {@link Node} to {@code queue} (a {@link ConcurrentLinkedQueue}), tries the CAS once more, and
 * then parks until its node is {@code GRANTED}; it never takes the flag itself after that, so a waiter depends on
 * the handoff, as in an MCS lock. Unlock of a lock with waiters hands it over without freeing it: it grants the
 * head node by CAS ({@code WAITING -> GRANTED}), then writes the head's thread into {@code owner} and unparks it
 * (the waiter proceeds once it sees both); if the head had cancelled, it drops the node and tries the next.
 * Unlock with no waiter frees the flag, then looks at the queue again: a waiter that appended in between either
 * sees the free flag in its second CAS or is seen here, and then the unlocker re-takes the flag by CAS to hand it
 * over (by sequential consistency of volatile accesses one of the two happens). A waiter that times out or is interrupted
 * cancels its node by CAS ({@code WAITING -> CANCELLED}); losing that CAS means it was granted the lock at that
 * moment, and it returns holding it. Not fair (newcomers barge); reentrant; no conditions.
 */
public final class PlantedLock implements InspectableLock {

    /** The bug planted in a lock. */
    public enum Bug {
        /** A correct lock: the control. */
        NONE,
        /** Taking the flag reads it and then writes it, without a CAS: two threads can both take it. */
        FAST_PATH_WITHOUT_CAS,
        /** unlock frees the flag and forgets the handoff: a queued waiter is never granted the lock. */
        UNLOCK_FORGETS_HANDOFF
    }

    /** A queued waiter. */
    static final class Node {
        static final int WAITING = 0;
        static final int GRANTED = 1;
        static final int CANCELLED = 2;

        final Thread thread;
        volatile int status;

        Node(Thread thread) {
            this.thread = thread;
        }
    }

    private static final VarHandle OWNER;
    private static final VarHandle STATUS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OWNER = l.findVarHandle(PlantedLock.class, "owner", Thread.class);
            STATUS = l.findVarHandle(Node.class, "status", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Bug bug;
    private volatile Thread owner;
    /** Re-entries beyond the first; owner-only. */
    private int holds;
    private final ConcurrentLinkedQueue<Node> queue = new ConcurrentLinkedQueue<>();

    public PlantedLock(Bug bug) {
        this.bug = bug;
    }

    public Bug bug() {
        return bug;
    }

    private boolean takeFree(Thread me) {
        if (bug == Bug.FAST_PATH_WITHOUT_CAS) {
            if (owner == null) {
                owner = me;
                return true;
            }
            return false;
        }
        return OWNER.compareAndSet(this, null, me);
    }

    @Override
    public void lock() {
        try {
            acquire(false, false, 0L);
        } catch (InterruptedException e) {
            throw new AssertionError("uninterruptible acquisition threw", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        acquire(true, false, 0L);
    }

    @Override
    public boolean tryLock() {
        Thread me = Thread.currentThread();
        if (owner == me) {
            holds++;
            return true;
        }
        return takeFree(me);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return acquire(true, true, unit.toNanos(time));
    }

    private boolean acquire(boolean interruptible, boolean timed, long nanos) throws InterruptedException {
        Thread me = Thread.currentThread();
        if (owner == me) {
            holds++;
            return true;
        }
        if (takeFree(me)) {
            return true;
        }
        if (timed && nanos <= 0L) {
            return false;
        }
        long deadline = timed ? System.nanoTime() + nanos : 0L;
        Node node = new Node(me);
        queue.add(node);
        if (takeFree(me)) {
            // Took it ourselves; nobody can grant a node whose thread owns the lock, so cancel and leave.
            STATUS.compareAndSet(node, Node.WAITING, Node.CANCELLED);
            queue.remove(node);
            return true;
        }
        boolean interrupted = false;
        while (node.status != Node.GRANTED || owner != me) {
            boolean giveUp = false;
            if (timed) {
                long left = deadline - System.nanoTime();
                if (left <= 0L) {
                    giveUp = true;
                } else {
                    LockSupport.parkNanos(this, left);
                }
            } else {
                LockSupport.park(this);
            }
            if (Thread.interrupted()) {
                if (interruptible) {
                    giveUp = true;
                }
                interrupted = true;
            }
            if (giveUp && STATUS.compareAndSet(node, Node.WAITING, Node.CANCELLED)) {
                queue.remove(node);
                if (interruptible && interrupted) {
                    throw new InterruptedException();
                }
                return false;
            }
        }
        queue.remove(node);
        if (interrupted) {
            me.interrupt();
        }
        return true;
    }

    @Override
    public void unlock() {
        Thread me = Thread.currentThread();
        if (owner != me) {
            throw new IllegalMonitorStateException();
        }
        if (holds > 0) {
            holds--;
            return;
        }
        if (bug == Bug.UNLOCK_FORGETS_HANDOFF) {
            owner = null;
            return;
        }
        for (;;) {
            Node head = queue.peek();
            if (head == null) {
                owner = null;
                if (queue.peek() == null || !OWNER.compareAndSet(this, null, me)) {
                    return;
                }
                continue;
            }
            if (STATUS.compareAndSet(head, Node.WAITING, Node.GRANTED)) {
                owner = head.thread;
                LockSupport.unpark(head.thread);
                return;
            }
            queue.remove(head);
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("the planted lock has no conditions");
    }

    @Override public int getHoldCount() { return owner == Thread.currentThread() ? holds + 1 : 0; }
    @Override public boolean isHeldByCurrentThread() { return owner == Thread.currentThread(); }
    @Override public boolean isLocked() { return owner != null; }
    @Override public boolean hasQueuedThreads() { return getQueueLength() > 0; }

    @Override
    public int getQueueLength() {
        int n = 0;
        for (Node node : queue) {
            if (node.status == Node.WAITING) {
                n++;
            }
        }
        return n;
    }

    @Override public boolean hasWaiters(Condition condition) { throw new UnsupportedOperationException("no conditions"); }

    @Override
    public String toString() {
        Thread o = owner;
        return super.toString() + "[" + bug + (o == null ? ", unlocked]" : ", locked by " + o.getName() + "]");
    }
}
