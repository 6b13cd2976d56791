package io.numaloom.bench.jmh.counter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Baseline: the JDK's design (as described on panama-dev, December 2025), one int word that holds the acquisition count,
 * or -1 once closed. Acquire and release are a CAS loop each on that word; close is a CAS from 0 to -1.
 * Correct and small; every acquisition of every thread writes the same cache line.
 */
final class SingleCasCounter {
    private static final int CLOSED = -1;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SingleCasCounter.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private int state;

    int tryAcquire() {
        for (;;) {
            int s = (int) STATE.getVolatile(this);
            if (s < 0) {
                return -1;
            }
            if (s == Integer.MAX_VALUE) {
                throw new IllegalStateException("too many acquisitions");
            }
            if (STATE.compareAndSet(this, s, s + 1)) {
                return 0;
            }
        }
    }

    void release(int ticket) {
        for (;;) {
            int s = (int) STATE.getVolatile(this);
            if (s <= 0) {
                throw new IllegalStateException("released more often than acquired");
            }
            if (STATE.compareAndSet(this, s, s - 1)) {
                return;
            }
        }
    }

    boolean tryClose() {
        return STATE.compareAndSet(this, 0, CLOSED);
    }
}
