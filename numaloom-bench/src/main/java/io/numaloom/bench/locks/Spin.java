package io.numaloom.bench.locks;

import java.util.concurrent.locks.LockSupport;

/**
 * The family's waiting policy for waits that have no one to wake them: spin briefly with
 * {@link Thread#onSpinWait()}, then yield, then sleep with a short, growing {@code parkNanos}. Queue
 * locks, whose waiters do have someone to wake them, park instead (see {@link QNode#awaitChange(int)}).
 *
 * <p>Why each phase:
 * <ul>
 * <li>Spinning is bounded because a virtual thread is never preempted: on a scheduler of parallelism 1, a
 *     waiter that only spins keeps a holder that yielded inside its critical section from ever running.
 * <li>Yielding alone is not enough either. The virtual-thread scheduler (a {@code ForkJoinPool}) re-queues a
 *     yielding virtual thread on its carrier's local queue, and a carrier keeps running its local queue while
 *     it is not empty, so a few waiters that keep yielding can keep a virtual thread that sits in the
 *     scheduler's submission queue from running at all. For an unfair lock that only delays one waiter; for a
 *     FIFO spin lock (TICKET, COHORT's global ticket) it is a livelock, observed with eight virtual threads on
 *     two carriers: the waiter holding the next ticket never ran again. So after {@link #YIELDS} yields a
 *     waiter sleeps ({@code parkNanos}, from {@value #MIN_SLEEP_NANOS} ns doubling to
 *     {@value #MAX_SLEEP_NANOS} ns), which empties the carriers' queues and lets every runnable thread run.
 * </ul>
 */
final class Spin {
    /** Polls with {@code onSpinWait()} before a waiter yields or parks (about a few microseconds). */
    static final int SPINS = 128;
    /** Yields after the spins, before a spin-then-yield waiter starts sleeping. */
    static final int YIELDS = 16;
    static final long MIN_SLEEP_NANOS = 1_000;
    static final long MAX_SLEEP_NANOS = 128_000;

    private static final int SLEEP_STEPS = Long.numberOfTrailingZeros(MAX_SLEEP_NANOS / MIN_SLEEP_NANOS);

    private Spin() {}

    /**
     * One step of a spin-yield-sleep wait: {@code onSpinWait()} for the first {@link #SPINS} steps, then
     * {@code Thread.yield()} for {@link #YIELDS} steps, then a {@code parkNanos} that doubles up to its cap.
     * An interrupted thread yields instead of sleeping (its park would return at once) and keeps its interrupt
     * status.
     *
     * @param spins the value returned by the previous step (0 at the start of a wait)
     * @return the value to pass to the next step
     */
    static int pause(int spins) {
        if (spins < SPINS) {
            Thread.onSpinWait();
        } else if (spins < SPINS + YIELDS || Thread.currentThread().isInterrupted()) {
            Thread.yield();
        } else {
            int step = Math.min(spins - SPINS - YIELDS, SLEEP_STEPS);
            LockSupport.parkNanos(MIN_SLEEP_NANOS << step);
        }
        return spins == Integer.MAX_VALUE ? spins : spins + 1;
    }

    /** Busy-waits {@code iterations} spin hints (a backoff delay). */
    static void delay(int iterations) {
        for (int i = 0; i < iterations; i++) {
            Thread.onSpinWait();
        }
    }
}
