package io.numaloom.bench.locks;

import java.util.concurrent.ThreadLocalRandom;

/**
 * TTAS: test-and-test-and-set with randomized exponential backoff.
 *
 * <p>Papers: L. Rudolph and Z. Segall, "Dynamic Decentralized Cache Schemes for MIMD Parallel Processors",
 * ISCA 1984 (test-and-test-and-set); A. Agarwal and M. Cherian, "Adaptive Backoff Synchronization
 * Techniques", ISCA 1989, and T. E. Anderson, IEEE TPDS 1(1), 1990 (exponential backoff). Idea: wait by
 * reading the word (a read hit in the waiter's cache while the lock is held), attempt the CAS only when it
 * reads free, and after a failed CAS back off for a random delay whose bound doubles, so that a release is
 * not followed by a storm of CASes.
 *
 * <p>Properties: not fair; not NUMA-aware; spins, then yields, then sleeps: the reading wait follows
 * {@link Spin#pause} (spin, yield, then brief sleeps; its phase carries over failed CASes), and once the
 * backoff bound reaches its cap ({@value #MAX_BACKOFF} spin hints) a failed CAS is followed by a yield
 * instead of a delay. It never parks untimed (no queue, no one to wake). Not reentrant. Timed and
 * interruptible acquisition poll {@link #tryLock()} ({@link PollingLock}).
 *
 * <p>Misuse detected: {@link #unlock()} by a non-holder throws {@link IllegalMonitorStateException}.
 */
public final class TtasLock extends PollingLock {
    static final int MIN_BACKOFF = 4;
    static final int MAX_BACKOFF = 1 << 10;

    private final LockWord word = new LockWord();

    @Override
    public void lock() {
        if (!word.casState(0, 1)) {
            contended();
        }
        word.own();
    }

    private void contended() {
        int limit = MIN_BACKOFF;
        int spins = 0;
        for (;;) {
            while ((int) LockWord.STATE.getOpaque(word) != 0) {
                spins = Spin.pause(spins);
            }
            if (word.casState(0, 1)) {
                return;
            }
            if (limit < MAX_BACKOFF) {
                Spin.delay(ThreadLocalRandom.current().nextInt(limit) + 1);
                limit <<= 1;
            } else {
                Thread.yield();
            }
        }
    }

    @Override
    public boolean tryLock() {
        return word.ownIf(word.tryFlag());
    }

    @Override
    public void unlock() {
        word.unlockFlag();
    }

    @Override
    public String toString() {
        return "TtasLock[" + word.flagState() + "]";
    }
}
