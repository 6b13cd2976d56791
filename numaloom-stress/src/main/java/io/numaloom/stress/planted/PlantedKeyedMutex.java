package io.numaloom.stress.planted;

import io.numaloom.stress.keyed.KeyedLockRaces;
import io.numaloom.stress.keyed.KeyedLockRaces.HolderLocksAnotherKey;
import io.numaloom.stress.mutex.MutexState;
import io.numaloom.stress.planted.PlantedKeyedLock.Bug;
import io.numaloom.stress.subject.InspectableLock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * {@code KeyedLockRaces}' keyed tests, with the same states, results and grading, on the {@link PlantedKeyedLock}
 * model. Each actor locks one key through a fresh, equal copy of it.
 * <ul>
 * <li>{@code CorrectLockVsLock}: two lockers of a key that is not bound yet; the model must pass.
 * <li>{@code *LockVsDeflateThenLock} and {@code *TryLockVsDeflate}: the key's record is bound and idle when the
 *     actors start (the state locks and unlocks it once), and a deflater ({@code releaseIdleKeys()}) races a
 *     locker's fast-path CAS on the record's lock word or its pin. {@code Correct*} must pass; {@code IgnoresLocker*}
 *     ({@link Bug#DEFLATE_IGNORES_LOCKER}) must fail: a locker whose CAS lands between the deflater's check and its
 *     writes holds a record that is no longer linked, so its unlock does not find its hold (a negated value), or
 *     the next locker binds the key again and both are inside at once (a lost write).
 * <li>{@code *ThinLockVsLock}: the model with thin holds, two lockers of a key that has no record: one holds it
 *     thin, the other inflates that hold (or finds it released). {@code CorrectThin*} must pass;
 *     {@code ThinIgnoresBinder*} ({@link Bug#THIN_IGNORES_BINDER}) must fail: two lockers that both check the slot
 *     free before either writes it both hold the key (a lost write, or an unlock that does not find its hold).
 * <li>{@code *ThinHolderLocksAnotherKey}: {@code KeyedLockRaces.ThinHolderLocksAnotherKey}'s race on the model with
 *     thin holds and two buckets: actor 1 holds key A thin and locks key B, of the other bucket, while actor 2's
 *     {@code tryLock(A)} inflates the hold of A. {@code CorrectThinHolder*} must pass; {@code InflateReadsFreedNode*}
 *     ({@link Bug#INFLATE_READS_FREED_NODE}) must fail: an inflater that reads the hash after freeing actor 1's
 *     node may bind A's record under B's hash, where no lookup finds it, so actor 1's hold of A is lost and its
 *     unlock throws, actor 2 gets A while actor 1 holds it, and the record stays locked.
 * </ul>
 * Not part of the normal jcstress run (the build's regex skips this package): {@code PlantedBugsJcstressTest} runs
 * them.
 */
public final class PlantedKeyedMutex {
    private PlantedKeyedMutex() {}

    /**
     * The widening of {@link Bug#INFLATE_READS_FREED_NODE}'s window, in spins (see {@link PlantedKeyedLock}).
     * Forbidden samples in 500 ms runs with four busy loops on the two CPUs, three runs each: 0, 2, 2 without it;
     * 6, 6, 4 with 64 spins; 16, 18, 32 with 256; 0, 0, 2 with 1,024, where the actors overlapped in about 100
     * samples a run instead of 1,000 to 8,000.
     */
    static final int FREED_NODE_SPINS = 1 << 8;

    /** One key of a planted keyed lock as an {@link InspectableLock}, through a fresh copy of the key per call. */
    static final class OneKey implements InspectableLock {
        private final PlantedKeyedLock<String> locks;
        private final String key = "the-key";

        OneKey(PlantedKeyedLock<String> locks) {
            this.locks = locks;
        }

        private String key() {
            return new String(key);
        }

        @Override public void lock() { locks.lock(key()); }
        @Override public void lockInterruptibly() throws InterruptedException { locks.lockInterruptibly(key()); }
        @Override public boolean tryLock() { return locks.tryLock(key()); }
        @Override public boolean tryLock(long time, TimeUnit unit) throws InterruptedException { return locks.tryLock(key(), time, unit); }
        @Override public void unlock() { locks.unlock(key()); }
        @Override public Condition newCondition() { throw new UnsupportedOperationException("no conditions"); }
        @Override public int getHoldCount() { return locks.getHoldCount(key()); }
        @Override public boolean isHeldByCurrentThread() { return locks.isHeldByCurrentThread(key()); }
        @Override public boolean isLocked() { return locks.isLocked(key()); }
        @Override public boolean hasQueuedThreads() { return locks.hasQueuedThreads(key()); }
        @Override public int getQueueLength() { return hasQueuedThreads() ? 1 : 0; }
        @Override public boolean hasWaiters(Condition condition) { throw new UnsupportedOperationException("no conditions"); }
    }

    /**
     * {@link MutexState} on one key, with residue bit {@link KeyedLockRaces#RESIDUE_IN_USE} for a key left in use,
     * as {@code KeyedLockRaces.OneKey}.
     */
    public abstract static class KeyState extends MutexState {
        private final PlantedKeyedLock<String> locks;

        KeyState(PlantedKeyedLock<String> locks, boolean bindIdle) {
            this(new OneKey(locks), locks, bindIdle);
        }

        private KeyState(OneKey key, PlantedKeyedLock<String> locks, boolean bindIdle) {
            super(key);
            this.locks = locks;
            if (bindIdle) {
                key.lock(); // the key's record stays bound, idle
                key.unlock();
            }
        }

        public int deflate() {
            return locks.releaseIdleKeys();
        }

        @Override
        public void arbitrate(IIII_Result r) {
            super.arbitrate(r);
            if (locks.activeKeys() != 0) {
                r.r4 |= KeyedLockRaces.RESIDUE_IN_USE;
            }
        }
    }

    /** The correct model; the key is not bound when the actors start. */
    @State
    public static class CorrectState extends KeyState {
        public CorrectState() {
            super(new PlantedKeyedLock<>(Bug.NONE), false);
        }
    }

    /** The correct model; the key's record is bound and idle when the actors start. */
    @State
    public static class CorrectIdleState extends KeyState {
        public CorrectIdleState() {
            super(new PlantedKeyedLock<>(Bug.NONE), true);
        }
    }

    /** {@link Bug#DEFLATE_IGNORES_LOCKER}; the key's record is bound and idle when the actors start. */
    @State
    public static class IgnoresLockerIdleState extends KeyState {
        public IgnoresLockerIdleState() {
            super(new PlantedKeyedLock<>(Bug.DEFLATE_IGNORES_LOCKER), true);
        }
    }

    @JCStressTest
    @JCStressMeta(KeyedLockRaces.NeitherFails.class)
    @Description("Planted keyed lock without bug: lock(k) against lock(equal k), each binding or finding the record")
    public static class CorrectLockVsLock {
        @Actor public void actor1(CorrectState s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(CorrectState s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(CorrectState s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(KeyedLockRaces.NeitherFails.class)
    @Description("Planted keyed lock without bug, key bound and idle: lock(k) against releaseIdleKeys() then lock(equal k)")
    public static class CorrectLockVsDeflateThenLock {
        @Actor public void actor1(CorrectIdleState s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(CorrectIdleState s, IIII_Result r) { s.deflate(); r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(CorrectIdleState s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(KeyedLockRaces.NeitherFails.class)
    @Description("Planted DEFLATE_IGNORES_LOCKER, key bound and idle: lock(k) against releaseIdleKeys() then lock(equal k)")
    public static class IgnoresLockerLockVsDeflateThenLock {
        @Actor public void actor1(IgnoresLockerIdleState s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(IgnoresLockerIdleState s, IIII_Result r) { s.deflate(); r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(IgnoresLockerIdleState s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(KeyedLockRaces.TryLockMustSucceed.class)
    @Description("Planted keyed lock without bug, key bound and idle: tryLock(k) against releaseIdleKeys()")
    public static class CorrectTryLockVsDeflate {
        @Actor public void actor1(CorrectIdleState s, IIII_Result r) { r.r1 = s.viaTryLock(); }
        @Actor public void actor2(CorrectIdleState s, IIII_Result r) { r.r2 = s.deflate(); }
        @Arbiter public void arbiter(CorrectIdleState s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(KeyedLockRaces.TryLockMustSucceed.class)
    @Description("Planted DEFLATE_IGNORES_LOCKER, key bound and idle: tryLock(k) against releaseIdleKeys()")
    public static class IgnoresLockerTryLockVsDeflate {
        @Actor public void actor1(IgnoresLockerIdleState s, IIII_Result r) { r.r1 = s.viaTryLock(); }
        @Actor public void actor2(IgnoresLockerIdleState s, IIII_Result r) { r.r2 = s.deflate(); }
        @Arbiter public void arbiter(IgnoresLockerIdleState s, IIII_Result r) { s.arbitrate(r); }
    }

    /** The correct model with thin holds; the key has no record when the actors start. */
    @State
    public static class CorrectThinState extends KeyState {
        public CorrectThinState() {
            super(new PlantedKeyedLock<>(Bug.NONE, true), false);
        }
    }

    /** {@link Bug#THIN_IGNORES_BINDER}; the key has no record when the actors start. */
    @State
    public static class ThinIgnoresBinderState extends KeyState {
        public ThinIgnoresBinderState() {
            super(new PlantedKeyedLock<>(Bug.THIN_IGNORES_BINDER, true), false);
        }
    }

    @JCStressTest
    @JCStressMeta(KeyedLockRaces.NeitherFails.class)
    @Description("Planted keyed lock with thin holds, without bug: lock(k) against lock(equal k), a thin hold against its inflation")
    public static class CorrectThinLockVsLock {
        @Actor public void actor1(CorrectThinState s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(CorrectThinState s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(CorrectThinState s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(KeyedLockRaces.NeitherFails.class)
    @Description("Planted THIN_IGNORES_BINDER: lock(k) against lock(equal k), thin holds taken without the guard")
    public static class ThinIgnoresBinderLockVsLock {
        @Actor public void actor1(ThinIgnoresBinderState s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(ThinIgnoresBinderState s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(ThinIgnoresBinderState s, IIII_Result r) { s.arbitrate(r); }
    }

    /** The correct model with thin holds and two buckets (A and B in different ones). */
    @State
    public static class CorrectThinHolderState extends HolderLocksAnotherKey {
        public CorrectThinHolderState() {
            super(new PlantedKeyedLock<>(Bug.NONE, true, 2));
        }
    }

    /**
     * {@link Bug#INFLATE_READS_FREED_NODE}, thin holds and two buckets; the window widened by up to
     * {@value #FREED_NODE_SPINS} spins (a few microseconds), in which actor 1 locks B several times.
     */
    @State
    public static class InflateReadsFreedNodeState extends HolderLocksAnotherKey {
        public InflateReadsFreedNodeState() {
            super(new PlantedKeyedLock<>(Bug.INFLATE_READS_FREED_NODE, true, 2, FREED_NODE_SPINS));
        }
    }

    @JCStressTest
    @JCStressMeta(KeyedLockRaces.HoldsOneWhileLockingAnother.class)
    @Description("Planted keyed lock with thin holds, without bug: lock(A), lock(B) and unlock(B) 4 times, unlock(A) against tryLock(A) then tryLock(A, 1 ms)")
    public static class CorrectThinHolderLocksAnotherKey {
        @Actor public void actor1(CorrectThinHolderState s, IIII_Result r) { r.r1 = s.lockAThenB(); }
        @Actor public void actor2(CorrectThinHolderState s, IIII_Result r) { s.tryATwice(r); }
        @Arbiter public void arbiter(CorrectThinHolderState s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(KeyedLockRaces.HoldsOneWhileLockingAnother.class)
    @Description("Planted INFLATE_READS_FREED_NODE: lock(A), lock(B) and unlock(B) 4 times, unlock(A) against tryLock(A) then tryLock(A, 1 ms)")
    public static class InflateReadsFreedNodeThinHolderLocksAnotherKey {
        @Actor public void actor1(InflateReadsFreedNodeState s, IIII_Result r) { r.r1 = s.lockAThenB(); }
        @Actor public void actor2(InflateReadsFreedNodeState s, IIII_Result r) { s.tryATwice(r); }
        @Arbiter public void arbiter(InflateReadsFreedNodeState s, IIII_Result r) { s.arbitrate(r); }
    }
}
