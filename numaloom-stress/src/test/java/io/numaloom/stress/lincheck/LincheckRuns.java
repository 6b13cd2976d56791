package io.numaloom.stress.lincheck;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;

/**
 * The model-checking budget, the same for every lock so that a planted bug is caught with the budget the real
 * lock is checked with. Each iteration is one random scenario of {@value #THREADS} threads with
 * {@value #ACTORS_PER_THREAD} operations each (plus one before and one after); each invocation explores one
 * interleaving of it. CI runs the defaults; {@code -Pstress} raises them through the system properties
 * {@code numaloom.lincheck.iterations} and {@code numaloom.lincheck.invocations}.
 */
final class LincheckRuns {
    private LincheckRuns() {}

    static final int THREADS = 2;
    static final int ACTORS_PER_THREAD = 3;

    static int iterations() {
        return Integer.getInteger("numaloom.lincheck.iterations", 10);
    }

    static int invocations() {
        return Integer.getInteger("numaloom.lincheck.invocations", 300);
    }

    static ModelCheckingOptions options() {
        return new ModelCheckingOptions()
                .iterations(iterations())
                .invocationsPerIteration(invocations())
                .threads(THREADS)
                .actorsPerThread(ACTORS_PER_THREAD)
                .actorsBefore(1)
                .actorsAfter(1);
    }

    /**
     * Loop iterations after which Lincheck declares a thread hung (its default is 50). {@code KeyedLock}'s
     * {@code releaseIdleKeys()} visits every bucket of its table, 64 while it holds a few keys, in one loop that
     * makes progress at each step: the keyed tests allow {@value} iterations.
     */
    static final int KEYED_LOOP_BOUND = 200;

    /**
     * {@link #options()} for the keyed tests, real and planted alike: a loop may run to {@link #KEYED_LOOP_BOUND}.
     */
    static ModelCheckingOptions keyedOptions() {
        return options().loopBound(KEYED_LOOP_BOUND);
    }

    /** How many times {@link #iterations()} the deflation race alone ({@link KeyDeflation}) explores. */
    static final int DEFLATION_ITERATIONS_FACTOR = 2;

    /**
     * The keyed budget with {@value #DEFLATION_ITERATIONS_FACTOR} times the scenarios: the one-key deflation race
     * found the hole of commit c06e0b7's {@code KeyedLock} within 20 scenarios, the CI budget before the default
     * went to 10, so that CI still explores as many of its scenarios as it did when it found it.
     */
    static ModelCheckingOptions deflationOptions() {
        return keyedOptions().iterations(DEFLATION_ITERATIONS_FACTOR * iterations());
    }

    /**
     * A queue per Lincheck thread: Lincheck names its threads {@code Lincheck-<test>-<index>}; thread 0 (and the
     * main thread, which runs the parts before and after the parallel one) gets queue 0, thread 1 queue 1. The
     * choice must be deterministic so that Lincheck can replay an interleaving.
     */
    static int queueOfCurrentThread() {
        String name = Thread.currentThread().getName();
        return name.endsWith("-1") ? 1 : 0;
    }

    /** How many times {@link #invocations()} each of {@link KeyPairCounters}' fixed scenarios explores. */
    static final int KEY_PAIR_INVOCATIONS_FACTOR = 3;

    /**
     * The budget of {@link KeyPairCounters}, real and planted alike: no random scenarios, but its three fixed ones
     * ({@link KeyPairCounters#addScenarios}), each explored in {@value #KEY_PAIR_INVOCATIONS_FACTOR} times
     * {@link #invocations()} interleavings (900 in CI, 3000 under {@code -Pstress}). Its race needs two context
     * switches at narrow places (the holder between its thin hold of key 0 and its lock of key 1, the inflater
     * between freeing the holder's node and reading it), which random scenarios of three operations per thread
     * leave to chance: 30 of them with 300 interleavings each missed the planted bug and took 100 s on
     * {@code KeyedLock}; one operation per thread makes the executions short enough for the interleavings to reach
     * them.
     */
    static ModelCheckingOptions keyPairOptions() {
        ModelCheckingOptions options = new ModelCheckingOptions()
                .iterations(0)
                .invocationsPerIteration(KEY_PAIR_INVOCATIONS_FACTOR * invocations())
                .threads(THREADS)
                .loopBound(KEYED_LOOP_BOUND);
        KeyPairCounters.addScenarios(options);
        return options;
    }
}
