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
 * The races of {@link KeyedLock}'s records. Each actor locks one key through a fresh, equal copy of it, so every
 * acquisition finds, binds or pins the key's record by {@code equals}. Results as in {@link MutexState} (value each
 * actor wrote, final counter, residue), with residue bit {@value #RESIDUE_IN_USE} when the key is still in use
 * ({@code activeKeys() != 0}: a hold, pin or waiter outlived its call) after both actors returned.
 * <ul>
 * <li>On a key that is not bound when the actors start ({@link OneKey}): two acquisitions race to bind the key's
 *     record and to lock it ("lock vs lock", "try vs try", "timed try vs lock").
 * <li>On a key whose record is bound and idle when the actors start ({@link IdleKey}), so that an acquisition may
 *     take the fast path (a CAS on the record's lock word) or pin the record: "lock vs deflate", an acquisition
 *     racing {@link KeyedLock#releaseIdleKeys()}, whose deflation claims the lock word ({@code 0 -> DEFLATED}) and
 *     then the pins ({@code 0 -> -1}) and backs out if a thread pinned in between.
 * <li>On a key of a lock that keeps no idle key bound ({@link ThinKey}, {@code idleKeys(0)}): an uncontended
 *     acquisition takes a thin hold (the bucket's thin slot, no record), and a second acquisition inflates it into a
 *     record held by the first thread, racing that thread's release for the thin slot with one CAS ("thin lock vs
 *     lock", "thin try vs try", "thin timed try vs lock").
 * <li>"Two keys never share" uses two keys with one hash code ({@code "Aa"} and {@code "BB"}), so they share a
 *     bucket and a chain but must never share a lock.
 * </ul>
 * jcstress 0.16 runs a test only if the machine has a CPU per actor, and CI has two: so the deflater is one of two
 * actors, never a third.
 */
public final class KeyedLockRaces {
    private KeyedLockRaces() {}

    /** Residue bit: a key still in use after both actors returned. */
    public static final int RESIDUE_IN_USE = 8;

    /** One key of a {@code KeyedLock}, guarding {@link MutexState}'s counter; not bound when the actors start. */
    @State
    public static class OneKey extends MutexState {
        private final InspectableKeyedLock key;
        private final KeyedLock<String> locks;

        public OneKey() {
            this(new InspectableKeyedLock());
        }

        OneKey(InspectableKeyedLock key) {
            super(key);
            this.key = key;
            this.locks = key.unwrap();
        }

        /** Locks and unlocks the key once: its record stays bound, idle. */
        void bindIdle() {
            key.lock();
            key.unlock();
        }

        /** {@link KeyedLock#releaseIdleKeys()}: 1 if it deflated the key's record, 0 if it found it in use or unbound. */
        public int deflate() {
            return locks.releaseIdleKeys();
        }

        @Override
        public void arbitrate(IIII_Result r) {
            super.arbitrate(r);
            if (locks.activeKeys() != 0) {
                r.r4 |= RESIDUE_IN_USE;
            }
        }
    }

    /** {@link OneKey} whose record is bound and idle when the actors start: locked and unlocked once. */
    @State
    public static class IdleKey extends OneKey {
        public IdleKey() {
            bindIdle();
        }
    }

    /**
     * {@link OneKey} of a lock that keeps no idle key bound ({@code idleKeys(0)}, no background release): whichever
     * actor gets there first holds the key thin, and the other inflates that hold (or finds it released).
     */
    @State
    public static class ThinKey extends OneKey {
        public ThinKey() {
            super(new InspectableKeyedLock(KeyedLock.builder().idleKeys(0).releaseIdleKeysInBackground(false).build()));
        }
    }

    /** Both actors lock the key once: shared with {@code PlantedKeyedMutex}. */
    @Outcome(id = {"1, 2, 2, 0", "2, 1, 2, 0"}, expect = ACCEPTABLE, desc = "One after the other; the key is clean afterwards.")
    @Outcome(expect = FORBIDDEN, desc = "Two holders of one key, a lost write, a hold its unlock did not find, a failed lock(), or a key left locked or in use.")
    public static final class NeitherFails {}

    @Outcome(id = {"1, 2, 2, 0", "2, 1, 2, 0"}, expect = ACCEPTABLE, desc = "One after the other; the key is clean afterwards.")
    @Outcome(id = {"1, 0, 1, 0", "0, 1, 1, 0"}, expect = ACCEPTABLE_INTERESTING, desc = "One found the key held and gave up.")
    @Outcome(expect = FORBIDDEN, desc = "Two holders of one key, a lost write, both failing on a free key, or a key left locked or in use.")
    static final class EitherMayFail {}

    /**
     * Actor 1's tryLock races actor 2's deflation (r2 = how many keys it released) and nothing else: the key is
     * free all along, so the tryLock must succeed. Shared with {@code PlantedKeyedMutex}.
     */
    @Outcome(id = "1, 0, 1, 0", expect = ACCEPTABLE, desc = "The deflater found the key in use (locked or pinned) and left it.")
    @Outcome(id = "1, 1, 1, 0", expect = ACCEPTABLE, desc = "The deflater released the idle record, before the tryLock (which bound the key again) or after its unlock.")
    @Outcome(expect = FORBIDDEN, desc = "tryLock failed on a key nobody held, its unlock did not find its hold, or the key was left locked or in use.")
    public static final class TryLockMustSucceed {}

    @JCStressTest
    @JCStressMeta(NeitherFails.class)
    @Description("KeyedLock: lock(k) against lock(equal k), each binding or finding the key's record")
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
    @Description("KeyedLock: tryLock(k, 1 us) against lock(equal k): a timed-out waiter unpins while the other binds or holds")
    public static class TimedTryVsLock {
        @Actor public void actor1(OneKey s, IIII_Result r) { r.r1 = s.viaTimedTryLock(); }
        @Actor public void actor2(OneKey s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(OneKey s, IIII_Result r) { s.arbitrate(r); }
    }

    /**
     * Lock against deflate: actor 1's lock (fast-path CAS on the idle record's word, or a pin) races actor 2's
     * deflation of that record; actor 2 then locks the key too, binding it again if it deflated it, with the record
     * it just deflated (the deflating thread keeps it as its spare), which actor 1 may still be looking at. Proves
     * one holder at a time, no lost write, each unlock finding its hold, and nothing left in use.
     */
    @JCStressTest
    @JCStressMeta(NeitherFails.class)
    @Description("KeyedLock, key bound and idle: lock(k) against releaseIdleKeys() then lock(equal k)")
    public static class LockVsDeflateThenLock {
        @Actor public void actor1(IdleKey s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(IdleKey s, IIII_Result r) { s.deflate(); r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(IdleKey s, IIII_Result r) { s.arbitrate(r); }
    }

    /**
     * tryLock against deflate: nobody but a deflater races actor 1, so its tryLock must succeed whether it takes
     * the fast path, pins a record being deflated (and takes the lock word from {@code DEFLATED}), or binds the key
     * again; and its unlock must find the record it holds. r2 shows which way the deflater went.
     */
    @JCStressTest
    @JCStressMeta(TryLockMustSucceed.class)
    @Description("KeyedLock, key bound and idle: tryLock(k) against releaseIdleKeys()")
    public static class TryLockVsDeflate {
        @Actor public void actor1(IdleKey s, IIII_Result r) { r.r1 = s.viaTryLock(); }
        @Actor public void actor2(IdleKey s, IIII_Result r) { r.r2 = s.deflate(); }
        @Arbiter public void arbiter(IdleKey s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(NeitherFails.class)
    @Description("KeyedLock, idleKeys(0): lock(k) against lock(equal k), a thin hold against its inflation, a release against an inflation")
    public static class ThinLockVsLock {
        @Actor public void actor1(ThinKey s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(ThinKey s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(ThinKey s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(EitherMayFail.class)
    @Description("KeyedLock, idleKeys(0): tryLock(k) against tryLock(equal k), a thin hold against its inflation")
    public static class ThinTryVsTry {
        @Actor public void actor1(ThinKey s, IIII_Result r) { r.r1 = s.viaTryLock(); }
        @Actor public void actor2(ThinKey s, IIII_Result r) { r.r2 = s.viaTryLock(); }
        @Arbiter public void arbiter(ThinKey s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(EitherMayFail.class)
    @Description("KeyedLock, idleKeys(0): tryLock(k, 1 us) against lock(equal k): a timed waiter on an inflated thin hold")
    public static class ThinTimedTryVsLock {
        @Actor public void actor1(ThinKey s, IIII_Result r) { r.r1 = s.viaTimedTryLock(); }
        @Actor public void actor2(ThinKey s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(ThinKey s, IIII_Result r) { s.arbitrate(r); }
    }

    /** Two keys in one bucket. */
    @State
    public static class TwoKeys {
        final KeyedLock<String> locks;

        public TwoKeys() {
            this(KeyedLock.builder().bindOnFirstLock(true).build()); // both keys bind: one chain
        }

        TwoKeys(KeyedLock<String> locks) {
            this.locks = locks;
        }

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

    /** {@link TwoKeys} of a lock that keeps no idle key bound: the first key is held thin, the other binds a record. */
    @State
    public static class ThinTwoKeys extends TwoKeys {
        public ThinTwoKeys() {
            super(KeyedLock.builder().idleKeys(0).releaseIdleKeysInBackground(false).build());
        }
    }

    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Both keys were free: a thin hold of one key never stands for another.")
    @Outcome(expect = FORBIDDEN, desc = "A key was found held by a thread that held another key of the same bucket.")
    @Description("KeyedLock, idleKeys(0): tryLock(\"Aa\") against tryLock(\"BB\"), one bucket, one thin slot")
    public static class ThinDistinctKeysOneBucket {
        @Actor public void actor1(ThinTwoKeys s, II_Result r) { r.r1 = s.tryLockAndUnlock("Aa"); }
        @Actor public void actor2(ThinTwoKeys s, II_Result r) { r.r2 = s.tryLockAndUnlock("BB"); }
    }
}
