package io.numaloom.stress.mutex;

import io.numaloom.stress.mutex.MutexState.Reentrant;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Mutual exclusion of the reference {@code ReentrantLock} (the control: the
 * outcomes are right if it passes),
 * for every pair of acquisition methods {@code lock}, {@code lockInterruptibly}, {@code tryLock} and
 * {@code tryLock(timeout)}: each nested test has two actors enter the critical section of {@link MutexState}
 * through one method each, and an arbiter that checks the final counter and that the lock is left clean.
 * Outcomes are graded by {@link Outcomes}.
 */
public final class ReentrantLockMutex {
    private ReentrantLockMutex() {}

    @JCStressTest
    @JCStressMeta(Outcomes.NeitherFails.class)
    @Description("lock() against lock()")
    public static class LockVsLock {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaLock();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaLock();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.NeitherFails.class)
    @Description("lock() against lockInterruptibly()")
    public static class LockVsInterruptibly {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaLock();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaLockInterruptibly();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.SecondMayFail.class)
    @Description("lock() against tryLock()")
    public static class LockVsTry {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaLock();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaTryLock();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.SecondMayFail.class)
    @Description("lock() against tryLock(1 us)")
    public static class LockVsTimedTry {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaLock();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaTimedTryLock();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.NeitherFails.class)
    @Description("lockInterruptibly() against lockInterruptibly()")
    public static class InterruptiblyVsInterruptibly {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaLockInterruptibly();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaLockInterruptibly();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.SecondMayFail.class)
    @Description("lockInterruptibly() against tryLock()")
    public static class InterruptiblyVsTry {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaLockInterruptibly();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaTryLock();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.SecondMayFail.class)
    @Description("lockInterruptibly() against tryLock(1 us)")
    public static class InterruptiblyVsTimedTry {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaLockInterruptibly();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaTimedTryLock();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.BothMayFail.class)
    @Description("tryLock() against tryLock()")
    public static class TryVsTry {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaTryLock();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaTryLock();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.BothMayFail.class)
    @Description("tryLock() against tryLock(1 us)")
    public static class TryVsTimedTry {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaTryLock();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaTimedTryLock();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.BothMayFail.class)
    @Description("tryLock(1 us) against tryLock(1 us)")
    public static class TimedTryVsTimedTry {
        @Actor
        public void actor1(Reentrant s, IIII_Result r) {
            r.r1 = s.viaTimedTryLock();
        }

        @Actor
        public void actor2(Reentrant s, IIII_Result r) {
            r.r2 = s.viaTimedTryLock();
        }

        @Arbiter
        public void arbiter(Reentrant s, IIII_Result r) {
            s.arbitrate(r);
        }
    }
}
