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
 * kernel's, and when its CPU is idle it includes the CPU's exit from idle: about 30 µs on this
 * project's 2-core virtual machine (the signal-to-lock p50 of unfair {@code ReentrantLock} at
 * capacity 1 on 2 platform threads), where the queue sweep moves an item every 0.45 µs at
 * capacity 1024.
 * A waiter that is still polling when its wake-up comes goes on at once, and the two sides stay
 * running: there is no wake-up latency on the path while both keep polling. The poll yields
 * rather than spins: a yield gives the CPU to a runnable thread when there is one (platform
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
 * would be taken for a signal and a wait per item. Measured (2 cores, scratch builds side by side
 * in one run of the bench's queue, 100 tokens of work per item, platform threads, VNA's items per
 * ms): capacity 1024 on 2, 4 and 8 threads, 2,404-2,660, 2,196-2,496 and 1,914-2,074 without a
 * poll, 1,569-2,123, 1,594-1,788 and 1,646-1,982 with a poll of 16 yields at every wait; with the
 * turn rule and this poll 2,331, 2,205 and 1,864 against 2,042, 1,973 and 2,122 without, one run
 * each. A lock with one condition never takes turns, so its waiters park at once, as before.
 *
 * <p><b>How long.</b> A poll shorter than a wake-up does not sustain itself: its partner, parked
 * and being woken, takes longer than the poll to answer, so the poll fails and the poller parks
 * too. Counted in yields, its length is the machine's: on one CPU with no other runnable thread a
 * yield is a system call of under a microsecond, and 16 yields held one producer and one consumer
 * at capacity 1 in the polling state in some rounds only (60 ms rounds against 1.4 s in others),
 * and with 64 yields capacity 1 on 128 threads took 1.5 times as long as without a poll. Bounded in time it lasts as long wherever the
 * yields are cheap, and ends after a few yields where each one gives the CPU to another thread.
 * Measured as above (items per ms; without a poll, then with this one): capacity 1 on 2, 4, 8 and
 * 32 threads 19, 43, 42, 46 against 850, 371, 214, 100 (unfair {@code ReentrantLock} 22, 37, 37,
 * 37); capacity 16, 269, 313, 583, 767 against 1,750, 1,319, 1,179, 1,068 (284 and 156 for
 * {@code ReentrantLock} at 4 and 8). The shipped queue sweep (configs/queue-sweep.json, a run before
 * and one after, VNA / unfair {@code ReentrantLock}): capacity 1 on 2 to 128 platform threads
 * 0.90-1.33 before, 2.8-33 after (at 2 threads 713 against 21.5 items per ms, the signal-to-lock p50
 * 0.86 µs against 30 µs); capacity 16 on 2 and 4 threads 1.00 and 1.34 before, 5.1 and 4.6 after;
 * capacity 1024 0.96-1.48 before, 0.99-1.43 after. The poll costs no CPU on balance: 240,000 items at
 * capacity 1 on 2 threads took the whole process 1.2 CPU-seconds, {@code ReentrantLock}'s 6.4 (perf
 * stat), the parks and wake-ups the yields replace cost more than the yields.
 *
 * <p><b>Not on virtual threads</b>, measured: on 2 carriers, the queue at capacity 1 with 8 and
 * 32 virtual threads took 2.2 and 6.0 times as long with a 16-yield poll (a virtual thread's yield
 * resubmits it to the scheduler, and its carrier runs the other virtual threads less often), 1.6
 * and 1.0 times with 16 pauses; a virtual thread's park and wake-up do not involve the kernel
 * when a carrier is running. Not on one CPU either (as no other spin of {@link VnaLock}), not
 * measured.
 *
 * <p><b>Paper.</b> Spin-then-block waiting: A. R. Karlin, K. Li, M. S. Manasse and S. Owicki,
 * "Empirical Studies of Competitive Spinning for a Shared-Memory Multiprocessor" (SOSP '91): to
 * spin for about the cost of blocking and then block is within a factor of two of the best
 * choice made with hindsight. Here the cost of blocking is the wake-up's latency.
 *
 * <p><b>Properties.</b> Bounded: at most {@link #POLL_NANOS} (or the wait's timeout, if shorter)
 * of polling per wait, ended early by an interrupt; then the waiter parks as before. The turn
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
