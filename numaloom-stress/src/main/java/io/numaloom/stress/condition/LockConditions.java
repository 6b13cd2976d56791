package io.numaloom.stress.condition;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@link java.util.concurrent.locks.Condition} under races, for {@code VnaLock} per node and per socket
 * (two-node topology) and the reference {@code ReentrantLock}; the state is {@link ConditionState}. Results are
 * {@code IIII_Result}; r4 is always the residue after both actors (0: lock free, unqueued, usable, and no waiter
 * left on the condition).
 * <ul>
 * <li>{@code SignalRacingAwait}: a waiter in the predicate loop and a signaller that sets the predicate race.
 *     A waiter that started waiting before the signaller took the lock must be woken by its signal: giving up
 *     after 10 s means the signal was lost. r1 = 0 no wait / 1 woken / 2 lost; r2 = waiter's hold count after.
 * <li>{@code AwaitHoldCount}: the waiter holds the lock twice and waits; the signaller must be able to take the
 *     lock (await released both holds), and the waiter must return holding it twice and seeing the signaller's
 *     write. r1 = waiter's hold count after, r2 = value it saw, r3 = 1 if the signaller got the lock.
 * <li>{@code TimedAwaitRace}: {@code awaitNanos(5 us)} times out while the signal arrives; whichever wins, the
 *     waiter returns holding the lock once. r1 = hold count after, r2 = predicate seen.
 * <li>{@code SignalAmidBarging}: {@code SignalRacingAwait} where the signaller, right after its signal, takes
 *     the lock twice more: the signal counts the waiter as queued for the lock (as {@code ReentrantLock}
 *     does), and the woken waiter re-acquires against the signaller barging back, by the fast path or by
 *     queueing without being counted twice. r1, r2 as in {@code SignalRacingAwait}; r3 = the signaller's
 *     count under the lock after its signal (2); r4 = the residue, a registration left behind included.
 * </ul>
 * Waits that must end are bounded (10 s), so that a lost wake-up fails a test instead of hanging the run.
 */
public final class LockConditions {
    private LockConditions() {}

    @Outcome(id = {"0, 1, 0, 0", "1, 1, 0, 0"}, expect = ACCEPTABLE,
            desc = "The waiter found the predicate set, or waited and was woken; it holds the lock once; all clean.")
    @Outcome(id = "2, .*", expect = FORBIDDEN, desc = "The waiter waited 10 s in vain: the signal was lost.")
    @Outcome(expect = FORBIDDEN, desc = "A wrong hold count after await, or a lock/condition left unclean.")
    static final class SignalRacingAwaitGrading {}

    @Outcome(id = "2, 42, 1, 0", expect = ACCEPTABLE,
            desc = "The signaller got in, the waiter came back with both holds and saw the write; all clean.")
    @Outcome(id = ".*, .*, 0, .*", expect = FORBIDDEN, desc = "The signaller could not get in: await kept a hold.")
    @Outcome(expect = FORBIDDEN, desc = "A wrong hold count after await, an unseen write, or a lock left unclean.")
    static final class AwaitHoldCountGrading {}

    @Outcome(id = {"1, 0, 0, 0", "1, 1, 0, 0"}, expect = ACCEPTABLE,
            desc = "The waiter timed out or was signalled, returned holding the lock once; all clean afterwards.")
    @Outcome(expect = FORBIDDEN,
            desc = "A wrong hold count after awaitNanos, a lock left locked/queued/unusable, or a waiter left on the condition.")
    static final class RacingTimedAwait {}

    @Outcome(id = {"0, 1, 2, 0", "1, 1, 2, 0"}, expect = ACCEPTABLE,
            desc = "The waiter found the predicate set, or waited and was woken; the signaller counted twice; all clean.")
    @Outcome(id = "2, .*", expect = FORBIDDEN, desc = "The waiter waited 10 s in vain: the signal was lost.")
    @Outcome(expect = FORBIDDEN,
            desc = "A wrong hold count, a lost count (exclusion), or a lock/condition left unclean.")
    static final class SignalAmidBargingGrading {}

    @JCStressTest
    @JCStressMeta(SignalAmidBargingGrading.class)
    @Description("VnaLock per node: a signalled waiter re-acquires while its signaller barges back")
    public static class PerNodeSignalAmidBarging {
        @Actor public void waiter(ConditionState.PerNode s, IIII_Result r) { s.awaitReady(r); }
        @Actor public void signaller(ConditionState.PerNode s) { s.signalThenBargeTwice(); }
        @Arbiter public void arbiter(ConditionState.PerNode s, IIII_Result r) { s.arbitrateBargedAndResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(SignalAmidBargingGrading.class)
    @Description("VnaLock per socket: a signalled waiter re-acquires while its signaller barges back")
    public static class PerSocketSignalAmidBarging {
        @Actor public void waiter(ConditionState.PerSocket s, IIII_Result r) { s.awaitReady(r); }
        @Actor public void signaller(ConditionState.PerSocket s) { s.signalThenBargeTwice(); }
        @Arbiter public void arbiter(ConditionState.PerSocket s, IIII_Result r) { s.arbitrateBargedAndResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(SignalAmidBargingGrading.class)
    @Description("ReentrantLock (control): a signalled waiter re-acquires while its signaller barges back")
    public static class ReentrantLockSignalAmidBarging {
        @Actor public void waiter(ConditionState.Reentrant s, IIII_Result r) { s.awaitReady(r); }
        @Actor public void signaller(ConditionState.Reentrant s) { s.signalThenBargeTwice(); }
        @Arbiter public void arbiter(ConditionState.Reentrant s, IIII_Result r) { s.arbitrateBargedAndResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(SignalRacingAwaitGrading.class)
    @Description("VnaLock per node: a signal racing with await is not lost")
    public static class PerNodeSignalRacingAwait {
        @Actor public void waiter(ConditionState.PerNode s, IIII_Result r) { s.awaitReady(r); }
        @Actor public void signaller(ConditionState.PerNode s) { s.signalReady(); }
        @Arbiter public void arbiter(ConditionState.PerNode s, IIII_Result r) { s.arbitrateResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(AwaitHoldCountGrading.class)
    @Description("VnaLock per node: await releases both holds and re-acquires both, seeing the signaller's write")
    public static class PerNodeAwaitHoldCount {
        @Actor public void waiter(ConditionState.PerNode s, IIII_Result r) { s.awaitHoldingTwice(r); }
        @Actor public void signaller(ConditionState.PerNode s, IIII_Result r) { s.publishAndSignal(r); }
        @Arbiter public void arbiter(ConditionState.PerNode s, IIII_Result r) { s.arbitrateResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(RacingTimedAwait.class)
    @Description("VnaLock per node: awaitNanos(5 us) timing out while a signal arrives")
    public static class PerNodeTimedAwaitRace {
        @Actor public void waiter(ConditionState.PerNode s, IIII_Result r) { s.racingTimedAwait(r); }
        @Actor public void signaller(ConditionState.PerNode s) { s.signalReady(); }
        @Arbiter public void arbiter(ConditionState.PerNode s, IIII_Result r) { s.arbitrateResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(SignalRacingAwaitGrading.class)
    @Description("VnaLock per socket: a signal racing with await is not lost")
    public static class PerSocketSignalRacingAwait {
        @Actor public void waiter(ConditionState.PerSocket s, IIII_Result r) { s.awaitReady(r); }
        @Actor public void signaller(ConditionState.PerSocket s) { s.signalReady(); }
        @Arbiter public void arbiter(ConditionState.PerSocket s, IIII_Result r) { s.arbitrateResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(AwaitHoldCountGrading.class)
    @Description("VnaLock per socket: await releases both holds and re-acquires both, seeing the signaller's write")
    public static class PerSocketAwaitHoldCount {
        @Actor public void waiter(ConditionState.PerSocket s, IIII_Result r) { s.awaitHoldingTwice(r); }
        @Actor public void signaller(ConditionState.PerSocket s, IIII_Result r) { s.publishAndSignal(r); }
        @Arbiter public void arbiter(ConditionState.PerSocket s, IIII_Result r) { s.arbitrateResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(RacingTimedAwait.class)
    @Description("VnaLock per socket: awaitNanos(5 us) timing out while a signal arrives")
    public static class PerSocketTimedAwaitRace {
        @Actor public void waiter(ConditionState.PerSocket s, IIII_Result r) { s.racingTimedAwait(r); }
        @Actor public void signaller(ConditionState.PerSocket s) { s.signalReady(); }
        @Arbiter public void arbiter(ConditionState.PerSocket s, IIII_Result r) { s.arbitrateResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(SignalRacingAwaitGrading.class)
    @Description("ReentrantLock (control): a signal racing with await is not lost")
    public static class ReentrantLockSignalRacingAwait {
        @Actor public void waiter(ConditionState.Reentrant s, IIII_Result r) { s.awaitReady(r); }
        @Actor public void signaller(ConditionState.Reentrant s) { s.signalReady(); }
        @Arbiter public void arbiter(ConditionState.Reentrant s, IIII_Result r) { s.arbitrateResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(AwaitHoldCountGrading.class)
    @Description("ReentrantLock (control): await releases both holds and re-acquires both, seeing the signaller's write")
    public static class ReentrantLockAwaitHoldCount {
        @Actor public void waiter(ConditionState.Reentrant s, IIII_Result r) { s.awaitHoldingTwice(r); }
        @Actor public void signaller(ConditionState.Reentrant s, IIII_Result r) { s.publishAndSignal(r); }
        @Arbiter public void arbiter(ConditionState.Reentrant s, IIII_Result r) { s.arbitrateResidue(r); }
    }

    @JCStressTest
    @JCStressMeta(RacingTimedAwait.class)
    @Description("ReentrantLock (control): awaitNanos(5 us) timing out while a signal arrives")
    public static class ReentrantLockTimedAwaitRace {
        @Actor public void waiter(ConditionState.Reentrant s, IIII_Result r) { s.racingTimedAwait(r); }
        @Actor public void signaller(ConditionState.Reentrant s) { s.signalReady(); }
        @Arbiter public void arbiter(ConditionState.Reentrant s, IIII_Result r) { s.arbitrateResidue(r); }
    }
}
