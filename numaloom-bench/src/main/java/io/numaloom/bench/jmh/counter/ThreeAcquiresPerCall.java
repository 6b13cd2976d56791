package io.numaloom.bench.jmh.counter;

import io.numaloom.counter.CloseableAcquireCounter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Three acquisitions, then three releases, per operation: what one downcall that passes three segments
 * of the same shared arena does to the arena's session, as in the JDK's
 * {@code CallOverheadConstant.panama_identity_memory_address_shared_3}. The score is per
 * operation, that is per three pairs. Variants and threads as in {@link AcquireReleasePair}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class ThreeAcquiresPerCall {

    private static void three(CloseableAcquireCounter c) {
        int a = c.tryAcquire();
        int b = c.tryAcquire();
        int d = c.tryAcquire();
        c.release(d);
        c.release(b);
        c.release(a);
    }

    @Benchmark
    public void closeableAcquireCounter(Counters c) {
        three(c.lazy);
    }

    @Benchmark
    public void closeableAcquireCounterStriped(Counters c) {
        three(c.striped);
    }

    @Benchmark
    public void singleCas(Counters c) {
        SingleCasCounter s = c.singleCas;
        int a = s.tryAcquire();
        int b = s.tryAcquire();
        int d = s.tryAcquire();
        s.release(d);
        s.release(b);
        s.release(a);
    }

    @Benchmark
    public void stampedLock(Counters c) {
        StampedLockCounter s = c.stampedLock;
        int a = s.tryAcquire();
        int b = s.tryAcquire();
        int d = s.tryAcquire();
        s.release(d);
        s.release(b);
        s.release(a);
    }

    @Benchmark
    public void longAdderPair(Counters c) {
        LongAdderPairCounter s = c.longAdderPair;
        int a = s.tryAcquire();
        int b = s.tryAcquire();
        int d = s.tryAcquire();
        s.release(d);
        s.release(b);
        s.release(a);
    }

    @Benchmark
    public void refCountStepTwo(Counters c) {
        StepTwoRefCount s = c.stepTwo;
        int a = s.tryAcquire();
        int b = s.tryAcquire();
        int d = s.tryAcquire();
        s.release(d);
        s.release(b);
        s.release(a);
    }
}
