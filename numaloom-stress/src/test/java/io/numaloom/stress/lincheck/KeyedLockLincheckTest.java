package io.numaloom.stress.lincheck;

import io.numaloom.KeyedLock;
import io.numaloom.QueuePlacement;
import io.numaloom.stress.subject.KeyedLockSubject;
import org.junit.jupiter.api.Test;

/**
 * Model checking (Lincheck 3.7, platform threads) of {@code KeyedLock} over two keys, each guarding its own
 * counter, with lock, lockInterruptibly, tryLock and timed tryLock in the scenario and a fresh, equal key object
 * per call (see {@link KeyedCounters}): mutual exclusion per key, hold counts, and after every invocation no
 * record left bound. Every lock and unlock goes through the keyed lock's lookup, so the interleavings explored
 * include a locker's pin racing the last user's unbind ({@code pins: p -> p + 1} against {@code 0 -> -1}).
 * {@code PlantedKeyedBugsLincheckTest} shows the same scenario and budget catch an unbind that ignores the pin.
 *
 * <p>Two placements: the keys' records with {@code KeyedLock}'s default per-node queues (under the two-node
 * virtual topology, the queue comes from the CPU the thread runs on), and with two queues chosen by Lincheck
 * thread, so that a contended key's handoff crosses queues, as in {@code VnaLockLincheckTest}.
 */
class KeyedLockLincheckTest {

    /** Lincheck thread i waits in queue i of every key's record. */
    static final QueuePlacement TWO_QUEUES = new QueuePlacement() {
        @Override public int queueCount() { return 2; }
        @Override public int currentQueue() { return LincheckRuns.queueOfCurrentThread(); }
    };

    /** new KeyedLock() under the two-node virtual topology. */
    public static class PerNode extends KeyedCounters {
        public PerNode() {
            super(new KeyedLockSubject<>(new KeyedLock<>()));
        }
    }

    /** KeyedLock with two queues per key, Lincheck thread i in queue i. */
    public static class TwoQueues extends KeyedCounters {
        public TwoQueues() {
            super(new KeyedLockSubject<>(KeyedLock.withPlacement(TWO_QUEUES)));
        }
    }

    @Test
    void keyedLockPerNode() {
        LincheckRuns.options().check(PerNode.class);
    }

    @Test
    void keyedLockWithTwoQueues() {
        LincheckRuns.options().check(TwoQueues.class);
    }
}
