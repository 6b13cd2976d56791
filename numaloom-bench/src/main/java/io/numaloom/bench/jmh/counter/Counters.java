package io.numaloom.bench.jmh.counter;

import io.numaloom.counter.CloseableAcquireCounter;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One counter of every variant, shared by all benchmark threads (that sharing is the contention being
 * measured). Each benchmark method uses one variant, so in each fork only one is hot. Created fresh for
 * every trial (fork), so a lazy {@link CloseableAcquireCounter} starts as one word and inflates only if
 * the measured threads contend.
 */
@State(Scope.Benchmark)
public class Counters {
    /** numaloom, lazy: one CAS word until the first contention, then stripes. */
    CloseableAcquireCounter lazy;
    /** numaloom, every stripe created up front ({@link CloseableAcquireCounter#striped()}). */
    CloseableAcquireCounter striped;
    SingleCasCounter singleCas;
    StampedLockCounter stampedLock;
    LongAdderPairCounter longAdderPair;
    StepTwoRefCount stepTwo;

    @Setup
    public void create() {
        lazy = new CloseableAcquireCounter();
        striped = CloseableAcquireCounter.striped();
        singleCas = new SingleCasCounter();
        stampedLock = new StampedLockCounter();
        longAdderPair = new LongAdderPairCounter();
        stepTwo = new StepTwoRefCount();
    }
}
