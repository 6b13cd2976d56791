package io.numaloom.stress.lincheck;

import io.numaloom.stress.subject.KeyedSubject;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;

import java.lang.reflect.Method;
import java.util.List;

/**
 * The Lincheck scenario of a thread that locks a second key while it holds a first: two keys, each guarding its own
 * sequential counter, that hash to different buckets ({@code "k0"} and {@code "k1"}: of {@code KeyedLock}'s table of
 * 64, and of a two-bucket {@code PlantedKeyedLock}), locked through FRESH, equal key objects ({@code new String("k" + key)})
 * as in {@link KeyedCounters}.
 *
 * <ul>
 * <li>{@link #lockBothAndIncrement} locks key 0, then key 1 (always in that order, so two of them cannot
 *     deadlock), increments both counters, unlocks key 1, then key 0, and returns both values written
 *     ({@code 100 * counter0 + counter1}). On a lock that holds keys thin, its lock of key 0 is often a thin hold,
 *     and its lock of key 1 is a thin hold too whenever its thin-hold node is free, that is, once another thread
 *     inflated its hold of key 0.
 * <li>{@link #lockAndIncrement} locks one key and returns the value it wrote: on a key another thread holds thin,
 *     it inflates that hold and waits for it.
 * <li>{@link #tryLockAndCheck} may fail while the other thread holds the key, which no sequential order
 *     expresses; it returns nothing and leaves the counter alone. On a key held thin it inflates the hold too.
 * <li>Every critical section checks that nobody else is inside for that key and that the current thread's hold
 *     count on it is 1; {@link #lockBothAndIncrement} checks key 0's again while it holds key 1 and after it
 *     unlocked key 1, so a hold of key 0 lost under the lock of key 1 throws there, as an unlock that does not
 *     find its hold does. An exception is never a valid result.
 * </ul>
 * After every invocation {@link #keysAreClean()}: no key locked, nobody queued, and nothing left in use
 * ({@code activeKeys() == 0}), which a record bound where no lookup finds it, still held, is not.
 *
 * <p>Lincheck runs it on fixed scenarios ({@link #addScenarios}, budget in {@link LincheckRuns#keyPairOptions()}):
 * {@link #lockBothAndIncrement} in one thread against {@code lockAndIncrement(0)}, against
 * {@code tryLockAndCheck(0)}, and against itself in the other; Lincheck tries both threads first.
 */
@Param(name = "key", gen = IntGen.class, conf = "0:1")
public abstract class KeyPairCounters {

    static final int KEYS = 2;

    private final KeyedSubject<String> locks;
    private final int[] counters = new int[KEYS];
    private final Thread[] inside = new Thread[KEYS];

    protected KeyPairCounters(KeyedSubject<String> locks) {
        this.locks = locks;
    }

    /**
     * Adds the fixed scenarios to {@code options}: one operation per thread, {@link #lockBothAndIncrement} against
     * each operation that may inflate a thin hold of key 0.
     */
    static void addScenarios(ModelCheckingOptions options) {
        try {
            Actor both = actor(KeyPairCounters.class.getMethod("lockBothAndIncrement"));
            options.addCustomScenario(pair(both, actor(KeyPairCounters.class.getMethod("lockAndIncrement", int.class), 0)));
            options.addCustomScenario(pair(both, actor(KeyPairCounters.class.getMethod("tryLockAndCheck", int.class), 0)));
            options.addCustomScenario(pair(both, both));
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    /** An operation with its arguments: not suspendable, not blocking (Lincheck's {@code Actor}). */
    private static Actor actor(Method operation, Object... arguments) {
        return new Actor(operation, List.of(arguments), false, false, false, false, false);
    }

    /** Nothing before or after, {@code first} in one thread and {@code second} in the other. */
    private static ExecutionScenario pair(Actor first, Actor second) {
        return new ExecutionScenario(List.of(), List.of(List.of(first), List.of(second)), List.of(), null);
    }

    /** A fresh key object for key number {@code key}: equal to every other, identical to none. */
    private static String keyOf(int key) {
        return new String("k" + key);
    }

    @Operation
    public int lockBothAndIncrement() {
        locks.lock(keyOf(0));
        try {
            enter(0);
            int value;
            locks.lock(keyOf(1));
            try {
                enter(1);
                checkHold(0, "while it holds key 1");
                value = 100 * ++counters[0] + ++counters[1];
                leave(1);
            } finally {
                locks.unlock(keyOf(1));
            }
            checkHold(0, "after it unlocked key 1");
            leave(0);
            return value;
        } finally {
            locks.unlock(keyOf(0));
        }
    }

    @Operation
    public int lockAndIncrement(@Param(name = "key") int key) {
        locks.lock(keyOf(key));
        try {
            enter(key);
            int value = ++counters[key];
            leave(key);
            return value;
        } finally {
            locks.unlock(keyOf(key));
        }
    }

    @Operation
    public void tryLockAndCheck(@Param(name = "key") int key) {
        if (locks.tryLock(keyOf(key))) {
            try {
                enter(key);
                leave(key);
            } finally {
                locks.unlock(keyOf(key));
            }
        }
    }

    private void enter(int key) {
        if (inside[key] != null) {
            throw new IllegalStateException("two threads in the critical section of key " + key + ": "
                    + inside[key].getName() + " and " + Thread.currentThread().getName());
        }
        checkHold(key, "on entry");
        inside[key] = Thread.currentThread();
    }

    private void checkHold(int key, String when) {
        int holds = locks.getHoldCount(keyOf(key));
        if (holds != 1 || !locks.isHeldByCurrentThread(keyOf(key))) {
            throw new IllegalStateException("hold count " + holds + " inside the critical section of key " + key
                    + ", " + when + ": " + locks);
        }
    }

    private void leave(int key) {
        if (inside[key] != Thread.currentThread()) {
            throw new IllegalStateException("someone else got into the critical section of key " + key + ": "
                    + inside[key]);
        }
        inside[key] = null;
    }

    /** After every invocation: every key free, nobody queued, no key left in use (idle bound records may stay). */
    @Validate
    public void keysAreClean() {
        for (int key = 0; key < KEYS; key++) {
            if (locks.isLocked(keyOf(key))) {
                throw new IllegalStateException("key " + key + " left locked: " + locks);
            }
            if (locks.hasQueuedThreads(keyOf(key))) {
                throw new IllegalStateException("threads left queued on key " + key + ": " + locks);
            }
        }
        int active = locks.activeKeys();
        if (active != 0) {
            throw new IllegalStateException(active + " key(s) left in use after every user left: " + locks);
        }
    }
}
