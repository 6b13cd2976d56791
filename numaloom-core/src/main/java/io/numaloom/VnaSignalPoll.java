package io.numaloom;

/**
 * The signal poll of {@link VnaCondition}: a platform thread that begins a condition wait polls for its wake-up,
 * yielding its CPU between polls, for up to {@link #POLL_NANOS} before it parks.
 *
 * <p><b>Idea.</b> A handoff through a lock and two conditions (a bounded buffer whose producers and consumers both
 * wait) puts a wake-up of a parked thread on the critical path of every item: each side waits for the other. A
 * platform thread's wake-up is the kernel's, tens of microseconds when its CPU was idle, where an item moves in under
 * a microsecond. A waiter still polling when its wake-up comes goes on at once. The poll yields rather than spins: a
 * yield gives the CPU to a runnable thread when there is one (the signaller among them) and returns at once when
 * there is none. It waits for the wake-up ({@code VnaConditionWaiter.woken()}), not for the signal: a condition's
 * signalled waiters are woken one at a time ({@link VnaConditionWakes}), so a poller does not overtake a signalled
 * waiter woken before it. Not on virtual threads (their park and wake-up do not involve the kernel
 * while a carrier runs) nor on one CPU (as no spin of the lock).
 *
 * <p><b>Paper.</b> Spin-then-block: A. R. Karlin, K. Li, M. S. Manasse and S. Owicki, "Empirical Studies of
 * Competitive Spinning for a Shared-Memory Multiprocessor" (SOSP '91): to spin for about the cost of blocking and
 * then block is within a factor of two of the best choice made with hindsight. Here the cost of blocking is the
 * wake-up's latency, so the poll is bounded in time, not in yields.
 *
 * <p><b>Properties.</b> At most {@link #POLL_NANOS} (or the wait's timeout, if shorter) of polling per wait, ended
 * early by an interrupt; then the waiter parks. No change to the condition's protocol: every wake sets the waiter's
 * {@code woken} flag before its unpark, and the unpark then leaves a permit, which every park tolerates.
 *
 * <p><b>Measured</b> (docs/measurements.md M14, the verdict method, 2 cores): without it a bounded queue on 4
 * platform threads runs at 0.03 [0.03, 0.04] of itself at capacity 1 and 0.28 [0.23, 0.36] at capacity 16; tied at
 * capacity 1024 (0.99 [0.93, 1.04]) and on 32 virtual threads. A rule that polled only while the lock's waits took
 * turns between its conditions was tied at every point and went (M14).
 */
final class VnaSignalPoll {

    /** The longest a waiter polls: above the wake-up latency of a parked thread on an idle CPU. */
    static final long POLL_NANOS = 50_000L;

    /**
     * Whether a wait of the current thread polls: a platform thread on more than one CPU.
     */
    static boolean mayPoll(Thread me) {
        return !me.isVirtual() && VnaCarriers.maySpin(me);
    }

    /**
     * Polls, yielding between polls, until {@code w} is woken, {@code nanos} (at most
     * {@link #POLL_NANOS}) have passed since {@code start}, or its thread is interrupted.
     */
    static void poll(VnaConditionWaiter w, long start, long nanos) {
        long limit = Math.min(nanos, POLL_NANOS);
        Thread me = w.thread;
        while (!w.woken()) {
            if (System.nanoTime() - start >= limit || me.isInterrupted()) {
                return;
            }
            Thread.yield();
        }
    }
}
