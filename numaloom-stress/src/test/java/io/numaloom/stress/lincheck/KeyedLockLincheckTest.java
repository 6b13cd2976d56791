package io.numaloom.stress.lincheck;

import io.numaloom.KeyedLock;
import io.numaloom.QueuePlacement;
import io.numaloom.stress.subject.KeyedSubject;
import org.junit.jupiter.api.Test;

/**
 * Model checking (Lincheck, platform threads) of {@link KeyedLock} over two keys ({@link KeyedCounters}), with the
 * budget of every other Lincheck test here ({@link LincheckRuns}): lock vs unbind, pins, timed and interrupted
 * waiters that leave, and no record left bound, in every interleaving Lincheck explores; and, with two queues, the
 * targeted lock-vs-unbind scenario ({@link KeyedCounters#lockVsUnbind()}) that catches the planted deflation bug.
 */
class KeyedLockLincheckTest {

    /** {@code new KeyedLock<>()}: one queue per node of the process topology. */
    public static class PerNode extends KeyedCounters {
        public PerNode() {
            super(KeyedSubject.of(new KeyedLock<>()));
        }
    }

    /** Lincheck thread i waits in queue i of each key: the multi-queue handoff inside a record. */
    public static class TwoQueues extends KeyedCounters {
        public TwoQueues() {
            super(KeyedSubject.of(KeyedLock.withPlacement(new QueuePlacement() {
                @Override
                public int queueCount() {
                    return 2;
                }

                @Override
                public int currentQueue() {
                    return LincheckRuns.queueOfCurrentThread();
                }
            })));
        }
    }

    @Test
    void perNode() {
        LincheckRuns.options().check(PerNode.class);
    }

    /** The lock-vs-unbind race, every interleaving within the budget: the scenario the planted bug fails. */
    @Test
    void twoQueuesLockVsUnbind() {
        LincheckRuns.targeted(KeyedCounters.lockVsUnbind()).check(TwoQueues.class);
    }
}
