package io.numaloom.bench.locks;

/**
 * TICKET: the ticket lock.
 *
 * <p>Papers: D. P. Reed and R. K. Kanodia, "Synchronization with Eventcounts and Sequencers", CACM 22(2),
 * 1979; J. M. Mellor-Crummey and M. L. Scott, "Algorithms for Scalable Synchronization on Shared-Memory
 * Multiprocessors", ACM TOCS 9(1), 1991, §2. Idea: take a ticket with one fetch-and-add on the next-ticket
 * counter and wait until the now-serving counter shows it; release by incrementing now-serving (a plain
 * store: only the holder writes it). Both counters share one cache line, as in the Linux kernel's ticket
 * spinlock before 4.2: every waiter spins on the lock's line, so each release invalidates all
 * of them, the cost that queued locks remove.
 *
 * <p>Properties: fair (FIFO by ticket); not NUMA-aware; spins, then yields, then sleeps briefly
 * ({@link Spin#pause}): a waiter cannot park untimed, because the releaser does not know which thread holds
 * the next ticket. The sleeps are not optional here: with yields alone, the waiter holding the next ticket
 * can be kept off its carrier by the others' yields forever (see {@link Spin}). Strict FIFO means the next
 * ticket's holder must run before anyone can proceed, so under oversubscription (more runnable virtual
 * threads than carriers) a handoff may wait for that thread's sleep to end: the honest cost of a fair spin
 * lock. Not reentrant. A ticket, once taken, must be served, so timed and interruptible acquisition are not
 * supported.
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class TicketLock extends BaselineLock {
    private final LockWord word = new LockWord();

    @Override
    public void lock() {
        word.awaitTurn(word.takeTicket());
        word.own();
    }

    @Override
    public boolean tryLock() {
        return word.ownIf(word.tryTicket());
    }

    @Override
    public void unlock() {
        word.disown();
        word.nextTurn();
    }

    @Override
    String whyNoAbort() {
        return "a taken ticket must be served (the releaser hands the lock to the next ticket), "
                + "so a waiter cannot give up; use lock() or tryLock()";
    }

    @Override
    public String toString() {
        int waiting = word.state() - word.aux();
        return "TicketLock[" + (waiting == 0 ? "free" : "held, " + (waiting - 1) + " waiting") + "]";
    }
}
