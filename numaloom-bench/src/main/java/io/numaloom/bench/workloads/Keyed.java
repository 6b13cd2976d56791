package io.numaloom.bench.workloads;

import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;
import io.numaloom.bench.locks.KeyedSchemes.KeyedScheme;
import io.numaloom.bench.locks.KeyedSchemes;
import org.apache.commons.math3.distribution.ZipfDistribution;
import org.apache.commons.math3.random.Well19937c;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Locking by key: {@code actionsCount} operations, each taking the lock of one of {@code keys} keys, drawn with
 * Zipf skew, through one of the {@link KeyedSchemes} (the bench's lock names for this workload). Inside, the
 * operation burns {@code inCpuTokens} and steps the key's own counter; outside, it burns {@code beforeCpuTokens}.
 * Dice's three Relaxed-Lock workloads (JVM '01, §4) become keyed ones by their settings: no work at all is
 * RandBash over keys (handover and lookup cost), equal work inside and outside is Contend over keys, and many
 * uniform keys is Sync over keys (almost every acquisition uncontended, so the lookup, binding and unbinding
 * are what is measured).
 *
 * <p>The key sequence is drawn once per measured JVM, untimed, from a fixed seed: Zipf with exponent
 * {@code zipfPercent / 100} over ranks 1..keys (Apache Commons Math's rejection-inversion sampler), or uniform
 * for 0; rank r is the r-th canonical key {@code "key-" + (r - 1)}. Every thread takes its share of that one
 * sequence, so every scheme and thread count locks the same keys. Keys are canonical objects (one instance per
 * key, as {@code String.intern()} gives) because {@code SYNCHRONIZED_CANONICAL} needs them; the other schemes
 * look them up by {@code equals} all the same.
 *
 * <p>{@link Round#verify()} compares each key's counter with the number of times the sequence drew the key: a
 * lost update (two holders of one key at once) fails the round. Acquisitions go through
 * {@link Worker#lockedByKey}, which records their latency as every other workload's. Adjacent keys' counters share cache lines, as
 * adjacent entries of an application's table do; that costs every scheme alike. The round's
 * {@link Round#footprint()} is the scheme, whose retained size after the last round shows what it keeps.
 */
public final class Keyed implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 400_000L, "keyed lock/unlock operations in total, split evenly over the threads"),
            Field.intField("keys", 1, 1024, "distinct keys"),
            Field.intField("zipfPercent", 0, 0, "key skew: the Zipf exponent times 100 (0 uniform, 99 as YCSB's 0.99)"),
            Field.intField("stripes", 1, 64, "stripes of GUAVA_STRIPED and GUAVA_LAZY_WEAK (ignored by the others)"),
            Field.longField("beforeCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens outside the lock"),
            Field.longField("inCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens inside the lock"));

    /** The most operations a round may have: the key sequence is drawn in advance and held as ints. */
    public static final long MAX_ACTIONS = 100_000_000L;

    /** The most keys: each is a canonical string held for the whole run (10 M are about 600 MB). */
    public static final int MAX_KEYS = 10_000_000;

    /** The seed of the key sequence: the same keys in every run. */
    static final long SEED = 0x6B65_7965_64L;

    private final long actions;
    private final int stripes;
    private final long beforeTokens;
    private final long inTokens;
    private final String[] keys;
    /** The key index of each operation, in sequence order. */
    private final int[] sequence;
    /** How often {@link #sequence} draws each key. */
    private final long[] draws;

    public Keyed(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.stripes = settings.getInt("stripes");
        this.beforeTokens = settings.getLong("beforeCpuTokens");
        this.inTokens = settings.getLong("inCpuTokens");
        int keyCount = settings.getInt("keys");
        this.keys = new String[keyCount];
        for (int k = 0; k < keyCount; k++) {
            keys[k] = "key-" + k;
        }
        if (actions > MAX_ACTIONS) {
            throw new IllegalArgumentException("keyed: actionsCount " + actions + " is over " + MAX_ACTIONS);
        }
        this.sequence = draw(keyCount, settings.getInt("zipfPercent"), (int) actions);
        this.draws = new long[keyCount];
        for (int k : sequence) {
            draws[k]++;
        }
    }

    /** {@code length} key indexes: Zipf with exponent {@code zipfPercent / 100}, uniform for 0. */
    static int[] draw(int keys, int zipfPercent, int length) {
        int[] sequence = new int[length];
        if (zipfPercent == 0) {
            SplittableRandom random = new SplittableRandom(SEED);
            for (int i = 0; i < length; i++) {
                sequence[i] = random.nextInt(keys);
            }
        } else {
            ZipfDistribution zipf = new ZipfDistribution(new Well19937c(SEED), keys, zipfPercent / 100.0);
            for (int i = 0; i < length; i++) {
                sequence[i] = zipf.sample() - 1;
            }
        }
        return sequence;
    }

    /** One thread's critical section: the key's counter step, after the inside work. */
    private static final class Step implements Runnable {
        private final long[] counters;
        private final long inTokens;
        int key;

        Step(long[] counters, long inTokens) {
            this.counters = counters;
            this.inTokens = inTokens;
        }

        @Override
        public void run() {
            Blackhole.consumeCPU(inTokens);
            counters[key]++;
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        return newRound(context, KeyedSchemes.create(context.lockName(), stripes));
    }

    /** A round through {@code scheme}, named {@code context.lockName()} in messages. */
    Round newRound(RoundContext context, KeyedScheme scheme) {
        long[] counters = new long[keys.length];
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                Step step = new Step(counters, inTokens);
                long from = worker.shareStart(actions);
                long to = from + worker.share(actions);
                for (long i = from; i < to; i++) {
                    Blackhole.consumeCPU(beforeTokens);
                    step.key = sequence[(int) i];
                    worker.lockedByKey(scheme, keys[step.key], step);
                    worker.completed();
                }
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public Object footprint() {
                return scheme.footprint();
            }

            @Override
            public void verify() {
                for (int k = 0; k < keys.length; k++) {
                    if (counters[k] != draws[k]) {
                        throw new IllegalStateException("keyed: the counter of " + keys[k] + " is " + counters[k]
                                + " after " + draws[k] + " locked steps: an update was lost, "
                                + context.lockName() + " let two holders of one key in");
                    }
                }
            }
        };
    }
}
