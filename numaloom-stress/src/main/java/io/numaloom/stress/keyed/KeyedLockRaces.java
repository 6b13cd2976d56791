package io.numaloom.stress.keyed;

import io.numaloom.KeyedLock;
import io.numaloom.stress.mutex.MutexState;
import io.numaloom.stress.subject.InspectableKeyedLock;
import io.numaloom.stress.subject.KeyedLockSubject;
import io.numaloom.stress.subject.KeyedSubject;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.II_Result;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
 * <li>"A thin holder locks another key" ({@link ThinHolderLocksAnotherKey}, {@code idleKeys(0)}): actor 1 holds
 *     key A thin and then locks key B, of another bucket, while actor 2's {@code tryLock(A)} inflates the hold and
 *     frees actor 1's thin-hold node, which actor 1 may then reuse for a thin hold of B (see
 *     {@link HolderLocksAnotherKey}).
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

    /**
     * Two keys of different buckets, {@value #A} and {@value #B}, each locked through a fresh, equal copy: actor 1
     * ({@link #lockAThenB}) locks A, then locks and unlocks B {@value #B_LOCKS} times, checks that it still holds
     * A, and unlocks A; actor 2 ({@link #tryATwice}) tries A ({@code tryLock}), then tries it again waiting up to
     * {@value #WAIT_MILLIS} ms. On a lock that holds keys thin when it can, whichever actor locks A first holds it
     * thin; if that is actor 1, actor 2's {@code tryLock} inflates its hold: it ends it with a CAS on A's thin slot,
     * frees actor 1's thin-hold node and binds a record of A held by actor 1, which actor 2's second try then waits
     * for. Actor 1, whose node is free from the inflater's free on, takes its next thin hold of B with it. An
     * inflater that reads the node after freeing it ({@code KeyedLock} before 6b531ce read the hash there) may read
     * B's hash and bind A's record where no lookup of A finds it: actor 1's hold of A is gone (its hold count of A
     * is 0, its {@code unlock(A)} throws {@link IllegalMonitorStateException}), actor 2's second try gets A while
     * actor 1 holds it, and the record stays locked after both returned. Shared with {@code PlantedKeyedMutex}.
     *
     * <p>Both orders and the window: jcstress runs the two actors over the same states at about the same time, but
     * their overlap on one state is rare (without the meeting below, 0.02 to 0.09% of the samples had actor 2 find
     * A held, on a busy 2-core machine). So in every other state the two meet first, with bounded spins: actor 2
     * says it is there and waits until actor 1 holds A, actor 1 waits until actor 2 is there before it locks A;
     * actor 2's {@code tryLock} then comes while actor 1 holds A thin and locks B (2 to 30% of the samples had
     * actor 2 find A held). In the other states both start at once, and mostly one of them finds the key free
     * (and, if actor 2 got it first, actor 1 inflates actor 2's hold). Locking B several times makes actor 1's
     * next thin hold come soon after any moment the inflater frees its node.
     *
     * <p>Results ({@link IIII_Result}): r1 = actor 1's faults ({@value #LOST_HOLD}: its hold count of A was not 1
     * after it locked B; {@value #SAW_OTHER_HOLDER}: actor 2 held A while actor 1 did; {@value #UNLOCK_A_THREW},
     * {@value #UNLOCK_B_THREW}: that unlock threw {@code IllegalMonitorStateException}); r2 = actor 2's
     * acquisitions ({@value #GOT_FIRST}: its {@code tryLock} got A; {@value #GOT_SECOND}: its timed one did);
     * r3 = actor 2's faults ({@value #SAW_OTHER_HOLDER}: it held A while actor 1 did; {@value #UNLOCK_A_THREW}:
     * its unlock threw); r4 = residue after both returned ({@link MutexState#RESIDUE_LOCKED} A locked,
     * {@link MutexState#RESIDUE_TRY_FAILED} the arbiter's {@code tryLock(A)} failed, {@link #RESIDUE_IN_USE} a key
     * still in use, such as a record held by nobody who can find it).
     */
    public abstract static class HolderLocksAnotherKey {
        /** Key A. Its bucket differs from B's in {@code KeyedLock}'s table of 64 and in a two-bucket model. */
        public static final String A = "A";
        /** Key B. */
        public static final String B = "B";
        /** How many times actor 1 locks and unlocks B while it holds A. */
        public static final int B_LOCKS = 4;
        /** How long actor 2's second try waits for A: actor 1 holds it for about a microsecond. */
        public static final long WAIT_MILLIS = 1;
        /** How long, in spins, each actor waits for the other in the states where they meet. */
        static final int MEET_SPINS = 1 << 10;

        public static final int LOST_HOLD = 1;
        public static final int SAW_OTHER_HOLDER = 2;
        public static final int UNLOCK_A_THREW = 4;
        public static final int UNLOCK_B_THREW = 8;
        public static final int GOT_FIRST = 1;
        public static final int GOT_SECOND = 2;

        private static final int NOT_YET = 0, HOLDS_A = 1, RELEASING = 2;
        private static final AtomicInteger STATES = new AtomicInteger();

        private final KeyedSubject<String> locks;
        /** Whether the actors meet before actor 2 tries A: in every other state. */
        private final boolean meet = (STATES.getAndIncrement() & 1) == 0;
        private volatile boolean actor2Here;
        /** Actor 1's progress: {@code NOT_YET}, {@code HOLDS_A}, {@code RELEASING} (about to unlock A, or done). */
        private volatile int actor1;
        private volatile boolean actor2HoldsA;

        protected HolderLocksAnotherKey(KeyedSubject<String> locks) {
            this.locks = locks;
        }

        private static String a() {
            return new String(A);
        }

        private static String b() {
            return new String(B);
        }

        /** Actor 1: lock A, lock and unlock B {@value #B_LOCKS} times, check, unlock A; returns r1. */
        public int lockAThenB() {
            for (int spins = 0; meet && !actor2Here && spins < MEET_SPINS; spins++) {
                Thread.onSpinWait();
            }
            locks.lock(a());
            actor1 = HOLDS_A;
            int faults = 0;
            for (int i = 0; i < B_LOCKS; i++) {
                locks.lock(b());
                try {
                    locks.unlock(b());
                } catch (IllegalMonitorStateException e) {
                    faults |= UNLOCK_B_THREW;
                }
            }
            if (locks.getHoldCount(a()) != 1) {
                faults |= LOST_HOLD;
            }
            if (actor2HoldsA) {
                faults |= SAW_OTHER_HOLDER;
            }
            actor1 = RELEASING;
            try {
                locks.unlock(a());
            } catch (IllegalMonitorStateException e) {
                faults |= UNLOCK_A_THREW;
            }
            return faults;
        }

        /** Actor 2: (in every other state, meets actor 1 holding A), tryLock(A), tryLock(A, 1 ms); writes r2, r3. */
        public void tryATwice(IIII_Result r) {
            actor2Here = true;
            for (int spins = 0; meet && actor1 == NOT_YET && spins < MEET_SPINS; spins++) {
                Thread.onSpinWait();
            }
            int got = 0, faults = 0;
            if (locks.tryLock(a())) {
                got |= GOT_FIRST;
                faults |= holdA();
            }
            boolean second;
            try {
                second = locks.tryLock(a(), WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new AssertionError("nobody interrupts jcstress actors", e);
            }
            if (second) {
                got |= GOT_SECOND;
                faults |= holdA();
            }
            r.r2 = got;
            r.r3 = faults;
        }

        /** Actor 2 holds A: checks that actor 1 does not, then unlocks it. */
        private int holdA() {
            actor2HoldsA = true;
            int faults = actor1 == HOLDS_A ? SAW_OTHER_HOLDER : 0;
            actor2HoldsA = false;
            try {
                locks.unlock(a());
            } catch (IllegalMonitorStateException e) {
                faults |= UNLOCK_A_THREW;
            }
            return faults;
        }

        /** The arbiter: r4, the residue once both actors returned. */
        public void arbitrate(IIII_Result r) {
            int residue = 0;
            if (locks.isLocked(a())) {
                residue |= MutexState.RESIDUE_LOCKED;
            }
            if (locks.tryLock(a())) {
                locks.unlock(a());
            } else {
                residue |= MutexState.RESIDUE_TRY_FAILED;
            }
            if (locks.activeKeys() != 0) {
                residue |= RESIDUE_IN_USE;
            }
            r.r4 = residue;
        }
    }

    /** Shared with {@code PlantedKeyedMutex}. */
    @Outcome(id = "0, 3, 0, 0", expect = ACCEPTABLE, desc = "Actor 2 got A twice: before actor 1 locked it, or after actor 1 unlocked it.")
    @Outcome(id = "0, 2, 0, 0", expect = ACCEPTABLE, desc = "Actor 2's tryLock found A held by actor 1 (held thin: it inflated the hold), its timed tryLock waited for actor 1's unlock.")
    @Outcome(id = {"0, 1, 0, 0", "0, 0, 0, 0"}, expect = ACCEPTABLE_INTERESTING, desc = "Actor 2's timed tryLock gave up while actor 1 held A (actor 1 descheduled).")
    @Outcome(expect = FORBIDDEN, desc = "Actor 1's hold of A lost once it locked B, its unlock of A or B threw, both actors held A at once, or A left locked or in use.")
    public static final class HoldsOneWhileLockingAnother {}

    /** {@link HolderLocksAnotherKey} on a {@code KeyedLock} that keeps no idle key bound: a key's first lock is thin. */
    @State
    public static class ThinHolderKeys extends HolderLocksAnotherKey {
        public ThinHolderKeys() {
            super(new KeyedLockSubject<>(KeyedLock.builder().idleKeys(0).releaseIdleKeysInBackground(false).build()));
        }
    }

    @JCStressTest
    @JCStressMeta(HoldsOneWhileLockingAnother.class)
    @Description("KeyedLock, idleKeys(0): lock(A), lock(B) and unlock(B) 4 times, unlock(A) against tryLock(A) (inflating the thin hold of A) then tryLock(A, 1 ms)")
    public static class ThinHolderLocksAnotherKey {
        @Actor public void actor1(ThinHolderKeys s, IIII_Result r) { r.r1 = s.lockAThenB(); }
        @Actor public void actor2(ThinHolderKeys s, IIII_Result r) { s.tryATwice(r); }
        @Arbiter public void arbiter(ThinHolderKeys s, IIII_Result r) { s.arbitrate(r); }
    }
}
