package io.numaloom.bench.jmh.counter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * Baseline from the seed-003 thread: two {@link LongAdder}s (acquisitions and releases) and a state
 * word with a closing phase. Acquire increments the acquisition adder and then reads the state; if a
 * close is in progress or done it backs out (counts a release) and waits or fails. Close moves the
 * state from open to closing, sums the releases and then the acquisitions, and commits only if they are
 * equal: both adders only grow and releases never exceed acquisitions, so equal sums read in that order
 * mean nothing was outstanding when the acquisitions were read, and any later acquirer sees the closing
 * state (store then load on both sides, with volatile semantics). Striped like our counter, but the
 * acquirer reads the state word on every acquisition (a line all acquirers share), a close may report
 * busy because of an acquirer that is about to back out, the waiting is a plain spin (benchmark only),
 * and an over-release cannot be detected.
 */
final class LongAdderPairCounter {
    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(LongAdderPairCounter.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder releases = new LongAdder();
    private int state;

    int tryAcquire() {
        for (;;) {
            acquisitions.increment();
            int s = (int) STATE.getVolatile(this);
            if (s == OPEN) {
                return 0;
            }
            releases.increment();
            if (s == CLOSED) {
                return -1;
            }
            while ((int) STATE.getVolatile(this) == CLOSING) {
                Thread.onSpinWait();
            }
        }
    }

    void release(int ticket) {
        releases.increment();
    }

    boolean tryClose() {
        if (!STATE.compareAndSet(this, OPEN, CLOSING)) {
            return false;
        }
        long released = releases.sum();
        long acquired = acquisitions.sum();
        STATE.setVolatile(this, acquired == released ? CLOSED : OPEN);
        return acquired == released;
    }
}
