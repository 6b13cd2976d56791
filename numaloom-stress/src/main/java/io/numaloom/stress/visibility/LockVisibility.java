package io.numaloom.stress.visibility;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Writes made inside one critical section are seen, all of them, by the next holder (see
 * {@link VisibilityState}); for {@code VnaLock} per node and per socket (two-node topology) and the reference.
 */
public final class LockVisibility {
    private LockVisibility() {}

    @Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "The reader held the lock first and saw nothing.")
    @Outcome(id = "1, 1, 42", expect = ACCEPTABLE, desc = "The reader held the lock second and saw every write.")
    @Outcome(id = "-1, -1, -1", expect = ACCEPTABLE_INTERESTING, desc = "The reader's timed tryLock gave up.")
    @Outcome(expect = FORBIDDEN, desc = "The reader saw part of the writer's critical section.")
    static final class Grading {}

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("VnaLock per node: lock() writer, lock() reader")
    public static class PerNodeLock {
        @Actor public void writer(VisibilityState.PerNode s) { s.write(); }
        @Actor public void reader(VisibilityState.PerNode s, III_Result r) { s.readWithLock(r); }
    }

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("VnaLock per node: lock() writer, tryLock(10 us) reader")
    public static class PerNodeTimedTry {
        @Actor public void writer(VisibilityState.PerNode s) { s.write(); }
        @Actor public void reader(VisibilityState.PerNode s, III_Result r) { s.readWithTimedTryLock(r); }
    }

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("VnaLock per socket: lock() writer, lock() reader")
    public static class PerSocketLock {
        @Actor public void writer(VisibilityState.PerSocket s) { s.write(); }
        @Actor public void reader(VisibilityState.PerSocket s, III_Result r) { s.readWithLock(r); }
    }

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("VnaLock per socket: lock() writer, tryLock(10 us) reader")
    public static class PerSocketTimedTry {
        @Actor public void writer(VisibilityState.PerSocket s) { s.write(); }
        @Actor public void reader(VisibilityState.PerSocket s, III_Result r) { s.readWithTimedTryLock(r); }
    }

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("ReentrantLock (control): lock() writer, lock() reader")
    public static class ReentrantLockLock {
        @Actor public void writer(VisibilityState.Reentrant s) { s.write(); }
        @Actor public void reader(VisibilityState.Reentrant s, III_Result r) { s.readWithLock(r); }
    }

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("ReentrantLock (control): lock() writer, tryLock(10 us) reader")
    public static class ReentrantLockTimedTry {
        @Actor public void writer(VisibilityState.Reentrant s) { s.write(); }
        @Actor public void reader(VisibilityState.Reentrant s, III_Result r) { s.readWithTimedTryLock(r); }
    }
}
