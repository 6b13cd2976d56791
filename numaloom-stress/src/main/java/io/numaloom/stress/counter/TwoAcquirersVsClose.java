package io.numaloom.stress.counter;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.ZZL_Result;

/**
 * Two acquirers that keep their acquisitions race a close. On a lazy counter the acquirers' CAS
 * contention may inflate it (create the stripe table and a stripe) while the close runs. Since a kept
 * acquisition blocks every close, either both acquirers succeed and the close is {@code BUSY}, or the
 * close came first and both are refused.
 *
 * <p>Result: r1, r2 = each acquisition succeeded, r3 = what {@code tryClose} returned.
 */
public final class TwoAcquirersVsClose {
    private TwoAcquirersVsClose() {}

    @Description("two kept tryAcquire racing tryClose")
    @Outcome(id = "true, true, BUSY", expect = ACCEPTABLE, desc = "The acquisitions came first.")
    @Outcome(id = "false, false, CLOSED", expect = ACCEPTABLE, desc = "The close came first.")
    @Outcome(id = {"true, .*, CLOSED", ".*, true, CLOSED"}, expect = FORBIDDEN, desc = "Acquired and closed.")
    @Outcome(id = {"false, .*, BUSY", ".*, false, BUSY"}, expect = FORBIDDEN, desc = "Refused while the counter stayed open.")
    @Outcome(expect = FORBIDDEN, desc = "Anything else.")
    static final class Outcomes {}

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Lazy {
        @Actor
        public void acquirer1(CounterState.IdleLazy s, ZZL_Result r) {
            r.r1 = s.acquireAndHold();
        }

        @Actor
        public void acquirer2(CounterState.IdleLazy s, ZZL_Result r) {
            r.r2 = s.acquireAndHold();
        }

        @Actor
        public void closer(CounterState.IdleLazy s, ZZL_Result r) {
            r.r3 = s.close();
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Striped {
        @Actor
        public void acquirer1(CounterState.IdleStriped s, ZZL_Result r) {
            r.r1 = s.acquireAndHold();
        }

        @Actor
        public void acquirer2(CounterState.IdleStriped s, ZZL_Result r) {
            r.r2 = s.acquireAndHold();
        }

        @Actor
        public void closer(CounterState.IdleStriped s, ZZL_Result r) {
            r.r3 = s.close();
        }
    }
}
