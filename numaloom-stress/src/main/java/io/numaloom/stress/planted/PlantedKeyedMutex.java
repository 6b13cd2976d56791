package io.numaloom.stress.planted;

import io.numaloom.stress.keyed.KeyedLockRaces;
import io.numaloom.stress.mutex.MutexState;
import io.numaloom.stress.planted.PlantedKeyedLock.Bug;
import io.numaloom.stress.subject.InspectableLock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@code KeyedLockRaces.LockVsLock}, with the same state shape and grading, on the {@link PlantedKeyedLock}: each
 * actor locks one key through a fresh, equal copy of it, so one actor's last unpin and unbind race the other's
 * pin. {@code CorrectLockVsLock} must pass; {@code IgnoresPinsLockVsLock} must fail: the actor whose pin the
 * unbind overwrote holds an unlinked record, its unlock does not find it (a negated value, residue locked), or
 * the other actor binds a second record and both are inside at once. Not part of the normal jcstress run (the
 * build's regex skips this package): {@code PlantedBugsJcstressTest} runs them.
 */
public final class PlantedKeyedMutex {
    private PlantedKeyedMutex() {}

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

    /** {@link MutexState} on one key, with residue bit {@link KeyedLockRaces#RESIDUE_BOUND} for a leaked record. */
    public abstract static class KeyState extends MutexState {
        private final PlantedKeyedLock<String> locks;

        KeyState(PlantedKeyedLock<String> locks) {
            super(new OneKey(locks));
            this.locks = locks;
        }

        @Override
        public void arbitrate(IIII_Result r) {
            super.arbitrate(r);
            if (locks.activeKeys() != 0) {
                r.r4 |= KeyedLockRaces.RESIDUE_BOUND;
            }
        }
    }

    @State
    public static class CorrectState extends KeyState {
        public CorrectState() {
            super(new PlantedKeyedLock<>(Bug.NONE));
        }
    }

    @State
    public static class IgnoresPinsState extends KeyState {
        public IgnoresPinsState() {
            super(new PlantedKeyedLock<>(Bug.UNBIND_IGNORES_PINS));
        }
    }

    @Outcome(id = {"1, 2, 2, 0", "2, 1, 2, 0"}, expect = ACCEPTABLE, desc = "One after the other; no record left bound.")
    @Outcome(expect = FORBIDDEN, desc = "Two holders of one key, a hold lost by its unlock, or a record or lock left behind.")
    static final class Grading {}

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("Planted keyed lock without bug: lock(k) against lock(equal k), each unlocking and unbinding")
    public static class CorrectLockVsLock {
        @Actor public void actor1(CorrectState s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(CorrectState s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(CorrectState s, IIII_Result r) { s.arbitrate(r); }
    }

    @JCStressTest
    @JCStressMeta(Grading.class)
    @Description("Planted UNBIND_IGNORES_PINS: lock(k) against lock(equal k); the unbind overwrites a racing pin")
    public static class IgnoresPinsLockVsLock {
        @Actor public void actor1(IgnoresPinsState s, IIII_Result r) { r.r1 = s.viaLock(); }
        @Actor public void actor2(IgnoresPinsState s, IIII_Result r) { r.r2 = s.viaLock(); }
        @Arbiter public void arbiter(IgnoresPinsState s, IIII_Result r) { s.arbitrate(r); }
    }
}
