package io.numaloom.bench.jmh.counter;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Acquire, do some work while holding, release: a less extreme load than {@link AcquireReleasePair},
 * closer to a real downcall, where the counter's share of the time shrinks as the work grows, unless it
 * does not scale. Variants and threads as in {@link AcquireReleasePair}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class AcquireWorkRelease {

    @State(Scope.Benchmark)
    public static class Work {
        /**
         * The work while holding, in {@link Blackhole#consumeCPU} tokens (each a few cycles of
         * arithmetic that touches no shared memory): 20 is a short native call, 200 a longer one.
         */
        @Param({"20", "200"})
        public long tokens;
    }

    @Benchmark
    public void closeableAcquireCounter(Counters c, Work w) {
        int t = c.lazy.tryAcquire();
        Blackhole.consumeCPU(w.tokens);
        c.lazy.release(t);
    }

    @Benchmark
    public void closeableAcquireCounterStriped(Counters c, Work w) {
        int t = c.striped.tryAcquire();
        Blackhole.consumeCPU(w.tokens);
        c.striped.release(t);
    }

    @Benchmark
    public void singleCas(Counters c, Work w) {
        int t = c.singleCas.tryAcquire();
        Blackhole.consumeCPU(w.tokens);
        c.singleCas.release(t);
    }

    @Benchmark
    public void stampedLock(Counters c, Work w) {
        int t = c.stampedLock.tryAcquire();
        Blackhole.consumeCPU(w.tokens);
        c.stampedLock.release(t);
    }

    @Benchmark
    public void longAdderPair(Counters c, Work w) {
        int t = c.longAdderPair.tryAcquire();
        Blackhole.consumeCPU(w.tokens);
        c.longAdderPair.release(t);
    }

    @Benchmark
    public void refCountStepTwo(Counters c, Work w) {
        int t = c.stepTwo.tryAcquire();
        Blackhole.consumeCPU(w.tokens);
        c.stepTwo.release(t);
    }
}
