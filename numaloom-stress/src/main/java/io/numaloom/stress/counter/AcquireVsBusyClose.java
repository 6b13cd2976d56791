package io.numaloom.stress.counter;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.ZLJ_Result;

/**
 * The invariant a naive "set a closing flag, look, clear it" design breaks: with one acquisition held
 * throughout, a close must end {@code BUSY}, and an acquisition racing it must not fail because of it,
 * even if it lands in the middle of the close's two phases.
 *
 * <p>Result: r1 = the acquisition succeeded, r2 = what {@code tryClose} returned, r3 = outstanding
 * acquisitions at the end (the held one and the new one).
 */
public final class AcquireVsBusyClose {
    private AcquireVsBusyClose() {}

    @Description("tryAcquire racing tryClose while another acquisition is held")
    @Outcome(id = "true, BUSY, 2", expect = ACCEPTABLE, desc = "The close failed and the acquisition succeeded.")
    @Outcome(id = "false, BUSY, .*", expect = FORBIDDEN, desc = "A close that failed made the racing acquisition fail.")
    @Outcome(expect = FORBIDDEN, desc = "A close that succeeded while an acquisition was held, or a lost count.")
    static final class Outcomes {}

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Lazy {
        @Actor
        public void acquirer(CounterState.HeldLazy s, ZLJ_Result r) {
            r.r1 = s.acquireAndHold();
        }

        @Actor
        public void closer(CounterState.HeldLazy s, ZLJ_Result r) {
            r.r2 = s.close();
        }

        @Arbiter
        public void arbiter(CounterState.HeldLazy s, ZLJ_Result r) {
            r.r3 = s.counter.outstanding();
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Striped {
        @Actor
        public void acquirer(CounterState.HeldStriped s, ZLJ_Result r) {
            r.r1 = s.acquireAndHold();
        }

        @Actor
        public void closer(CounterState.HeldStriped s, ZLJ_Result r) {
            r.r2 = s.close();
        }

        @Arbiter
        public void arbiter(CounterState.HeldStriped s, ZLJ_Result r) {
            r.r3 = s.counter.outstanding();
        }
    }
}
