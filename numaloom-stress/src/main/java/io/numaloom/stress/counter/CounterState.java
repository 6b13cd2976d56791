package io.numaloom.stress.counter;

import io.numaloom.counter.CloseResult;
import io.numaloom.counter.CloseableAcquireCounter;
import org.openjdk.jcstress.annotations.State;

/**
 * One {@link CloseableAcquireCounter} per jcstress state, in four flavours: lazy (one word until the
 * actors' CAS contention inflates it, possibly while a close runs) or striped from the start (every
 * stripe exists, so actors count on stripes, in the group of their node under
 * {@code -Dnumaloom.topology=nodes=2}); and idle or <em>held</em> (the state's constructor acquired one
 * ticket that no actor releases, except the test that releases it on purpose).
 *
 * <p>{@link #payload} is a plain field for the happens-before test: written by a holder before its
 * release, read by the closer after a successful close.
 */
public abstract class CounterState {

    public final CloseableAcquireCounter counter;
    /** The ticket the constructor holds, or -1. */
    public final int heldTicket;
    /** Plain, deliberately: published only through release and close. */
    public int payload;

    protected CounterState(CloseableAcquireCounter counter, boolean held) {
        this.counter = counter;
        this.heldTicket = held ? counter.tryAcquire() : -1;
    }

    /** Acquires and keeps the acquisition. */
    public boolean acquireAndHold() {
        return counter.tryAcquire() >= 0;
    }

    /** Acquires and releases at once. */
    public boolean acquireAndRelease() {
        int ticket = counter.tryAcquire();
        if (ticket < 0) {
            return false;
        }
        counter.release(ticket);
        return true;
    }

    public CloseResult close() {
        return counter.tryClose();
    }

    /**
     * Two stripes, both created (and idle) by the constructor, and the acquiring actor chooses its
     * stripe before each acquisition through {@link #home} (a plain field: only that actor uses it).
     */
    @State
    public static class TwoPlacedStripes extends CounterState {
        private final int[] home;

        public TwoPlacedStripes() {
            this(new int[1]);
        }

        private TwoPlacedStripes(int[] home) {
            super(CloseableAcquireCounter.withPlacement(2, () -> home[0]), false);
            this.home = home;
            for (int stripe = 0; stripe < 2; stripe++) {
                home[0] = stripe;
                counter.release(counter.tryAcquire());
            }
        }

        /** Acquires on stripe {@code stripe} (or its neighbour, under contention) and keeps it. */
        public boolean acquireAndHoldOn(int stripe) {
            home[0] = stripe;
            return acquireAndHold();
        }
    }

    @State
    public static class IdleLazy extends CounterState {
        public IdleLazy() {
            super(new CloseableAcquireCounter(), false);
        }
    }

    @State
    public static class IdleStriped extends CounterState {
        public IdleStriped() {
            super(CloseableAcquireCounter.striped(), false);
        }
    }

    @State
    public static class HeldLazy extends CounterState {
        public HeldLazy() {
            super(new CloseableAcquireCounter(), true);
        }
    }

    @State
    public static class HeldStriped extends CounterState {
        public HeldStriped() {
            super(CloseableAcquireCounter.striped(), true);
        }
    }
}
