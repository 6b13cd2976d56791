package io.numaloom.bench.locks;

import com.google.common.util.concurrent.Striped;
import io.numaloom.KeyedLock;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;

/**
 * The registry of ways to lock by key that the {@code keyed} workload compares, by name: what Java code uses
 * today to say "lock this user id, this path, this cache key", against numaloom's {@link KeyedLock}.
 *
 * <ul>
 * <li>{@value #KEYED_LOCK}: {@code KeyedLock} with its defaults, a lock per key by {@code equals}; a key that
 *     recurs (locked again by a thread, or contended) is bound to a record and up to 1024 idle keys stay bound (a
 *     lookup and one CAS to lock them again), the others are held thin, and every idle key is released within
 *     about a second. A section runs under {@code runWithLock(key, section)}, one lookup, as the other schemes get their lock once.</li>
 * <li>{@code GUAVA_STRIPED}: Guava's {@code Striped.lock(stripes)}, {@code stripes} eager {@code ReentrantLock}s;
 *     keys that hash to one stripe share its lock (false contention, and deadlock for a thread that holds two
 *     colliding keys while another takes them in the other order).</li>
 * <li>{@code GUAVA_LAZY_WEAK}: {@code Striped.lazyWeakLock(stripes)}, stripes created on demand and held
 *     weakly; collisions as above.</li>
 * <li>{@code CHM_REENTRANT}: the hand-written registry, {@code map.computeIfAbsent(key, k -> new ReentrantLock())},
 *     exact per key and never cleaned (removing safely is the race this registry is known for): its memory grows
 *     with every key ever seen.</li>
 * <li>{@code SYNCHRONIZED_CANONICAL}: {@code synchronized (key)} on one canonical object per key (the workload
 *     hands out canonical keys, as {@code String.intern()} would); exact per key, the monitor is the JVM's. Its
 *     footprint is inside the JVM (object headers, the monitor table), so none is reported.</li>
 * </ul>
 * Each call of {@link #create(String, int)} returns a new, empty scheme.
 */
public final class KeyedSchemes {

    /** numaloom's keyed lock; the first name, the one the others are compared with. */
    public static final String KEYED_LOCK = "KEYED_LOCK";

    /** A way to lock by key: one instance per measured round. */
    public interface KeyedScheme {
        /** Runs {@code section} holding the lock of {@code key}; releases it even when the section throws. */
        void runExclusively(String key, Runnable section);

        /** The object graph that holds the scheme's per-key state, for its retained size; null if not on the heap. */
        Object footprint();
    }

    private static final Map<String, IntFunction<KeyedScheme>> FACTORIES = registry();

    private KeyedSchemes() {}

    private static Map<String, IntFunction<KeyedScheme>> registry() {
        Map<String, IntFunction<KeyedScheme>> m = new LinkedHashMap<>();
        m.put(KEYED_LOCK, stripes -> new NumaloomKeyed());
        m.put("GUAVA_STRIPED", stripes -> new GuavaStriped(Striped.lock(stripes)));
        m.put("GUAVA_LAZY_WEAK", stripes -> new GuavaStriped(Striped.lazyWeakLock(stripes)));
        m.put("CHM_REENTRANT", stripes -> new MapOfLocks());
        m.put("SYNCHRONIZED_CANONICAL", stripes -> new CanonicalMonitors());
        return Collections.unmodifiableMap(m);
    }

    /** Every name, {@value #KEYED_LOCK} first. */
    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }

    /** Whether {@code name} is a keyed scheme (and so not a {@code Mutex}). */
    public static boolean isKeyed(String name) {
        return FACTORIES.containsKey(name);
    }

    /**
     * A new, empty scheme.
     *
     * @param stripes the stripe count of the Guava schemes (ignored by the others)
     * @throws IllegalArgumentException if the name is unknown (the message lists the known names)
     */
    public static KeyedScheme create(String name, int stripes) {
        IntFunction<KeyedScheme> factory = FACTORIES.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("unknown keyed scheme '" + name + "'; known: " + String.join(", ", names()));
        }
        return factory.apply(stripes);
    }

    private static void runLocked(Lock lock, Runnable section) {
        lock.lock();
        try {
            section.run();
        } finally {
            lock.unlock();
        }
    }

    private record NumaloomKeyed(KeyedLock<String> locks) implements KeyedScheme {
        NumaloomKeyed() {
            this(new KeyedLock<>());
        }

        @Override
        public void runExclusively(String key, Runnable section) {
            locks.runWithLock(key, section); // one lookup, as the other schemes' get-then-lock
        }

        @Override
        public Object footprint() {
            return locks;
        }
    }

    private record GuavaStriped(Striped<Lock> striped) implements KeyedScheme {
        @Override
        public void runExclusively(String key, Runnable section) {
            runLocked(striped.get(key), section);
        }

        @Override
        public Object footprint() {
            return striped;
        }
    }

    private record MapOfLocks(ConcurrentHashMap<String, ReentrantLock> locks) implements KeyedScheme {
        MapOfLocks() {
            this(new ConcurrentHashMap<>());
        }

        @Override
        public void runExclusively(String key, Runnable section) {
            runLocked(locks.computeIfAbsent(key, k -> new ReentrantLock()), section);
        }

        @Override
        public Object footprint() {
            return locks;
        }
    }

    private record CanonicalMonitors() implements KeyedScheme {
        @Override
        @SuppressWarnings("SynchronizationOnLocalVariableOrMethodParameter")
        public void runExclusively(String key, Runnable section) {
            synchronized (key) {
                section.run();
            }
        }

        @Override
        public Object footprint() {
            return null;
        }
    }
}
