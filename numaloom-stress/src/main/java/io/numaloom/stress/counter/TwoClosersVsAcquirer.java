package io.numaloom.stress.counter;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.LLZ_Result;

/**
 * Two closers and an acquirer that keeps its acquisition. If the acquisition succeeds, nothing can
 * close the counter, so both closers must see {@code BUSY}; if it is refused, a close took effect, so
 * one closer won and the other was told so (nothing was ever outstanding for it to see).
 *
 * <p>Result: r1, r2 = what each {@code tryClose} returned, r3 = the acquisition succeeded.
 */
public final class TwoClosersVsAcquirer {
    private TwoClosersVsAcquirer() {}

    @Description("tryClose, tryClose and a kept tryAcquire")
    @Outcome(id = "BUSY, BUSY, true", expect = ACCEPTABLE, desc = "The acquisition came first.")
    @Outcome(id = {"CLOSED, ALREADY_CLOSED, false", "ALREADY_CLOSED, CLOSED, false"}, expect = ACCEPTABLE,
            desc = "A close came first: one winner, and the acquisition was refused.")
    @Outcome(id = {"CLOSED, .*, true", ".*, CLOSED, true"}, expect = FORBIDDEN, desc = "Acquired and closed.")
    @Outcome(id = "CLOSED, CLOSED, .*", expect = FORBIDDEN, desc = "Two winners.")
    @Outcome(expect = FORBIDDEN, desc = "A refusal with no winner, or BUSY with nothing outstanding.")
    static final class Outcomes {}

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Lazy {
        @Actor
        public void closer1(CounterState.IdleLazy s, LLZ_Result r) {
            r.r1 = s.close();
        }

        @Actor
        public void closer2(CounterState.IdleLazy s, LLZ_Result r) {
            r.r2 = s.close();
        }

        @Actor
        public void acquirer(CounterState.IdleLazy s, LLZ_Result r) {
            r.r3 = s.acquireAndHold();
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Striped {
        @Actor
        public void closer1(CounterState.IdleStriped s, LLZ_Result r) {
            r.r1 = s.close();
        }

        @Actor
        public void closer2(CounterState.IdleStriped s, LLZ_Result r) {
            r.r2 = s.close();
        }

        @Actor
        public void acquirer(CounterState.IdleStriped s, LLZ_Result r) {
            r.r3 = s.acquireAndHold();
        }
    }
}
