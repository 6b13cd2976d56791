package io.numaloom.stress.mutex;

import io.numaloom.stress.subject.InspectableLock;
import io.numaloom.stress.subject.Subject;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import java.util.concurrent.TimeUnit;

/**
 * One lock and the plain (non-volatile) counter it guards; each actor of a mutual-exclusion test enters the
 * critical section once through one acquisition method and records the counter value it wrote.
 *
 * <p>The critical section is a plain read-modify-write, {@code ++counter}: two holders at once, or a holder that
 * does not see its predecessor's write, make two actors write the same value. The arbiter then records the final
 * counter and the lock's <em>residue</em>: after both actors returned, a correct lock is unlocked, has no queued
 * threads and can be taken with {@link InspectableLock#tryLock()}. A timed-out waiter that breaks the queue, or a
 * handoff to a waiter that already left, shows up there even though each lock is used only once.
 *
 * <p>Results ({@link IIII_Result}): r1, r2 = the value each actor wrote, or 0 when its acquisition failed
 * (negated when its unlock threw {@link IllegalMonitorStateException});
 * r3 = the final counter; r4 = residue bits ({@value #RESIDUE_LOCKED} still locked,
 * {@value #RESIDUE_QUEUED} threads still queued, {@value #RESIDUE_TRY_FAILED} tryLock failed), 0 when clean.
 */
public abstract class MutexState {

    /** The timeout of the timed {@code tryLock}: short, so that waiters time out while a handoff is in flight. */
    public static final long TIMED_TRY_NANOS = 1_000;

    public static final int RESIDUE_LOCKED = 1;
    public static final int RESIDUE_QUEUED = 2;
    public static final int RESIDUE_TRY_FAILED = 4;

    private final InspectableLock lock;
    private int counter;

    protected MutexState(InspectableLock lock) {
        this.lock = lock;
    }

    public int viaLock() {
        lock.lock();
        return criticalSectionThenUnlock();
    }

    public int viaLockInterruptibly() {
        try {
            lock.lockInterruptibly();
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts jcstress actors", e);
        }
        return criticalSectionThenUnlock();
    }

    public int viaTryLock() {
        if (!lock.tryLock()) {
            return 0;
        }
        return criticalSectionThenUnlock();
    }

    public int viaTimedTryLock() {
        boolean acquired;
        try {
            acquired = lock.tryLock(TIMED_TRY_NANOS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts jcstress actors", e);
        }
        if (!acquired) {
            return 0;
        }
        return criticalSectionThenUnlock();
    }

    /**
     * The critical section, then the release. Returns the value written, negated when {@code unlock} threw
     * {@link IllegalMonitorStateException} although this actor had acquired the lock (someone else took it over):
     * a broken lock then shows up as a forbidden outcome rather than as an exception.
     */
    private int criticalSectionThenUnlock() {
        int value = ++counter;
        try {
            lock.unlock();
        } catch (IllegalMonitorStateException e) {
            return -value;
        }
        return value;
    }

    /** Records the final counter (r3) and the lock's residue (r4) once both actors have returned. */
    public void arbitrate(IIII_Result r) {
        r.r3 = counter;
        r.r4 = residue(lock);
    }

    /** 0 when {@code lock} is free, has no queued threads and can be taken (and is released again). */
    public static int residue(InspectableLock lock) {
        int residue = 0;
        if (lock.isLocked()) {
            residue |= RESIDUE_LOCKED;
        }
        if (lock.hasQueuedThreads() || lock.getQueueLength() != 0) {
            residue |= RESIDUE_QUEUED;
        }
        if (lock.tryLock()) {
            lock.unlock();
        } else {
            residue |= RESIDUE_TRY_FAILED;
        }
        return residue;
    }

    /** {@code VnaLock} with a queue per NUMA node; needs a topology of at least two nodes. */
    @State
    public static class PerNode extends MutexState {
        static {
            Subject.VNA_PER_NODE.requireTwoQueues();
        }

        public PerNode() {
            super(Subject.VNA_PER_NODE.create());
        }
    }

    /** {@code VnaLock.perSocket()}; needs a topology of at least two sockets. */
    @State
    public static class PerSocket extends MutexState {
        static {
            Subject.VNA_PER_SOCKET.requireTwoQueues();
        }

        public PerSocket() {
            super(Subject.VNA_PER_SOCKET.create());
        }
    }

    /** The reference, {@code ReentrantLock}: the control that shows the expected outcomes are right. */
    @State
    public static class Reentrant extends MutexState {
        public Reentrant() {
            super(Subject.REENTRANT_LOCK.create());
        }
    }
}
