package io.numaloom.stress.counter;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.numaloom.counter.CloseResult;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.ZI_Result;

/**
 * Everything a holder did before its release happens-before the successful close returns: the holder
 * writes a plain field and releases the state's acquisition; a closer that closes reads the field and
 * must see the write. This is what lets the closer free the resource.
 *
 * <p>Result: r1 = the close succeeded, r2 = the field as the closer read it after the close (-1 when
 * the close failed and the closer did not look).
 */
public final class ReleaseVisibleAfterClose {
    private ReleaseVisibleAfterClose() {}

    static final int WRITTEN = 42;

    @Description("a plain write before release, read after a successful tryClose")
    @Outcome(id = "true, 42", expect = ACCEPTABLE, desc = "Closed after the release and saw the holder's write.")
    @Outcome(id = "false, -1", expect = ACCEPTABLE, desc = "The close came before the release: BUSY.")
    @Outcome(id = "true, 0", expect = FORBIDDEN, desc = "Closed, but the holder's write before release is not visible.")
    @Outcome(expect = FORBIDDEN, desc = "Anything else.")
    static final class Outcomes {}

    static void holder(CounterState s) {
        s.payload = WRITTEN;
        s.counter.release(s.heldTicket);
    }

    static void closer(CounterState s, ZI_Result r) {
        if (s.close() == CloseResult.CLOSED) {
            r.r1 = true;
            r.r2 = s.payload;
        } else {
            r.r2 = -1;
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Lazy {
        @Actor
        public void holder(CounterState.HeldLazy s) {
            ReleaseVisibleAfterClose.holder(s);
        }

        @Actor
        public void closer(CounterState.HeldLazy s, ZI_Result r) {
            ReleaseVisibleAfterClose.closer(s, r);
        }
    }

    @JCStressTest
    @JCStressMeta(Outcomes.class)
    public static class Striped {
        @Actor
        public void holder(CounterState.HeldStriped s) {
            ReleaseVisibleAfterClose.holder(s);
        }

        @Actor
        public void closer(CounterState.HeldStriped s, ZI_Result r) {
            ReleaseVisibleAfterClose.closer(s, r);
        }
    }
}
