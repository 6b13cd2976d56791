package io.numaloom.bench.jmh.counter;

import io.numaloom.counter.CloseResult;
import io.numaloom.counter.CloseableAcquireCounter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How long {@code tryClose} takes.
 *
 * <ul>
 * <li><b>Idle</b> ({@code closeNew*}): a close that succeeds can happen once per counter, so each
 *     operation creates a counter and closes it; {@code new*} measures the creation alone, and the
 *     difference is the close. {@code Striped} counters have every stripe, so their close claims and
 *     commits all of them.
 * <li><b>Busy</b> ({@code busy*}): one acquisition is held for the whole trial, so every close ends
 *     {@code BUSY}, changes nothing, and can be repeated on the same counter. On the lazy counter the
 *     holder is on the base word, the first word a close claims, so the close fails at once; on
 *     {@code busyLastStripe} every stripe exists and the holder's is the last, so each close claims the
 *     base and all other stripes and puts them back: the worst case.
 * <li><b>Under load</b> ({@code underLoad*} groups): one thread closes a held counter over and over while
 *     the other threads of the group acquire and release on it; JMH reports both sides, so this also shows
 *     what a stream of failing closes costs the acquirers (who wait while a close is in progress).
 *     Group threads: {@code -tg 1,N}.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class TryCloseLatency {

    // ---------------------------------------------------------------------------------------- idle

    @Benchmark
    public CloseableAcquireCounter newLazy() {
        return new CloseableAcquireCounter();
    }

    @Benchmark
    public CloseResult closeNewLazy() {
        return new CloseableAcquireCounter().tryClose();
    }

    @Benchmark
    public CloseableAcquireCounter newStriped() {
        return CloseableAcquireCounter.striped();
    }

    @Benchmark
    public CloseResult closeNewStriped() {
        return CloseableAcquireCounter.striped().tryClose();
    }

    @Benchmark
    public Object newSingleCas() {
        return new SingleCasCounter();
    }

    @Benchmark
    public boolean closeNewSingleCas() {
        return new SingleCasCounter().tryClose();
    }

    // ---------------------------------------------------------------------------------------- busy

    /** Counters with one acquisition held by the setup thread for the whole trial. */
    @State(Scope.Benchmark)
    public static class Held {
        CloseableAcquireCounter lazy;
        SingleCasCounter singleCas;

        @Setup
        public void hold() {
            lazy = new CloseableAcquireCounter();
            lazy.tryAcquire();
            singleCas = new SingleCasCounter();
            singleCas.tryAcquire();
        }
    }

    /** A counter with {@code stripes} stripes, all created, and one acquisition held on the last. */
    @State(Scope.Benchmark)
    public static class HeldOnLastStripe {
        /** Stripes the close has to claim and put back before it reaches the held one. */
        @Param({"8", "64"})
        public int stripes;

        CloseableAcquireCounter counter;
        private int home;

        @Setup
        public void hold() {
            counter = CloseableAcquireCounter.withPlacement(stripes, () -> home);
            for (home = 0; home < stripes - 1; home++) {
                counter.release(counter.tryAcquire());   // creates stripe `home`
            }
            counter.tryAcquire();   // held on the last stripe
        }
    }

    @Benchmark
    public CloseResult busyLazy(Held h) {
        return h.lazy.tryClose();
    }

    @Benchmark
    public CloseResult busyLastStripe(HeldOnLastStripe h) {
        return h.counter.tryClose();
    }

    @Benchmark
    public boolean busySingleCas(Held h) {
        return h.singleCas.tryClose();
    }

    // ---------------------------------------------------------------------------------- under load

    @Benchmark
    @Group("underLoad")
    @GroupThreads(1)
    public CloseResult underLoadClose(Held h) {
        return h.lazy.tryClose();
    }

    @Benchmark
    @Group("underLoad")
    @GroupThreads(1)
    public void underLoadAcquireRelease(Held h) {
        h.lazy.release(h.lazy.tryAcquire());
    }

    @Benchmark
    @Group("underLoadSingleCas")
    @GroupThreads(1)
    public boolean underLoadSingleCasClose(Held h) {
        return h.singleCas.tryClose();
    }

    @Benchmark
    @Group("underLoadSingleCas")
    @GroupThreads(1)
    public void underLoadSingleCasAcquireRelease(Held h) {
        h.singleCas.release(h.singleCas.tryAcquire());
    }
}
