package io.numaloom.bench.jmh.counter;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The time of one acquire+release pair on a counter that every benchmark thread shares, with nothing
 * in between: the worst case of the panama-dev thread on shared-arena scaling (December 2025), where the session counter of a shared arena is the whole
 * cost. At one thread this is the uncontended fast path ({@code CloseableAcquireCounter} must stay
 * within about 2 ns of {@code singleCas}); with more threads it shows whether the counter scales.
 *
 * <p>Variants, one method each so every call site is monomorphic and direct:
 * {@code closeableAcquireCounter} (numaloom, lazy), {@code closeableAcquireCounterStriped} (numaloom,
 * stripes created up front), {@code singleCas} (the JDK's one CAS word), {@code stampedLock}
 * (read lock per acquisition), {@code longAdderPair} (two adders and a closing state),
 * {@code refCountStepTwo} (fetch-and-add by two, closed bit).
 *
 * <p>Threads: JMH's {@code -t} (1, 2, 4 ... N), or {@link CounterThreadSweep} for the whole series;
 * virtual threads with {@code -jvmArgsAppend -Djmh.executor=VIRTUAL}.
 *
 * <pre>{@code
 * java -cp numaloom-bench/target/numaloom-bench.jar org.openjdk.jmh.Main AcquireReleasePair -t 2
 * java -cp numaloom-bench/target/numaloom-bench.jar io.numaloom.bench.jmh.counter.CounterThreadSweep AcquireReleasePair
 * }</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class AcquireReleasePair {

    @Benchmark
    public void closeableAcquireCounter(Counters c) {
        c.lazy.release(c.lazy.tryAcquire());
    }

    @Benchmark
    public void closeableAcquireCounterStriped(Counters c) {
        c.striped.release(c.striped.tryAcquire());
    }

    @Benchmark
    public void singleCas(Counters c) {
        c.singleCas.release(c.singleCas.tryAcquire());
    }

    @Benchmark
    public void stampedLock(Counters c) {
        c.stampedLock.release(c.stampedLock.tryAcquire());
    }

    @Benchmark
    public void longAdderPair(Counters c) {
        c.longAdderPair.release(c.longAdderPair.tryAcquire());
    }

    @Benchmark
    public void refCountStepTwo(Counters c) {
        c.stepTwo.release(c.stepTwo.tryAcquire());
    }
}
