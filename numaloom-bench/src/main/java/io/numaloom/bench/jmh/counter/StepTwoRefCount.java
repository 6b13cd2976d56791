package io.numaloom.bench.jmh.counter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Baseline: a reference count in steps of two with the closed flag in bit 0. Acquire is one
 * fetch-and-add of 2 (no CAS loop, so no retries under contention); if the old value had the closed bit
 * it takes the 2 back and fails. Release subtracts 2. Close is a CAS from 0 (nothing outstanding, open)
 * to 1. Correct, and the cheapest single-word design, but every thread still writes one cache line, and
 * an over-release cannot be detected without a CAS.
 */
final class StepTwoRefCount {
    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(StepTwoRefCount.class, "word", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Twice the acquisitions, plus 1 once closed. */
    private int word;

    int tryAcquire() {
        int old = (int) WORD.getAndAdd(this, 2);
        if ((old & 1) != 0) {
            WORD.getAndAdd(this, -2);
            return -1;
        }
        return 0;
    }

    void release(int ticket) {
        WORD.getAndAdd(this, -2);
    }

    boolean tryClose() {
        return WORD.compareAndSet(this, 0, 1);
    }
}
