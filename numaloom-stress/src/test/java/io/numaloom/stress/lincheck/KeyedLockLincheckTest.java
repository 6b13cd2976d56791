package io.numaloom.stress.lincheck;

import io.numaloom.KeyedLock;
import io.numaloom.QueuePlacement;
import io.numaloom.stress.subject.KeyedLockSubject;
import org.junit.jupiter.api.Test;

/**
 * Model checking (Lincheck 3.7, platform threads) of {@code KeyedLock} over two keys, each guarding its own
 * counter, with lock, lockInterruptibly, tryLock, timed tryLock and releaseIdleKeys in the scenario and a fresh,
 * equal key object per call (see {@link KeyedCounters}): mutual exclusion per key, hold counts, and after every
 * invocation no key left in use. A key's record stays bound while idle, so the interleavings explored include an
 * acquisition racing a deflation: the fast path's CAS on the lock word against the deflater's
 * {@code 0 -> DEFLATED}, a slow-path pin against its {@code pins: 0 -> -1}, a pinned thread taking the word from
 * {@code DEFLATED}, and a locker that scanned a record which is deflated and bound again before its CAS.
 * {@code PlantedKeyedBugsLincheckTest} shows the same scenario and budget catch a deflater that ignores a racing
 * locker.
 *
 * <p>Three configurations of that scenario: the keys' records with {@code KeyedLock}'s default per-node queues
 * (under the two-node virtual topology, the queue comes from the CPU the thread runs on); with two queues chosen
 * by Lincheck thread, so that a contended key's handoff crosses queues, as in {@code VnaLockLincheckTest}; and
 * with {@code idleKeys(0)}, where binding one key deflates the other if it is idle, so that deflation also runs
 * inside the other thread's acquisitions. Then {@link KeyDeflation}, the race alone: one idle key, one thread
 * acquiring it by every method, the other deflating; every acquisition must succeed and hold the key's bound
 * record. That one, with twice the scenarios ({@link LincheckRuns#deflationOptions}), finds the hole of commit
 * c06e0b7's {@code KeyedLock}: a pinned thread took the lock word from {@code DEFLATED} and unpinned before the
 * deflater's {@code pins: 0 -> -1}, which then unlinked the record it held (its {@code unlock} threw
 * {@code IllegalMonitorStateException}).
 *
 * <p>Last, {@link KeyPairCounters}: with {@code idleKeys(0)}, a thread that holds key 0 (thin) locks key 1 while the
 * other thread's lock or tryLock of key 0 inflates that hold, freeing the holder's thin-hold node, which the
 * holder may reuse for a thin hold of key 1 at once. Before commit 6b531ce the inflater read the node's hash after
 * freeing it, so it could bind key 0's record under key 1's hash: the holder's hold of key 0 vanished and its
 * unlock threw ({@code PlantedKeyedBugsLincheckTest} shows the scenario catches that bug in the model).
 */
class KeyedLockLincheckTest {

    /** Lincheck thread i waits in queue i of every key's record. */
    static final QueuePlacement TWO_QUEUES = new QueuePlacement() {
        @Override public int queueCount() { return 2; }
        @Override public int currentQueue() { return LincheckRuns.queueOfCurrentThread(); }
    };

    /**
     * KeyedLock with its defaults (without the background deflater, which Lincheck would not see) under the two-node
     * virtual topology: a key's first lock by a thread is thin, a key it locks again gets a record.
     */
    public static class PerNode extends KeyedCounters {
        public PerNode() {
            super(new KeyedLockSubject<>(KeyedLock.builder().releaseIdleKeysInBackground(false).build()));
        }
    }

    /** KeyedLock with two queues per key, Lincheck thread i in queue i, binding records at a key's first lock. */
    public static class TwoQueues extends KeyedCounters {
        public TwoQueues() {
            super(new KeyedLockSubject<>(KeyedLock.builder().placement(TWO_QUEUES).bindOnFirstLock(true).releaseIdleKeysInBackground(false).build()));
        }
    }

    /** KeyedLock that keeps no idle key: a bind deflates idle records of other keys (from its clock hand). */
    public static class NoIdleKeys extends KeyedCounters {
        public NoIdleKeys() {
            super(new KeyedLockSubject<>(KeyedLock.builder().idleKeys(0).releaseIdleKeysInBackground(false).build()));
        }
    }

    /** One key, bound and idle (bound at its first lock), a locker against a deflater (see {@link KeyDeflation}). */
    public static class Deflation extends KeyDeflation {
        public Deflation() {
            super(new KeyedLockSubject<>(KeyedLock.builder().bindOnFirstLock(true).releaseIdleKeysInBackground(false).build()));
        }
    }

    /** KeyedLock that keeps no idle key, so a key's first lock is thin, a thread locking two keys (see {@link KeyPairCounters}). */
    public static class HoldingTwoKeys extends KeyPairCounters {
        public HoldingTwoKeys() {
            super(new KeyedLockSubject<>(KeyedLock.builder().idleKeys(0).releaseIdleKeysInBackground(false).build()));
        }
    }

    @Test
    void keyedLockPerNode() {
        LincheckRuns.keyedOptions().check(PerNode.class);
    }

    @Test
    void keyedLockWithTwoQueues() {
        LincheckRuns.keyedOptions().check(TwoQueues.class);
    }

    @Test
    void keyedLockWithNoIdleKeys() {
        LincheckRuns.keyedOptions().check(NoIdleKeys.class);
    }

    @Test
    void keyedLockAgainstDeflation() {
        LincheckRuns.deflationOptions().check(Deflation.class);
    }

    @Test
    void keyedLockHoldingTwoKeys() {
        LincheckRuns.keyPairOptions().check(HoldingTwoKeys.class);
    }
}
