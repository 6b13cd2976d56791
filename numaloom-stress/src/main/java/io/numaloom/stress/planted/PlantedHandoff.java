package io.numaloom.stress.planted;

import io.numaloom.stress.planted.PlantedLock.Bug;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Termination tests of the handoff on the {@link PlantedLock}: the lock is held by the thread that runs the
 * {@code @Signal} (jcstress builds the state on that thread); the actor waits in {@code lock()}; the signal
 * unlocks. A release that forgets the handoff leaves the waiter parked: STALE. {@code Correct} must pass,
 * {@code ForgetsHandoff} must fail; run by {@code PlantedBugsJcstressTest}, not by the normal jcstress run.
 */
public final class PlantedHandoff {
    private PlantedHandoff() {}

    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "The waiter got the lock once it was released.")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "The waiter was never handed the lock.")
    @Outcome(expect = FORBIDDEN, desc = "An actor threw.")
    static final class Grading {}

    /** The lock, taken by the constructing (= signalling) thread. */
    public abstract static class HeldLock {
        final PlantedLock lock;

        HeldLock(Bug bug) {
            lock = new PlantedLock(bug);
            lock.lock();
        }

        public void waitForIt() {
            lock.lock();
            lock.unlock();
        }

        public void release() {
            lock.unlock();
        }
    }

    @JCStressTest(Mode.Termination)
    @JCStressMeta(Grading.class)
    @Description("Planted lock without bug: a waiter is handed the lock on release")
    @State
    public static class Correct extends HeldLock {
        public Correct() {
            super(Bug.NONE);
        }

        @Actor public void waiter() { waitForIt(); }
        @Signal public void releaser() { release(); }
    }

    @JCStressTest(Mode.Termination)
    @JCStressMeta(Grading.class)
    @Description("Planted UNLOCK_FORGETS_HANDOFF: the waiter is never handed the lock")
    @State
    public static class ForgetsHandoff extends HeldLock {
        public ForgetsHandoff() {
            super(Bug.UNLOCK_FORGETS_HANDOFF);
        }

        @Actor public void waiter() { waitForIt(); }
        @Signal public void releaser() { release(); }
    }
}
