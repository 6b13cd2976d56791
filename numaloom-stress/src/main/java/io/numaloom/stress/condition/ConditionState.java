package io.numaloom.stress.condition;

import io.numaloom.stress.mutex.MutexState;
import io.numaloom.stress.subject.InspectableLock;
import io.numaloom.stress.subject.Subject;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A lock, one of its conditions and the predicate it guards ({@code ready}, plain, written under the lock),
 * for the jcstress tests of {@link LockConditions}.
 */
public abstract class ConditionState {

    /** The timeout of the waiter that races a signal: short, so that timing out and being signalled collide. */
    public static final long RACING_AWAIT_NANOS = 5_000;

    /**
     * How long a waiter waits for a signal that must come: far beyond the signaller's latency, so that running out
     * of it means the signal was lost (or the lock was not released), not that the machine was slow.
     */
    public static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final InspectableLock lock;
    private final Condition condition;
    private boolean ready;
    private int payload;
    private int barged;

    protected ConditionState(InspectableLock lock) {
        this.lock = lock;
        this.condition = lock.newCondition();
    }

    /**
     * Waits in the predicate loop for {@link #signalReady()}, for at most {@link #PATIENCE_NANOS}. Records in
     * r1 whether it had to wait (0: the predicate was already true, 1: it waited and was woken, 2: it waited the
     * whole patience without seeing the predicate: the signal sent while it waited was lost) and in r2 its hold
     * count afterwards.
     */
    public void awaitReady(IIII_Result r) {
        lock.lock();
        try {
            int waited = 0;
            long nanos = PATIENCE_NANOS;
            while (!ready && nanos > 0) {
                waited = 1;
                nanos = condition.awaitNanos(nanos);
            }
            r.r1 = ready ? waited : 2;
            r.r2 = lock.getHoldCount();
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts jcstress actors", e);
        } finally {
            lock.unlock();
        }
    }

    /** Sets the predicate and signals, under the lock. */
    public void signalReady() {
        lock.lock();
        try {
            ready = true;
            condition.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Holds the lock twice and waits (at most {@link #PATIENCE_NANOS}) for {@link #publishAndSignal}; records in
     * r1 its hold count after the wait and in r2 the value it saw published (42; 0 if it gave up waiting).
     */
    public void awaitHoldingTwice(IIII_Result r) {
        lock.lock();
        lock.lock();
        try {
            long nanos = PATIENCE_NANOS;
            while (!ready && nanos > 0) {
                nanos = condition.awaitNanos(nanos);
            }
            r.r1 = lock.getHoldCount();
            r.r2 = payload;
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts jcstress actors", e);
        } finally {
            lock.unlock();
            lock.unlock();
        }
    }

    /**
     * Takes the lock, which a waiter holding it twice must have released entirely, publishes 42 and signals;
     * records in r3 whether it got the lock within {@link #PATIENCE_NANOS} (1) or not (0).
     */
    public void publishAndSignal(IIII_Result r) {
        boolean acquired;
        try {
            acquired = lock.tryLock(PATIENCE_NANOS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts jcstress actors", e);
        }
        if (!acquired) {
            r.r3 = 0;
            return;
        }
        try {
            payload = 42;
            ready = true;
            condition.signal();
        } finally {
            lock.unlock();
        }
        r.r3 = 1;
    }

    /**
     * {@link #signalReady()}, then takes and releases the lock twice more at once, counting under it: the
     * signaller barges back while the waiter it signalled (counted as queued for the lock since the signal)
     * wakes and re-acquires.
     */
    public void signalThenBargeTwice() {
        signalReady();
        for (int i = 0; i < 2; i++) {
            lock.lock();
            try {
                barged++;
            } finally {
                lock.unlock();
            }
        }
    }

    /** {@link #arbitrateResidue}, and in r3 the count of {@link #signalThenBargeTwice} (2 unless exclusion failed). */
    public void arbitrateBargedAndResidue(IIII_Result r) {
        arbitrateResidue(r);
        lock.lock();
        try {
            r.r3 = barged;
        } finally {
            lock.unlock();
        }
    }

    /** Records in r4 the lock's residue (see {@link MutexState#residue}), plus 8 if the condition has waiters. */
    public void arbitrateResidue(IIII_Result r) {
        int residue = MutexState.residue(lock);
        lock.lock();
        try {
            r.r4 = residue | (lock.hasWaiters(condition) ? 8 : 0);
        } finally {
            lock.unlock();
        }
    }

    /** Waits (unless already signalled) for at most {@link #RACING_AWAIT_NANOS}; records hold count and predicate. */
    public void racingTimedAwait(IIII_Result r) {
        lock.lock();
        try {
            if (!ready) {
                try {
                    condition.awaitNanos(RACING_AWAIT_NANOS);
                } catch (InterruptedException e) {
                    throw new AssertionError("nobody interrupts jcstress actors", e);
                }
            }
            r.r1 = lock.getHoldCount();
            r.r2 = ready ? 1 : 0;
        } finally {
            lock.unlock();
        }
    }

    @State
    public static class PerNode extends ConditionState {
        static {
            Subject.VNA_PER_NODE.requireTwoQueues();
        }

        public PerNode() {
            super(Subject.VNA_PER_NODE.create());
        }
    }

    @State
    public static class PerSocket extends ConditionState {
        static {
            Subject.VNA_PER_SOCKET.requireTwoQueues();
        }

        public PerSocket() {
            super(Subject.VNA_PER_SOCKET.create());
        }
    }

    @State
    public static class Reentrant extends ConditionState {
        public Reentrant() {
            super(Subject.REENTRANT_LOCK.create());
        }
    }
}
