package io.numaloom.bench.jmh.counter;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Seed 003's scenario on this machine: a downcall to the C library's {@code strlen} on a short string in
 * a {@link MemorySegment}, by the arena the segment comes from. The JDK acquires and releases the
 * segment's session around the call; for a segment of {@link Arena#ofShared()} that is the one CAS word
 * that {@code CloseableAcquireCounter} replaces, shared by every thread that calls with a segment of that
 * arena. {@link Arena#global()} and {@link Arena#ofAuto()} sessions cannot be closed explicitly and do
 * not count acquisitions; a confined arena (one per thread) counts without atomics. So
 * {@code shared - global} is the JDK's acquire/release overhead, at one thread and as threads are added
 * ({@code -t}, or {@link CounterThreadSweep}). No C compiler is needed: {@code strlen} is found by
 * {@code Linker.nativeLinker().defaultLookup()}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class StrlenDowncallByArena {

    private static final String TEXT = "numaloom";

    private static final MethodHandle STRLEN = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("strlen").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, ADDRESS));

    /** Segments shared by all benchmark threads. */
    @State(Scope.Benchmark)
    public static class Shared {
        Arena sharedArena;
        MemorySegment global;
        MemorySegment shared;
        MemorySegment auto;

        @Setup(Level.Trial)
        public void allocate() {
            sharedArena = Arena.ofShared();
            global = Arena.global().allocateFrom(TEXT);
            shared = sharedArena.allocateFrom(TEXT);
            auto = Arena.ofAuto().allocateFrom(TEXT);
        }

        @TearDown(Level.Trial)
        public void close() {
            sharedArena.close();
        }
    }

    /** A confined arena per benchmark thread, created and closed by that thread. */
    @State(Scope.Thread)
    public static class Confined {
        Arena arena;
        MemorySegment segment;

        @Setup(Level.Trial)
        public void allocate() {
            arena = Arena.ofConfined();
            segment = arena.allocateFrom(TEXT);
        }

        @TearDown(Level.Trial)
        public void close() {
            arena.close();
        }
    }

    @Benchmark
    public long global(Shared s) throws Throwable {
        return (long) STRLEN.invokeExact(s.global);
    }

    @Benchmark
    public long shared(Shared s) throws Throwable {
        return (long) STRLEN.invokeExact(s.shared);
    }

    @Benchmark
    public long auto(Shared s) throws Throwable {
        return (long) STRLEN.invokeExact(s.auto);
    }

    @Benchmark
    public long confined(Confined s) throws Throwable {
        return (long) STRLEN.invokeExact(s.segment);
    }
}
