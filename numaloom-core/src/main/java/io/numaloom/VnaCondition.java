package io.numaloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@link Condition} of a {@code VnaLock} or of one key of a {@link KeyedLock}, with the semantics of the JDK's
 * {@code AbstractQueuedSynchronizer.ConditionObject}: FIFO signalling, interruption before a
 * signal throws {@link InterruptedException} after re-acquiring the lock, interruption after a
 * signal re-asserts the interrupt status, spurious wake-ups are absorbed.
 *
 * <p><b>Protocol.</b> The wait queue is a singly linked list guarded by the lock: {@code await}
 * appends while holding it, {@code signal} removes from the head while holding it. A waiter's
 * state moves WAITING -> SIGNALLING (by {@code signal}) or WAITING -> CANCELLED (by its own
 * timeout or interrupt); both are CASes, so exactly one wins and a signal is never spent on a
 * waiter that already gave up: {@code signal} keeps removing until a CAS succeeds. The signaller
 * then hands the waiter to the lock ({@link ConditionLock#queueSignalled}, which counts it as queued)
 * and sets SIGNALLED; a waiter that wakes early (a timeout) in between waits out those few
 * stores of a running signaller without parking, so that it re-acquires knowing what the lock
 * counted. A cancelled
 * waiter may still be linked; it unlinks itself after it has re-acquired the lock. The waiter
 * parks only while its state is WAITING, so an unpark that precedes the park is not lost. At most
 * one signalled waiter of a condition is woken and on its way to the lock ({@code transit}); the
 * others wait their turn, and each is woken by the re-acquisition of the one before ("One in
 * transit per condition" in {@link VnaConditionWakes}). The re-acquisition runs no user code that can fail it
 * ({@link ConditionLock#reacquire}): a custom placement's failure is absorbed, a key's methods are
 * not called once the wait has begun, so {@code await} returns holding the lock and the turn always
 * passes on. From the signal until it holds the lock
 * again it is reported as queued for the lock ({@link SignalledWaiters}), as {@code ReentrantLock}
 * reports it, and no longer as a waiter of the condition. A platform thread polls for its wake-up, yielding,
 * for up to 50 µs before it parks ({@link VnaSignalPoll}); every wake sets the waiter's
 * {@code woken} flag before the unpark for it.
 */
final class VnaCondition implements Condition {

    /** How an await ends, for the interrupt rules of the Condition contract. */
    private static final int NORMAL = 0;
    private static final int THROW = 1;
    private static final int REINTERRUPT = 2;

    final ConditionLock lock;
    private VnaConditionWaiter first;  // guarded by lock
    private VnaConditionWaiter last;   // guarded by lock
    /**
     * The signalled waiter that was woken and does not hold the lock yet, or null; guarded by lock.
     * At most one at a time (see {@link VnaConditionWakes}).
     */
    private VnaConditionWaiter transit;
    /** Signalled waiters not yet woken, in signal order, linked by {@code wakeNext}; guarded by lock. */
    private VnaConditionWaiter unwokenFirst;
    private VnaConditionWaiter unwokenLast;

    VnaCondition(ConditionLock lock) {
        this.lock = lock;
    }

    @Override
    public void await() throws InterruptedException {
        awaitNanosInternal(false, 0L, true);
    }

    @Override
    public void awaitUninterruptibly() {
        VnaConditionWaiter w = enqueue("awaitUninterruptibly");
        long start = System.nanoTime();
        boolean poll = VnaSignalPoll.mayPoll(w.thread);
        ConditionAwaitEvent event = beginAwaitEvent(Long.MAX_VALUE);
        int saved = release(w, "awaitUninterruptibly on");
        if (poll) {
            VnaSignalPoll.poll(w, start, Long.MAX_VALUE);
        }
        boolean interrupted = false;
        while (w.waiting()) {
            LockSupport.park(this);
            interrupted |= Thread.interrupted();
        }
        relock(w, saved);
        if (event != null) {
            event.returned(false);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public long awaitNanos(long nanosTimeout) throws InterruptedException {
        // Negative timeouts mean "no time": clamped, or the deadline arithmetic overflows.
        long nanos = Math.max(0L, nanosTimeout);
        long deadline = System.nanoTime() + nanos;
        awaitNanosInternal(true, nanos, true);
        return deadline - System.nanoTime();
    }

    @Override
    public boolean await(long time, TimeUnit unit) throws InterruptedException {
        return !awaitNanosInternal(true, Math.max(0L, unit.toNanos(time)), true);
    }

    @Override
    public boolean awaitUntil(Date deadline) throws InterruptedException {
        long deadlineMillis = deadline.getTime();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        VnaConditionWaiter w = enqueue("awaitUntil");
        long start = System.nanoTime();
        long nanos = untilDeadlineNanos(deadlineMillis, System.currentTimeMillis());
        boolean poll = VnaSignalPoll.mayPoll(w.thread);
        ConditionAwaitEvent event = beginAwaitEvent(nanos);
        int saved = release(w, "awaitUntil on");
        if (poll) {
            VnaSignalPoll.poll(w, start, nanos);
        }
        int mode = NORMAL;
        boolean timedOut = false;
        while (w.waiting()) {
            if (System.currentTimeMillis() >= deadlineMillis) {
                if (w.cancel()) {
                    timedOut = true;
                    break;
                }
                continue;
            }
            LockSupport.parkUntil(this, deadlineMillis);
            mode = checkInterrupt(w, mode);
        }
        return !finish(w, saved, mode, timedOut, event);
    }

    /**
     * The time from {@code nowMillis} to {@code deadlineMillis} in nanoseconds: 0 if the deadline
     * has passed, {@code Long.MAX_VALUE} (an untimed wait's "forever") if it is too far to count
     * in nanoseconds, as {@code new Date(Long.MAX_VALUE)} is.
     */
    static long untilDeadlineNanos(long deadlineMillis, long nowMillis) {
        if (deadlineMillis <= nowMillis) {
            return 0L;
        }
        long millis = deadlineMillis - nowMillis;
        return millis < 0L ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(millis); // toNanos saturates
    }

    /** Returns true when the wait timed out; {@code nanos} must not be negative. */
    private boolean awaitNanosInternal(boolean timed, long nanos, boolean interruptible) throws InterruptedException {
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException();
        }
        long start = System.nanoTime();
        long deadline = start + nanos;
        VnaConditionWaiter w = enqueue("await");
        boolean poll = VnaSignalPoll.mayPoll(w.thread);
        ConditionAwaitEvent event = beginAwaitEvent(timed ? nanos : Long.MAX_VALUE);
        int saved = release(w, "await on");
        if (poll) {
            VnaSignalPoll.poll(w, start, timed ? nanos : Long.MAX_VALUE);
        }
        int mode = NORMAL;
        boolean timedOut = false;
        while (w.waiting()) {
            if (timed) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0L) {
                    if (w.cancel()) {
                        timedOut = true;
                        break;
                    }
                    continue; // signalled at the last moment: state is no longer WAITING
                }
                LockSupport.parkNanos(this, remaining);
            } else {
                LockSupport.park(this);
            }
            mode = checkInterrupt(w, mode);
        }
        return finish(w, saved, mode, timedOut, event);
    }

    /** Interrupted before a signal: cancel and throw later; after one: re-assert later. */
    private static int checkInterrupt(VnaConditionWaiter w, int mode) {
        if (mode != NORMAL || !Thread.interrupted()) {
            return mode;
        }
        return w.cancel() ? THROW : REINTERRUPT;
    }

    /** Re-acquires, cleans up, applies the interrupt rules; returns {@code timedOut}. */
    private boolean finish(VnaConditionWaiter w, int saved, int mode, boolean timedOut, ConditionAwaitEvent event)
            throws InterruptedException {
        relock(w, saved);
        if (event != null) {
            event.returned(timedOut);
        }
        if (w.cancelled()) {
            unlink(w);
        }
        if (mode == THROW) {
            throw new InterruptedException();
        }
        if (mode == REINTERRUPT) {
            Thread.currentThread().interrupt();
        }
        return timedOut;
    }

    @Override
    public void signal() {
        lock.checkOwner("signal");
        wake(false);
    }

    @Override
    public void signalAll() {
        lock.checkOwner("signalAll");
        wake(true);
    }

    /**
     * Removes waiters from the head; signals the first that was still waiting, or all of them.
     * Each is counted as queued for the lock; the first, if no waiter of this condition is in
     * transit, is woken and becomes the transit one, the others wait their turn.
     */
    private void wake(boolean all) {
        for (VnaConditionWaiter w; (w = first) != null; ) {
            dequeueFirst(w);
            if (w.signal()) {
                try {
                    lock.queueSignalled(w);
                } catch (RuntimeException | Error e) { // no user code runs here; an Error (no memory to inflate): woken now, not lost
                    w.signalled();
                    w.wake();
                    throw e;
                }
                w.signalled();
                if (transit == null) {
                    transit = w;
                    w.wake();
                } else {
                    appendUnwoken(w); // it waits its turn (see VnaConditionWakes)
                }
                if (!all) {
                    return;
                }
            }
        }
    }

    private void appendUnwoken(VnaConditionWaiter w) {
        if (unwokenLast == null) {
            unwokenFirst = w;
        } else {
            unwokenLast.wakeNext = w;
        }
        unwokenLast = w;
    }

    /**
     * Re-acquires the lock for {@code w}, whose wait has ended, restoring {@code saved} holds, and, if {@code w} was
     * this condition's waiter in transit, hands the turn on ({@link #reacquired}).
     */
    private void relock(VnaConditionWaiter w, int saved) {
        VnaSeams seams = VnaSeams.installed;
        if (seams != null) {
            seams.conditionWaitEnded();
        }
        lock.reacquire(saved, w);
        reacquired(w);
    }

    /**
     * Called by waiter {@code w}'s thread once it holds the lock again: if it was this condition's
     * waiter in transit, the next signalled waiter that still waits for the lock takes its place and
     * is woken (see {@link VnaConditionWakes}).
     */
    private void reacquired(VnaConditionWaiter w) {
        if (transit != w) {
            return;
        }
        transit = null;
        for (VnaConditionWaiter n; (n = unwokenFirst) != null; ) {
            unwokenFirst = n.wakeNext;
            if (unwokenFirst == null) {
                unwokenLast = null;
            }
            n.wakeNext = null;
            if (n.inTransit) { // else it re-acquired by itself (a timeout or an interrupt after its signal)
                transit = n;
                n.wake();
                return;
            }
        }
    }

    boolean hasWaiters() {
        return waitQueueLength() > 0;
    }

    int waitQueueLength() {
        lock.checkOwner("inspect the wait queue of");
        int n = 0;
        for (VnaConditionWaiter w = first; w != null; w = w.next) {
            if (w.waiting()) {
                n++;
            }
        }
        return n;
    }

    /** The threads waiting on this condition, not yet signalled, in the order they began to wait; for monitoring. */
    java.util.List<Thread> waitingThreads() {
        lock.checkOwner("inspect the wait queue of");
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        for (VnaConditionWaiter w = first; w != null; w = w.next) {
            if (w.waiting()) {
                threads.add(w.thread);
            }
        }
        return threads;
    }

    private VnaConditionWaiter enqueue(String action) {
        lock.checkOwner(action + " on");
        VnaConditionWaiter w = new VnaConditionWaiter();
        if (last == null) {
            first = w;
        } else {
            last.next = w;
        }
        last = w;
        return w;
    }

    /**
     * Releases the lock for waiter {@code w}, just enqueued. If the release throws (a key whose
     * {@code equals} throws, for one of a {@link KeyedLock}), the lock is still held and the
     * exception reaches the caller: {@code w} is cancelled and unlinked first, or it would stay
     * queued with no thread behind it and swallow a later {@code signal()}.
     */
    private int release(VnaConditionWaiter w, String action) {
        try {
            return lock.releaseFully(action, w);
        } catch (RuntimeException | Error e) {
            abandon(w);
            throw e;
        }
    }

    /** Cancels and unlinks waiter {@code w}, whose wait failed to start; called holding the lock. */
    private void abandon(VnaConditionWaiter w) {
        w.cancel();
        unlink(w);
    }

    private void dequeueFirst(VnaConditionWaiter w) {
        first = w.next;
        if (first == null) {
            last = null;
        }
        w.next = null;
    }

    /** Removes a cancelled waiter if signal has not already done so; called holding the lock. */
    private void unlink(VnaConditionWaiter target) {
        VnaConditionWaiter prev = null;
        for (VnaConditionWaiter w = first; w != null; prev = w, w = w.next) {
            if (w == target) {
                if (prev == null) {
                    first = w.next;
                } else {
                    prev.next = w.next;
                }
                if (last == w) {
                    last = prev;
                }
                w.next = null;
                return;
            }
        }
    }

    /** The await's JFR event, or null; the event class is not touched before JFR is ({@link JfrGate}). */
    private ConditionAwaitEvent beginAwaitEvent(long timeoutNanos) {
        return JfrGate.recorderStarted() ? ConditionAwaitEvent.beginIfEnabled(lock, timeoutNanos) : null;
    }
}
