package io.numaloom.bench.jmh;

import io.numaloom.bench.Mutex;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * Lock and unlock under contention: every benchmark thread loops over {@code lock(); work;
 * unlock(); work}. Run it with {@code -prof gc} to see what a contended acquisition allocates
 * ({@code gc.alloc.rate.norm}, bytes per operation): queue nodes should be reused, so steady
 * state allocates (near) nothing. Throughput numbers on a 2-core machine say little about NUMA;
 * they show the cost of the waiting discipline (parking, wake-ups, handoffs).
 *
 * <p>Parameters: {@code lock} is any name {@link Mutex#create} accepts (the registry's locks and
 * {@code SYNCHRONIZED}); {@code inside} and {@code outside}
 * are {@link Blackhole#consumeCPU} tokens of work inside and outside the critical section
 * (about 1-2 ns each). Threads default to 4, twice the cores of the reference machine, so
 * that waiters really queue; override with {@code -t}. Add
 * {@code -jvmArgsAppend -Djmh.executor=VIRTUAL} to run the benchmark threads as virtual
 * threads, and {@code -jvmArgsAppend -Dnumaloom.topology=nodes=2} to use two queues.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(4)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class ContendedLockUnlock {

    @Param({"VNA", "UNFAIR_REENTRANT", "FAIR_REENTRANT"})
    public String lock;

    @Param("50")
    public int inside;

    @Param("200")
    public int outside;

    private Mutex mutex;
    private Runnable section;

    @Setup(Level.Trial)
    public void create() {
        mutex = Mutex.create(lock);
        int tokens = inside;
        section = () -> Blackhole.consumeCPU(tokens); // created once: no allocation per operation
    }

    @Benchmark
    public void lockWorkUnlock() {
        mutex.runExclusively(section);
        Blackhole.consumeCPU(outside);
    }
}
