package io.numaloom.bench.api;

import io.numaloom.bench.Mutex;

import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * Every lock of the bench, by name, for your own benchmarks: a {@code @Param}-friendly factory.
 *
 * <pre>
 * &#64;State(Scope.Benchmark)
 * public class MyBenchmark {
 *     &#64;Param({"VNA", "UNFAIR_REENTRANT", "FAIR_REENTRANT", "MCS"}) public String lock;
 *     private Lock l;
 *     &#64;Setup public void setUp() { l = Locks.create(lock); }
 *     &#64;Benchmark public void section() { l.lock(); try { ... } finally { l.unlock(); } }
 * }
 * </pre>
 *
 * <p>{@link #create(String)} knows {@link #names()}: numaloom's {@code VnaLock} ({@code VNA}, and {@code VNA_2_Q} with a
 * queue per socket), the JDK's {@code ReentrantLock} ({@code UNFAIR_REENTRANT}, {@code FAIR_REENTRANT}, and {@code
 * UNFAIR_REENTRANT_TWIN}, the reference measured twice: what a lock that ties it reads in this run) and the bench's
 * baselines (MCS, CLH, ticket, TTAS, TAS, their NUMA-aware relatives, SHFL...), each new and unlocked. The baselines are
 * research locks of the bench, not for production; some have no conditions ({@link Lock#newCondition()} throws).
 *
 * <p>{@value #SYNCHRONIZED} is not a {@link Lock}: a {@code synchronized} block has no separate lock and unlock in Java,
 * so no adapter could be one. {@link #mutex(String)} covers it too, as a section runner: {@code
 * mutex.runExclusively(section)} is {@code synchronized (monitor) { section.run(); }} for it and {@code lock(); try {
 * section.run(); } finally { unlock(); }} for the others, which is how the bench measures them side by side.
 */
public final class Locks {
    /** The intrinsic monitor: a name of {@link #mutexNames()}, not of {@link #names()}. */
    public static final String SYNCHRONIZED = io.numaloom.bench.locks.Locks.SYNCHRONIZED;

    private Locks() {}

    /** Every name {@link #create(String)} accepts, in a stable order: numaloom's, the JDK's, then the baselines. */
    public static List<String> names() {
        return io.numaloom.bench.locks.Locks.names();
    }

    /** Every name {@link #mutex(String)} accepts: {@link #names()} and {@value #SYNCHRONIZED}. */
    public static List<String> mutexNames() {
        return Mutex.names();
    }

    /**
     * A new, unlocked lock of the named kind.
     *
     * @throws IllegalArgumentException for an unknown name (the message lists {@link #names()}), and for {@value
     *         #SYNCHRONIZED}, which is not a {@link Lock} (the message says to use {@link #mutex(String)})
     */
    public static Lock create(String name) {
        if (SYNCHRONIZED.equals(name)) {
            throw new IllegalArgumentException(SYNCHRONIZED + " is the intrinsic monitor, not a java.util.concurrent.locks.Lock "
                    + "(a synchronized block has no separate lock and unlock); use Locks.mutex(\"" + SYNCHRONIZED + "\")"
                    + ".runExclusively(section), or a synchronized block");
        }
        if (name == null || !names().contains(name)) {
            throw new IllegalArgumentException("unknown lock " + (name == null ? "null" : "'" + name + "'") + "; Locks.create knows: "
                    + String.join(", ", names()) + " (and Locks.mutex also " + SYNCHRONIZED + ")");
        }
        return io.numaloom.bench.locks.Locks.create(name);
    }

    /**
     * A new, unheld mutex of the named kind, every lock of {@link #create(String)} and {@value #SYNCHRONIZED}: run a
     * section holding it with {@link Mutex#runExclusively(Runnable)} (a section kept in a field allocates nothing per
     * call).
     *
     * @throws IllegalArgumentException for an unknown name; the message lists {@link #mutexNames()}
     */
    public static Mutex mutex(String name) {
        if (name == null || !mutexNames().contains(name)) {
            throw new IllegalArgumentException("unknown lock " + (name == null ? "null" : "'" + name + "'") + "; Locks.mutex knows: "
                    + String.join(", ", mutexNames()));
        }
        return Mutex.create(name);
    }
}
