package io.numaloom.bench.locks;


/**
 * TAS: the test-and-set spin lock.
 *
 * <p>Paper: T. E. Anderson, "The Performance of Spin Lock Alternatives for Shared-Memory Multiprocessors",
 * IEEE TPDS 1(1), 1990 (the baseline it improves on). Idea: one word; acquire by atomically swapping in 1
 * until the old value was 0; release by storing 0. Every attempt is a write, so waiters keep the lock's
 * cache line bouncing between cores even while it is held.
 *
 * <p>Properties: not fair (no order among waiters; starvation possible); not NUMA-aware; spins, then
 * yields, then sleeps ({@link Spin#pause}): after {@link Spin#SPINS} failed swaps a waiter yields before
 * each further swap, because a virtual thread that only spins would keep a holder that yielded from running,
 * and after {@link Spin#YIELDS} yields it sleeps briefly between swaps, because yielding alone can starve a
 * virtual thread on the JDK's scheduler. It never parks untimed: it has no queue, so no one would wake it.
 * Not reentrant. Timed and interruptible acquisition poll {@link #tryLock()} ({@link PollingLock}).
 *
 * <p>Misuse detected: {@link #unlock()} by a thread that does not hold the lock throws
 * {@link IllegalMonitorStateException} and leaves the lock as it was.
 */
public final class TasLock extends PollingLock {
    private final LockWord word = new LockWord();

    @Override
    public void lock() {
        for (int spins = 0; (int) LockWord.STATE.getAndSet(word, 1) != 0; ) {
            spins = Spin.pause(spins);
        }
        word.own();
    }

    @Override
    public boolean tryLock() {
        return word.ownIf((int) LockWord.STATE.getAndSet(word, 1) == 0);
    }

    @Override
    public void unlock() {
        word.unlockFlag();
    }

    @Override
    public String toString() {
        return "TasLock[" + word.flagState() + "]";
    }
}
