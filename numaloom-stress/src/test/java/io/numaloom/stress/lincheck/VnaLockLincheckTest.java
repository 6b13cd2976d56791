package io.numaloom.stress.lincheck;

import io.numaloom.VnaLock;
import io.numaloom.stress.subject.InspectableReentrantLock;
import io.numaloom.stress.subject.InspectableVnaLock;
import io.numaloom.stress.subject.Subject;
import org.junit.jupiter.api.Test;

/**
 * Model checking (Lincheck 3.7, platform threads) of {@code VnaLock} guarding a sequential counter, with lock,
 * lockInterruptibly, tryLock and timed tryLock in the scenario (see {@link LockedCounter}).
 *
 * <p>Two queues: {@code VnaLock.withPlacement(2, ...)} puts Lincheck's two threads in different queues, so the
 * multi-queue handoff (heir choice across queues, candidacy, cancellation) is what gets explored; the placement is
 * deterministic, as Lincheck's replay needs. The reference {@code ReentrantLock} runs the same scenario.
 */
class VnaLockLincheckTest {

    /** VnaLock with two queues, Lincheck thread i in queue i. */
    public static class TwoQueues extends LockedCounter {
        public TwoQueues() {
            super(new InspectableVnaLock(VnaLock.withPlacement(2, LincheckRuns::queueOfCurrentThread)));
        }
    }

    /** new VnaLock() under the two-node virtual topology: the queue comes from the CPU the thread runs on. */
    public static class PerNodeTopology extends LockedCounter {
        public PerNodeTopology() {
            super(Subject.VNA_PER_NODE.create());
        }
    }

    /** The reference. */
    public static class Reference extends LockedCounter {
        public Reference() {
            super(new InspectableReentrantLock());
        }
    }

    @Test
    void vnaLockWithTwoQueues() {
        LincheckRuns.options().check(TwoQueues.class);
    }

    @Test
    void vnaLockPerNodeTopology() {
        Subject.VNA_PER_NODE.requireTwoQueues();
        LincheckRuns.options().check(PerNodeTopology.class);
    }

    @Test
    void reentrantLock() {
        LincheckRuns.options().check(Reference.class);
    }
}
