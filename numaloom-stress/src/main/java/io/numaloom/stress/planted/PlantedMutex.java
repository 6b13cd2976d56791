package io.numaloom.stress.planted;

import io.numaloom.stress.mutex.MutexState;
import io.numaloom.stress.planted.PlantedLock.Bug;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The mutual-exclusion tests of {@code io.numaloom.stress.mutex}, with the same state and grading, on the
 * {@link PlantedLock}: {@code CorrectTryVsTry} must pass; {@code SkipsCasTryVsTry} must fail with "1, 1, 1, 0" (both actors
 * inside at once). Not part of the normal jcstress run (the build's regex skips this package):
 * {@code PlantedBugsJcstressTest} runs them and checks that jcstress reports the bug.
 */
public final class PlantedMutex {
    private PlantedMutex() {}

    @State
    public static class CorrectState extends MutexState {
        public CorrectState() {
            super(new PlantedLock(Bug.NONE));
        }
    }

    @State
    public static class SkipsCasState extends MutexState {
        public SkipsCasState() {
            super(new PlantedLock(Bug.FAST_PATH_WITHOUT_CAS));
        }
    }

    @Outcome(id = {"1, 2, 2, 0", "2, 1, 2, 0"}, expect = ACCEPTABLE, desc = "One after the other.")
    @Outcome(id = {"1, 0, 1, 0", "0, 1, 1, 0"}, expect = ACCEPTABLE_INTERESTING, desc = "One found the lock held.")
    @Outcome(expect = FORBIDDEN, desc = "Two holders at once, a lost write, or a lock left unclean.")
    static final class Grading {}

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("Planted lock without bug: tryLock() against tryLock()")
    public static class CorrectTryVsTry {
        @Actor public void actor1(CorrectState s, IIII_Result r) { r.r1 = s.viaTryLock(); }
        @Actor public void actor2(CorrectState s, IIII_Result r) { r.r2 = s.viaTryLock(); }
        @Arbiter public void arbiter(CorrectState s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("Planted FAST_PATH_WITHOUT_CAS: tryLock() against tryLock()")
    public static class SkipsCasTryVsTry {
        @Actor public void actor1(SkipsCasState s, IIII_Result r) { r.r1 = s.viaTryLock(); }
        @Actor public void actor2(SkipsCasState s, IIII_Result r) { r.r2 = s.viaTryLock(); }
        @Arbiter public void arbiter(SkipsCasState s, IIII_Result r) { s.arbitrate(r); }
    }
}
