package io.numaloom.stress.counter;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.ZLZ_Result;

/**
 * An acquisition that is kept races a close of an idle counter. Exactly one of them wins: the close
 * sees the acquisition ({@code BUSY}) or the acquisition is refused ({@code CLOSED}); an acquirer that is
 * refused sees {@code isClosed()} right after, and one that succeeded does not.
 *
 * <p>Result: r1 = the acquisition succeeded, r2 = what {@code tryClose} returned, r3 = {@code isClosed()}
 * read by the acquirer after its attempt.
 */
public final class AcquireVsClose {
    private AcquireVsClose() {}

    @Description("tryAcquire (kept) racing tryClose on an idle counter")
    @Outcome(id = "true, BUSY, false", expect = ACCEPTABLE, desc = "The acquisition came first; the close saw it and changed nothing.")
    @Outcome(id = "false, CLOSED, true", expect = ACCEPTABLE, desc = "The close came first; the acquisition was refused.")
    @Outcome(id = "true, CLOSED, .*", expect = FORBIDDEN, desc = "Acquired and closed: the close freed a resource in use.")
    @Outcome(id = "false, BUSY, .*", expect = FORBIDDEN, desc = "Refused while the counter stayed open.")
    @Outcome(id = "false, CLOSED, false", expect = FORBIDDEN, desc = "Refused, but isClosed() said open afterwards.")
    @Outcome(expect = FORBIDDEN, desc = "Anything else.")
    static final class Outcomes {}

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Lazy {
        @Actor
        public void acquirer(CounterState.IdleLazy s, ZLZ_Result r) {
            r.r1 = s.acquireAndHold();
            r.r3 = s.counter.isClosed();
        }

        @Actor
        public void closer(CounterState.IdleLazy s, ZLZ_Result r) {
            r.r2 = s.close();
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Striped {
        @Actor
        public void acquirer(CounterState.IdleStriped s, ZLZ_Result r) {
            r.r1 = s.acquireAndHold();
            r.r3 = s.counter.isClosed();
        }

        @Actor
        public void closer(CounterState.IdleStriped s, ZLZ_Result r) {
            r.r2 = s.close();
        }
    }
}
