package io.numaloom.stress.counter;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.ZZL_Result;

/**
 * The window a two-phase close opens: the closer has found every word idle and claims them in order,
 * base, stripe 0, stripe 1. The acquirer takes stripe 1 (so the close must end {@code BUSY}) and then
 * asks for stripe 0, which the close may have claimed already. It must wait for the close's outcome and
 * then succeed; a design that fails acquisitions on a claimed word ("set a closing flag, check, clear
 * it") refuses it although the counter never closes.
 *
 * <p>Result: r1 = the acquisition on stripe 1 succeeded, r2 = the one on stripe 0 succeeded, r3 = what
 * {@code tryClose} returned.
 */
@JCStressTest
@Description("acquire stripe 1 then stripe 0 (both kept) racing tryClose")
@Outcome(id = "true, true, BUSY", expect = ACCEPTABLE, desc = "Both acquired; the close saw them.")
@Outcome(id = "false, false, CLOSED", expect = ACCEPTABLE, desc = "The close came first; both refused.")
@Outcome(id = "true, false, .*", expect = FORBIDDEN, desc = "Refused on stripe 0 although a kept acquisition keeps the counter open.")
@Outcome(id = "false, true, .*", expect = FORBIDDEN, desc = "Refused, then admitted: a close was undone.")
@Outcome(id = "true, true, CLOSED", expect = FORBIDDEN, desc = "Acquired and closed.")
@Outcome(expect = FORBIDDEN, desc = "Anything else.")
public class AcquireDuringBusyClose {

    @Actor
    public void acquirer(CounterState.TwoPlacedStripes s, ZZL_Result r) {
        r.r1 = s.acquireAndHoldOn(1);
        r.r2 = s.acquireAndHoldOn(0);
    }

    @Actor
    public void closer(CounterState.TwoPlacedStripes s, ZZL_Result r) {
        r.r3 = s.close();
    }
}
