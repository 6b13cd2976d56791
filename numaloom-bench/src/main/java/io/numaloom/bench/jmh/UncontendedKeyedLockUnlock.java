package io.numaloom.bench.jmh;

import com.google.common.util.concurrent.Striped;
import io.numaloom.KeyedLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Arrays;
import java.util.Collections;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The cost of an uncontended {@code lock(key)/unlock(key)} pair, for the ways Java code gets "a lock per key",
 * cycling over {@link #keyCount} keys in a shuffled order (boxed once, so the keys themselves allocate nothing):
 * 64 recurring keys, or 65,536, more than {@code KeyedLock}'s default budget of 1024 idle keys and more than its
 * threads' admission filters remember, so that each of its pairs locks a key not seen lately, which it holds thin
 * (no record bound, none released), as in the {@code sync-many-keys} bench of {@code configs/keyed.json}, on one
 * thread:
 * <ul>
 * <li>{@code KEYED_LOCK}: {@link KeyedLock}, exact per key; the 64 keys get records at their second lock and stay
 *     bound while idle (its default budget is 1024 idle keys), so a pair is a lookup and a CAS to lock, a lookup
 *     and a store to unlock;
 * <li>{@code STRIPED}: Guava's {@code Striped.lock(64)}, 64 {@code ReentrantLock}s chosen by hash: cheap, but
 *     keys that share a stripe exclude each other (and can deadlock when a thread holds two);
 * <li>{@code LAZY_WEAK_STRIPED}: Guava's {@code Striped.lazyWeakLock(1024)}, stripes created on demand and
 *     weakly held;
 * <li>{@code MAP_OF_LOCKS}: a {@code ConcurrentHashMap<K, ReentrantLock>} filled by {@code computeIfAbsent}
 *     and never emptied: exact and fast, but it keeps a lock for every key ever seen (a leak; removing safely
 *     needs a protocol like KeyedLock's).
 * </ul>
 * Run with {@code -prof gc}: {@code gc.alloc.rate.norm} is the allocation per pair.
 *
 * <pre>{@code
 * ./numaloom jmh UncontendedKeyedLockUnlock -prof gc
 * }</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class UncontendedKeyedLockUnlock {

    /**
     * Keys cycled through; a power of two. 64: they stay bound in a {@code KeyedLock} while idle. 65536: each
     * {@code KeyedLock} pair holds its key thin; the map of locks grows to 65,536 locks.
     */
    @Param({"64", "65536"})
    public int keyCount;

    /** Which way of locking per key. */
    @Param({"KEYED_LOCK", "STRIPED", "LAZY_WEAK_STRIPED", "MAP_OF_LOCKS"})
    public String scheme;

    private PerKey locks;
    private Integer[] keys;
    private int next;

    /**
     * Lock and unlock by key, whatever the scheme. {@code lock} returns what {@code unlock} needs: the stripe
     * or map entry it locked (asking a lazy weak {@code Striped} again at unlock may return a new lock if the
     * first one was collected while held, and unlocking that one throws).
     */
    interface PerKey {
        Object lock(Integer key);

        void unlock(Integer key, Object locked);
    }

    @Setup
    public void create() {
        if (Integer.bitCount(keyCount) != 1) {
            throw new IllegalArgumentException("keyCount must be a power of two, got " + keyCount);
        }
        keys = new Integer[keyCount];
        for (int i = 0; i < keyCount; i++) {
            keys[i] = 1_000 + i;
        }
        Collections.shuffle(Arrays.asList(keys), new Random(42)); // no bucket order to help a scheme's caches
        locks = switch (scheme) {
            case "KEYED_LOCK" -> keyed(new KeyedLock<>());
            case "STRIPED" -> striped(Striped.lock(64));
            case "LAZY_WEAK_STRIPED" -> striped(Striped.lazyWeakLock(1024));
            case "MAP_OF_LOCKS" -> mapOfLocks(new ConcurrentHashMap<>());
            default -> throw new IllegalArgumentException("unknown scheme '" + scheme
                    + "'; known: KEYED_LOCK, STRIPED, LAZY_WEAK_STRIPED, MAP_OF_LOCKS");
        };
    }

    private static PerKey keyed(KeyedLock<Integer> k) {
        return new PerKey() {
            @Override public Object lock(Integer key) { k.lock(key); return key; }
            @Override public void unlock(Integer key, Object locked) { k.unlock(key); }
        };
    }

    private static PerKey striped(Striped<Lock> s) {
        return new PerKey() {
            @Override public Object lock(Integer key) { Lock l = s.get(key); l.lock(); return l; }
            @Override public void unlock(Integer key, Object locked) { ((Lock) locked).unlock(); }
        };
    }

    private static PerKey mapOfLocks(ConcurrentHashMap<Integer, ReentrantLock> m) {
        return new PerKey() {
            @Override public Object lock(Integer key) {
                ReentrantLock l = m.computeIfAbsent(key, x -> new ReentrantLock());
                l.lock();
                return l;
            }
            @Override public void unlock(Integer key, Object locked) { ((ReentrantLock) locked).unlock(); }
        };
    }

    @Benchmark
    public void lockUnlock() {
        Integer key = keys[next++ & (keyCount - 1)];
        locks.unlock(key, locks.lock(key));
    }
}
