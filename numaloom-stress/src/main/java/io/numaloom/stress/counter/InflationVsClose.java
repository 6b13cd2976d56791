package io.numaloom.stress.counter;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.numaloom.counter.CloseResult;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A close racing the inflation of a lazy counter, with two actors (so that it runs on two CPUs; the
 * three-actor tests need three). Both actors acquire on the base word at the same time, so a CAS fails
 * and the loser creates the stripe table and a stripe, possibly while the close runs, or finds its slot
 * empty and must create a stripe while the closer holds the control word. Actor 1 acquires and
 * releases, then acquires and keeps it; actor 2 acquires and releases, then closes.
 *
 * <p>Result: r1 = actor 1's acquisitions as bits (1 = the first succeeded, 2 = the kept one succeeded),
 * r2 = 1 if actor 2's acquisition succeeded, r3 = the close's result ordinal (0 {@code CLOSED},
 * 1 {@code BUSY}, 2 {@code ALREADY_CLOSED}).
 */
public final class InflationVsClose {
    private InflationVsClose() {}

    @Description("acquire/release pairs on a lazy counter (inflating it) racing a close")
    @Outcome(id = "3, 1, 1", expect = ACCEPTABLE, desc = "Actor 1 acquired both times; the close saw an acquisition.")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "The close came between actor 1's acquisitions; the second was refused.")
    @Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "The close came before actor 1 started; both refused.")
    @Outcome(id = "3, .*, 0", expect = FORBIDDEN, desc = "Closed although actor 1 keeps an acquisition.")
    @Outcome(id = {"[012], .*, 1", ".*, 0, .*"}, expect = FORBIDDEN, desc = "An acquisition refused while the counter stayed open.")
    @Outcome(id = "2, .*, .*", expect = FORBIDDEN, desc = "Refused, then admitted: a close was undone.")
    @Outcome(expect = FORBIDDEN, desc = "Anything else.")
    static final class Outcomes {}

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Lazy {
        @Actor
        public void user(CounterState.IdleLazy s, III_Result r) {
            int bits = s.acquireAndRelease() ? 1 : 0;
            r.r1 = bits | (s.acquireAndHold() ? 2 : 0);
        }

        @Actor
        public void userThenCloser(CounterState.IdleLazy s, III_Result r) {
            r.r2 = s.acquireAndRelease() ? 1 : 0;
            CloseResult result = s.close();
            r.r3 = result.ordinal();
        }
    }
}
