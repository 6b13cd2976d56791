package io.numaloom.stress.counter;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.ZLZ_Result;

/**
 * An acquire-and-release pair races a close. The close may come before the pair (refused), during it
 * ({@code BUSY}) or after it ({@code CLOSED} with the pair done); the arbiter checks that the counter
 * ends closed exactly when the close said so.
 *
 * <p>Result: r1 = the acquisition succeeded, r2 = what {@code tryClose} returned, r3 = {@code isClosed()}
 * at the end.
 */
public final class AcquireReleaseVsClose {
    private AcquireReleaseVsClose() {}

    @Description("tryAcquire + release racing tryClose")
    @Outcome(id = "true, BUSY, false", expect = ACCEPTABLE, desc = "The close came while the acquisition was held.")
    @Outcome(id = "true, CLOSED, true", expect = ACCEPTABLE, desc = "The close came after the release.")
    @Outcome(id = "false, CLOSED, true", expect = ACCEPTABLE, desc = "The close came first; the acquisition was refused.")
    @Outcome(id = "false, BUSY, .*", expect = FORBIDDEN, desc = "Refused while the counter stayed open.")
    @Outcome(expect = FORBIDDEN, desc = "A close that says CLOSED on an open counter, or BUSY on a closed one.")
    static final class Outcomes {}

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Lazy {
        @Actor
        public void user(CounterState.IdleLazy s, ZLZ_Result r) {
            r.r1 = s.acquireAndRelease();
        }

        @Actor
        public void closer(CounterState.IdleLazy s, ZLZ_Result r) {
            r.r2 = s.close();
        }

        @Arbiter
        public void arbiter(CounterState.IdleLazy s, ZLZ_Result r) {
            r.r3 = s.counter.isClosed();
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Striped {
        @Actor
        public void user(CounterState.IdleStriped s, ZLZ_Result r) {
            r.r1 = s.acquireAndRelease();
        }

        @Actor
        public void closer(CounterState.IdleStriped s, ZLZ_Result r) {
            r.r2 = s.close();
        }

        @Arbiter
        public void arbiter(CounterState.IdleStriped s, ZLZ_Result r) {
            r.r3 = s.counter.isClosed();
        }
    }
}
