package io.numaloom.stress.keyed;

import io.numaloom.KeyedLock;
import io.numaloom.stress.mutex.MutexState;
import io.numaloom.stress.subject.InspectableKeyedLock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The races of {@link KeyedLock}'s records. Each actor locks one key through a fresh, equal copy of it, so
 * every acquisition finds, binds or pins the key's record and every release may unbind it: "lock vs unbind" is
 * the race between one actor's last unpin (and its CAS {@code pins: 0 -> -1}) and the other actor's pin of the
 * record it just found. Results as in {@link MutexState} (value each actor wrote, final counter, residue), with
 * residue bit {@value #RESIDUE_BOUND} when a record is still bound after both actors returned: a leak.
 * "Two keys never share" uses two keys with one hash code ({@code "Aa"} and {@code "BB"}), so they share a
 * bucket and a chain but must never share a lock.
 */
public final class KeyedLockRaces {
    private KeyedLockRaces() {}

    public static final int RESIDUE_BOUND = 8;

    /** One key of a {@code KeyedLock}, guarding {@link MutexState}'s counter. */
    @State
    public static class OneKey extends MutexState {
        private final KeyedLock<String> locks;

        public OneKey() {
            this(new InspectableKeyedLock());
        }

        private OneKey(InspectableKeyedLock lock) {
            super(lock);
            this.locks = lock.unwrap();
        }

        @Override
        public void arbitrate(IIII_Result r) {
            super.arbitrate(r);
            if (locks.activeKeys() != 0) {
                r.r4 |= RESIDUE_BOUND;
            }
        }
    }

    @Outcome(id = {"1, 2, 2, 0", "2, 1, 2, 0"}, expect = ACCEPTABLE, desc = "One after the other; no record left bound.")
    @Outcome(expect = FORBIDDEN, desc = "Two holders of one key, a lost write, a failed lock(), or a record or lock left behind.")
    static final class NeitherFails {}

    @Outcome(id = {"1, 2, 2, 0", "2, 1, 2, 0"}, expect = ACCEPTABLE, desc = "One after the other; no record left bound.")
    @Outcome(id = {"1, 0, 1, 0", "0, 1, 1, 0"}, expect = ACCEPTABLE_INTERESTING, desc = "One found the key held and gave up.")
    @Outcome(expect = FORBIDDEN, desc = "Two holders of one key, a lost write, both failing on a free key, or a leak.")
    static final class EitherMayFail {}

    @JCStressTest
    @JCStressMeta(NeitherFails.class)
    @Description("KeyedLock: lock(k) against lock(equal k), each unlocking and unbinding")
    public static class LockVsLock {
        @Actor public void actor1(OneKey s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(OneKey s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(OneKey s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(EitherMayFail.class)
    @Description("KeyedLock: tryLock(k) against tryLock(equal k)")
    public static class TryVsTry {
        @Actor public void actor1(OneKey s, IIII_Result r) { r.r1 = s.viaTryLock(); }
        @Actor public void actor2(OneKey s, IIII_Result r) { r.r2 = s.viaTryLock(); }
        @Arbiter public void arbiter(OneKey s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(EitherMayFail.class)
    @Description("KeyedLock: tryLock(k, 1 us) against lock(equal k): a timed-out waiter's unpin races the unbind")
    public static class TimedTryVsLock {
        @Actor public void actor1(OneKey s, IIII_Result r) { r.r1 = s.viaTimedTryLock(); }
        @Actor public void actor2(OneKey s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(OneKey s, IIII_Result r) { s.arbitrate(r); }
    }

    /** Two keys in one bucket. */
    @State
    public static class TwoKeys {
        final KeyedLock<String> locks = new KeyedLock<>();

        int tryLockAndUnlock(String mine) {
            if (!locks.tryLock(mine)) {
                return 0;
            }
            locks.unlock(mine);
            return 1;
        }
    }

    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Both keys were free: distinct keys never share a lock.")
    @Outcome(expect = FORBIDDEN, desc = "A key was found held by a thread that held another key of the same bucket.")
    @Description("KeyedLock: tryLock(\"Aa\") against tryLock(\"BB\"), one hash code, one bucket")
    public static class DistinctKeysOneBucket {
        @Actor public void actor1(TwoKeys s, II_Result r) { r.r1 = s.tryLockAndUnlock("Aa"); }
        @Actor public void actor2(TwoKeys s, II_Result r) { r.r2 = s.tryLockAndUnlock("BB"); }
    }
}
