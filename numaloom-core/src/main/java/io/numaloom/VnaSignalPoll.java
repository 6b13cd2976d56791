package io.numaloom;

/**
 * The signal poll of {@link VnaCondition}: a platform thread that starts a condition wait while
 * the lock's waits take turns between its conditions polls for its wake-up, yielding its CPU
 * between polls, for up to {@link #POLL_NANOS} before it parks.
 *
 * <p><b>Idea.</b> A handoff through a lock and two conditions (a bounded buffer whose producers
 * and consumers both wait: a small capacity, or one producer and one consumer) puts a wake-up of
 * a parked thread on the critical path of every item: each side waits for the other, and while
 * one is being woken the other soon waits too. A platform thread's wake-up from a park is the
 * kernel's, and when its CPU is idle it includes the CPU's exit from idle. One run (commit
 * 642897e, pre-method bench) read about 30 µs on this project's 2-core virtual machine (the
 * signal-to-lock p50 of unfair {@code ReentrantLock} at capacity 1 on 2 platform threads), where
 * the queue sweep moves an item every 0.45 µs at capacity 1024; see docs/measurements.md,
 * entry 31. A waiter that is still polling when its wake-up comes goes on at once, and the two
 * sides stay running: there is no wake-up latency on the path while both keep polling. The poll
 * yields rather than spins: a yield gives the CPU to a runnable thread when there is one (platform
 * threads that outnumber the CPUs, the signaller among them) and returns at once when there is
 * none, so the poll takes no CPU that another thread could use. It waits for the wake-up, not for
 * the signal ({@code VnaCondition.Waiter#woken}): a signalled waiter is woken by the release that
 * frees the lock (see {@link VnaDeferredWakes}), so a poller neither tries the lock its signaller
 * still holds nor overtakes a signalled waiter of its condition woken before it.
 *
 * <p><b>When.</b> Only while the lock's waits take turns: a wait on a condition other than the
 * one waited on before it (by any thread) began within the last {@link #TURN_NANOS}. Where only
 * one side waits (a buffer of capacity 1024 whose consumers keep up: producers never wait), a
 * parked consumer costs nothing, because the producers fill the buffer meanwhile and the woken
 * consumer takes a batch; a polling consumer would instead wake for every item, and the lock
 * would be taken for a signal and a wait per item. A poll at every wait was measured and not kept
 * (docs/measurements.md, entry 29). A lock with one condition never takes turns, so its waiters
 * park at once.
 *
 * <p><b>How long.</b> A poll shorter than a wake-up does not sustain itself: its partner, parked
 * and being woken, takes longer than the poll to answer, so the poll fails and the poller parks
 * too. Counted in yields, its length is the machine's: on one CPU with no other runnable thread a
 * yield is a system call of under a microsecond, so a fixed number of yields can end well before
 * a wake-up (polls of 16 and 64 yields were measured and not kept: docs/measurements.md,
 * entry 30). Bounded in time it lasts as long wherever the yields are cheap, and ends after a few
 * yields where each one gives the CPU to another thread. What the poll pays, and what it costs in
 * CPU, is in docs/measurements.md, entry 31.
 *
 * <p><b>Not on virtual threads</b>: a virtual thread's yield resubmits it to the scheduler, and
 * its carrier runs the other virtual threads less often; a virtual thread's park and wake-up do
 * not involve the kernel when a carrier is running. Polls of 16 yields and of 16 pauses on virtual
 * threads were measured and not kept (docs/measurements.md, entry 32). Not on one CPU either (as
 * no other spin of {@link VnaLock}), not measured.
 *
 * <p><b>Paper.</b> Spin-then-block waiting: A. R. Karlin, K. Li, M. S. Manasse and S. Owicki,
 * "Empirical Studies of Competitive Spinning for a Shared-Memory Multiprocessor" (SOSP '91): to
 * spin for about the cost of blocking and then block is within a factor of two of the best
 * choice made with hindsight. Here the cost of blocking is the wake-up's latency.
 *
 * <p><b>Properties.</b> Bounded: at most {@link #POLL_NANOS} (or the wait's timeout, if shorter)
 * of polling per wait, ended early by an interrupt; then the waiter parks. The turn
 * record's two fields are written by owners of the lock only, at the start of a wait. No change
 * to the condition's protocol: the poll reads the waiter's {@code woken} flag, which every wake
 * sets before its unpark, and the unpark then leaves a permit, which every park of {@code VnaLock}
 * and {@code VnaCondition} tolerates.
 */
final class VnaSignalPoll {

    /** The longest a waiter polls: above the wake-up latency of a parked thread on an idle CPU. */
    static final long POLL_NANOS = 50_000L;

    /** How recent the lock's last change of awaited condition must be for a wait to poll. */
    static final long TURN_NANOS = 1_000_000L;

    /** The condition of the lock's most recent wait; guarded by the lock. */
    private VnaCondition lastAwaited;
    /** When a wait last began on a condition other than the one before; valid once {@code turned}. */
    private long turnNanos;
    private boolean turned;

    /**
     * Whether the current thread may poll at all: a platform thread on more than one CPU. Only
     * those waits are recorded.
     */
    static boolean mayPoll(Thread me) {
        return !me.isVirtual() && VnaLock.mayspin(me);
    }

    /**
     * Records that a wait on {@code c} begins at {@code now} and returns whether it polls: whether
     * the lock's waits took turns within {@link #TURN_NANOS}. Called by the owner of the lock.
     */
    boolean waitBegins(VnaCondition c, long now) {
        VnaCondition last = lastAwaited;
        if (last != c) {
            lastAwaited = c;
            if (last != null) {
                turnNanos = now;
                turned = true;
            }
        }
        return turned && now - turnNanos <= TURN_NANOS;
    }

    /**
     * Polls, yielding between polls, until {@code w} is woken, {@code nanos} (at most
     * {@link #POLL_NANOS}) have passed since {@code start}, or its thread is interrupted.
     */
    static void poll(VnaCondition.Waiter w, long start, long nanos) {
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
