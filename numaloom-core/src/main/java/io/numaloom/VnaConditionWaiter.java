package io.numaloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A thread waiting on a condition of a {@code VnaLock} or of a {@link KeyedLock} key ({@link VnaCondition}), from its
 * {@code await} until it holds the lock again: the links of the condition's wait queue, of its signalled waiters not
 * yet woken ({@link VnaConditionWakes}) and of the lock's signalled waiters ({@link SignalledWaiters}), and the
 * waiter's state.
 *
 * <p><b>State.</b> {@code WAITING -> SIGNALLING -> SIGNALLED} (a signal) or {@code WAITING -> CANCELLED} (its own
 * timeout or interrupt): both leave {@code WAITING} by a CAS, so exactly one wins and a signal is never spent on a
 * waiter that gave up. A waiter that wakes while {@code SIGNALLING} waits out the signaller's few stores
 * ({@link #awaitSignalComplete}).
 */
final class VnaConditionWaiter {

    static final int WAITING = 0;
    static final int SIGNALLED = 1;
    static final int CANCELLED = 2;
    /** Signalled, while the signaller hands it to the lock; SIGNALLED next. */
    static final int SIGNALLING = 3;

    final Thread thread = Thread.currentThread();
    VnaConditionWaiter next;
    /** The next waiter in the condition's list of signalled waiters not yet woken (see {@link VnaConditionWakes}). */
    VnaConditionWaiter wakeNext;
    int state; // STATE
    /**
     * Set by the wake that unparks this waiter, just before the unpark: what a polling waiter
     * waits for ({@link VnaSignalPoll}).
     */
    private volatile boolean woken;
    /**
     * Links in the lock's {@link SignalledWaiters}, written by owners of the lock: the waiter
     * signalled before this one and not yet holding the lock again (TRANSIT_NEXT), and the one
     * signalled after it.
     */
    VnaConditionWaiter transitNext;
    VnaConditionWaiter transitPrev;
    /**
     * Whether it is linked in the lock's {@link SignalledWaiters}, and so counted in the lock's
     * {@code queued}; read and written by owners only.
     */
    boolean inTransit;
    /**
     * For a condition of a {@link KeyedLock} key: the key's record that this waiter's wait pins
     * (set by the release that begins the wait, before any signal can find the waiter), through
     * which the signal, the wake-up and the re-acquisition reach the key's lock without running
     * the key's {@code hashCode} or {@code equals}. Null for a {@code VnaLock}'s condition.
     */
    VnaLockWord keyRecord;

    boolean signal() {
        return STATE.compareAndSet(this, WAITING, SIGNALLING);
    }

    /** Called by the signaller once the lock has taken the waiter in hand. */
    void signalled() {
        STATE.setVolatile(this, SIGNALLED);
    }

    /**
     * Called by the waiting thread after its wait ended, before it re-acquires: waits out a
     * signaller that has yet to finish handing it to the lock.
     */
    void awaitSignalComplete() {
        for (int spins = 0; (int) STATE.getVolatile(this) == SIGNALLING; spins++) {
            VnaCarriers.pauseBriefly(spins);
        }
    }

    boolean cancel() {
        return STATE.compareAndSet(this, WAITING, CANCELLED);
    }

    boolean cancelled() {
        return (int) STATE.getVolatile(this) == CANCELLED;
    }

    boolean waiting() {
        return (int) STATE.getVolatile(this) == WAITING;
    }

    boolean woken() {
        return woken;
    }

    /** Unparks this waiter's thread; every wake of a condition waiter goes through here. */
    void wake() {
        woken = true;
        LockSupport.unpark(thread);
    }

    static final VarHandle STATE;
    static final VarHandle TRANSIT_NEXT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(VnaConditionWaiter.class, "state", int.class);
            TRANSIT_NEXT = l.findVarHandle(VnaConditionWaiter.class, "transitNext", VnaConditionWaiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
