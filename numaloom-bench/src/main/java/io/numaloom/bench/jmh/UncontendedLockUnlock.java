package io.numaloom.bench.jmh;

import io.numaloom.bench.Mutex;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The cost of an uncontended lock+unlock pair, the fast path every lock is judged by first (the Relaxed-Lock
 * paper's "Sync", §4), next to its physical floor: one CAS to acquire and one release store to
 * free, which is what a lock needs at least.
 *
 * <p>One thread, one lock, an empty critical section. {@link #lockUnlock} goes through {@link Mutex}, that
 * is {@code lock(); try { } finally { unlock(); }} on a {@code java.util.concurrent.locks.Lock} or a
 * {@code synchronized} block for {@code SYNCHRONIZED}, exactly as the {@code bench} workloads do; the mutex
 * is a field of a state object, so it escapes and the JIT cannot elide the locking. Every pair should
 * allocate nothing: run with {@code -prof gc} and check {@code gc.alloc.rate.norm} is about 0 B/op.
 *
 * <pre>{@code
 * ./numaloom jmh UncontendedLockUnlock -prof gc
 * ./numaloom jmh UncontendedLockUnlock -p lock=VNA,UNFAIR_REENTRANT -t 1 -f 2
 * }</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class UncontendedLockUnlock {

    /** A lock of the registry, held by the measured thread alone. */
    @State(Scope.Thread)
    public static class LockState {
        /**
         * The lock's registry name. The annotation lists the locks known when this class was written;
         * {@code ./numaloom jmh} replaces the list with every registered lock, baselines included.
         */
        @Param({"VNA", "VNA_2_Q", "UNFAIR_REENTRANT", "FAIR_REENTRANT", "SYNCHRONIZED"})
        public String lock;

        Mutex mutex;
        final Runnable empty = () -> {};

        @Setup
        public void create() {
            mutex = Mutex.create(lock);
        }
    }

    /** The floor: a flag taken by CAS and freed by a release store. */
    @State(Scope.Thread)
    public static class FlagState {
        private static final VarHandle FLAG;

        static {
            try {
                FLAG = MethodHandles.lookup().findVarHandle(FlagState.class, "flag", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** 0 free, 1 held. */
        volatile int flag;
    }

    /** Lock and unlock a registered lock with an empty critical section. */
    @Benchmark
    public void lockUnlock(LockState s) {
        s.mutex.runExclusively(s.empty);
    }

    /** The physical floor: a successful CAS 0 -> 1 and a release store of 0. Returns the CAS outcome. */
    @Benchmark
    public boolean casThenReleaseStore(FlagState s) {
        boolean acquired = FlagState.FLAG.compareAndSet(s, 0, 1);
        FlagState.FLAG.setRelease(s, 0);
        return acquired;
    }
}
