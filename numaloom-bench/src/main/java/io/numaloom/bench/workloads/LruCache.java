package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;
import org.openjdk.jmh.infra.Blackhole;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code cache} workload: an LRU cache shared by every thread, a {@link LinkedHashMap} in access order that
 * evicts its eldest entry beyond {@code capacity}, under one lock, as applications build a small cache without a
 * caching library. Gets and puts both take the lock (an access-order get moves the entry to the tail, so a get
 * writes too), with keys drawn with Zipf skew, so a few hot keys take most of the traffic.
 *
 * <p>Measured: operations (gets and puts) per millisecond, and the acquire latency of each operation's lock, as
 * the other workloads record it ({@link Worker#locked}).
 *
 * <p>Parameters:
 * <ul>
 * <li>{@code actionsCount}: operations per round, split evenly over the threads;</li>
 * <li>{@code capacity}: the entries the cache holds before it evicts;</li>
 * <li>{@code keys}: distinct keys, of which the {@code capacity} hottest are cached when a round starts;</li>
 * <li>{@code zipfPercent}: key skew, the Zipf exponent times 100 (0 uniform, 99 as YCSB's 0.99), drawn as the
 *     {@code keyed} workload draws its keys ({@link Keyed#draw});</li>
 * <li>{@code getPercent}: percent of the operations that are gets, the rest puts (90: a read-mostly cache);</li>
 * <li>{@code beforeCpuTokens}: {@code Blackhole.consumeCPU} work outside the lock before each operation.</li>
 * </ul>
 * The sequence of keys and of gets and puts is drawn once per measured JVM from fixed seeds, untimed, so every
 * lock and thread count sees the same operations.
 *
 * <p>Check: the gets, hits, misses and puts are counted under the lock; {@link Round#verify()} requires the gets
 * and puts to add up to the sequence's, the hits and misses to the gets, at most {@code capacity} entries, each
 * mapping its key to itself, and an iteration over the map that sees exactly {@code size()} entries (a map torn by
 * two holders at once breaks its links). The region's count of acquisitions is checked as for every workload.
 */
public final class LruCache implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 400_000L, "cache operations (gets and puts) in total, split evenly over the threads"),
            Field.intField("capacity", 1, 1_000, "entries the LRU map holds before it evicts its least recently used"),
            Field.intField("keys", 1, 10_000, "distinct keys"),
            Field.intField("zipfPercent", 0, 99, "key skew: the Zipf exponent times 100 (0 uniform, 99 as YCSB's 0.99)"),
            Field.intField("getPercent", 0, 90, "percent of the operations that are gets (at most 100), the rest puts"),
            Field.longField("beforeCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens outside the lock before each operation"));

    /** The seed of the get/put sequence (the keys use {@link Keyed#SEED}). */
    static final long OPS_SEED = 0x6361_6368_65L;

    private final long actions;
    private final int capacity;
    private final long beforeTokens;
    /** Canonical key objects; a key's value is the key itself. */
    private final Integer[] keys;
    /** Per operation: the key index shifted left by one, plus one for a put. */
    private final int[] sequence;
    private final long expectedGets;

    public LruCache(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.capacity = settings.getInt("capacity");
        this.beforeTokens = settings.getLong("beforeCpuTokens");
        int keyCount = settings.getInt("keys");
        int getPercent = settings.getInt("getPercent");
        if (actions > Keyed.MAX_ACTIONS) {
            throw new IllegalArgumentException("cache: actionsCount " + actions + " is over " + Keyed.MAX_ACTIONS);
        }
        if (keyCount > Keyed.MAX_KEYS) {
            throw new IllegalArgumentException("cache: keys " + keyCount + " is over " + Keyed.MAX_KEYS);
        }
        this.keys = new Integer[keyCount];
        for (int k = 0; k < keyCount; k++) {
            keys[k] = Integer.valueOf(k);
        }
        this.sequence = Keyed.draw(keyCount, settings.getInt("zipfPercent"), (int) actions);
        SplittableRandom random = new SplittableRandom(OPS_SEED);
        long gets = 0;
        for (int i = 0; i < sequence.length; i++) {
            boolean get = random.nextInt(100) < getPercent;
            gets += get ? 1 : 0;
            sequence[i] = sequence[i] << 1 | (get ? 0 : 1);
        }
        this.expectedGets = gets;
    }

    /** The cache and its counters; everything is guarded by the region's mutex. */
    static final class Cache {
        final LinkedHashMap<Integer, Integer> map;
        final int capacity;
        long gets;
        long hits;
        long misses;
        long puts;

        Cache(int capacity) {
            this.capacity = capacity;
            this.map = new LinkedHashMap<>(Math.max(16, (int) (capacity / 0.75f) + 1), 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Integer, Integer> eldest) {
                    return size() > Cache.this.capacity;
                }
            };
        }
    }

    /** One thread's operation: the key and kind are set before each acquisition. */
    private static final class Operation implements Runnable {
        private final Cache cache;
        Integer key;
        boolean put;

        Operation(Cache cache) {
            this.cache = cache;
        }

        @Override
        public void run() {
            if (put) {
                cache.map.put(key, key);
                cache.puts++;
            } else {
                cache.gets++;
                if (cache.map.get(key) != null) {
                    cache.hits++;
                } else {
                    cache.misses++;
                }
            }
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        GuardedRegion region = context.newRegion();
        Cache cache = new Cache(capacity);
        for (int k = Math.min(capacity, keys.length) - 1; k >= 0; k--) {
            cache.map.put(keys[k], keys[k]); // the hottest keys, the hottest most recently used
        }
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                Operation op = new Operation(cache);
                long from = worker.shareStart(actions);
                long to = from + worker.share(actions);
                for (long i = from; i < to; i++) {
                    Blackhole.consumeCPU(beforeTokens);
                    int code = sequence[(int) i];
                    op.key = keys[code >>> 1];
                    op.put = (code & 1) != 0;
                    worker.locked(region, op);
                    worker.completed();
                }
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public List<GuardedRegion> regions() {
                return List.of(region);
            }

            @Override
            public void verify() {
                verifyCache(cache, expectedGets, actions - expectedGets, context.lockName());
            }
        };
    }

    /**
     * Checks the cache after a round of {@code gets} gets and {@code puts} puts.
     *
     * @throws IllegalStateException naming the first inconsistency and the lock
     */
    static void verifyCache(Cache cache, long gets, long puts, String lock) {
        if (cache.gets != gets || cache.puts != puts) {
            throw new IllegalStateException("cache: counted " + cache.gets + " gets and " + cache.puts + " puts, the sequence has "
                    + gets + " and " + puts + ": an update was lost, " + lock + " let two threads in");
        }
        if (cache.hits + cache.misses != cache.gets) {
            throw new IllegalStateException("cache: " + cache.hits + " hits and " + cache.misses + " misses do not add up to "
                    + cache.gets + " gets: an update was lost, " + lock + " let two threads in");
        }
        int size = cache.map.size();
        if (size > cache.capacity) {
            throw new IllegalStateException("cache: " + size + " entries in a cache of capacity " + cache.capacity
                    + ": an eviction was lost (" + lock + ")");
        }
        int seen = 0;
        for (Map.Entry<Integer, Integer> e : cache.map.entrySet()) {
            if (e.getValue() != e.getKey()) {
                throw new IllegalStateException("cache: key " + e.getKey() + " maps to " + e.getValue()
                        + ", not to itself: the map was torn (" + lock + ")");
            }
            if (++seen > size) {
                break;
            }
        }
        if (seen != size) {
            throw new IllegalStateException("cache: iterating the map saw " + seen + " entries, its size is " + size
                    + ": its links were torn, " + lock + " let two threads in");
        }
    }
}
