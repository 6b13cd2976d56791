package io.numaloom.stress.counter;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * Two closers, no holders: exactly one wins, the other is told the counter is already closed.
 *
 * <p>Result: r1, r2 = what each {@code tryClose} returned.
 */
public final class TwoClosers {
    private TwoClosers() {}

    @Description("tryClose racing tryClose on an idle counter")
    @Outcome(id = {"CLOSED, ALREADY_CLOSED", "ALREADY_CLOSED, CLOSED"}, expect = ACCEPTABLE, desc = "One winner.")
    @Outcome(id = "CLOSED, CLOSED", expect = FORBIDDEN, desc = "Both won: the resource would be freed twice.")
    @Outcome(id = "ALREADY_CLOSED, ALREADY_CLOSED", expect = FORBIDDEN, desc = "Neither won, yet the counter is closed.")
    @Outcome(expect = FORBIDDEN, desc = "BUSY with nothing outstanding.")
    static final class Outcomes {}

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Lazy {
        @Actor
        public void closer1(CounterState.IdleLazy s, LL_Result r) {
            r.r1 = s.close();
        }

        @Actor
        public void closer2(CounterState.IdleLazy s, LL_Result r) {
            r.r2 = s.close();
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Striped {
        @Actor
        public void closer1(CounterState.IdleStriped s, LL_Result r) {
            r.r1 = s.close();
        }

        @Actor
        public void closer2(CounterState.IdleStriped s, LL_Result r) {
            r.r2 = s.close();
        }
    }
}
