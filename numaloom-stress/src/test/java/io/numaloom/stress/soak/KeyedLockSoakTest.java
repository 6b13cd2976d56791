package io.numaloom.stress.soak;

import io.numaloom.KeyedLock;
import io.numaloom.stress.torture.Watchdog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * A soak of {@link KeyedLock} (issue 43): for {@code numaloom.soak.seconds} (120 by default; the {@code soak} profile
 * passes {@code -Dsoak.seconds}), half platform and half virtual worker threads use three keyed locks at once (one
 * with {@code idleKeys(64)}, one with the defaults, one with {@code bindOnFirstLock(true)}) over a pool of thousands
 * of keys each, with every acquisition method mixed:
 * <ul>
 * <li>one key: {@code lock}, {@code lockInterruptibly}, {@code tryLock}, timed {@code tryLock}, the {@code forKey}
 *     view, {@code runWithLock}, {@code withLock}, and re-entry;
 * <li>nested keys: {@code lock(a)}, then {@code b > a} by {@code lock}, {@code lockInterruptibly}, {@code tryLock}
 *     or timed {@code tryLock}, released in reverse order;
 * <li>random subsets (with equal duplicates) by {@code lockAll}, {@code lockAllInterruptibly}, {@code tryLockAll}
 *     and timed {@code tryLockAll}, released by {@code unlockAll} or key by key;
 * <li>conditions of eight keys per lock ({@code forKey(k).newCondition()}): untimed waiters ({@code await},
 *     {@code awaitUninterruptibly}) counted so that every signal given while a waiter waits must wake one, and
 *     timed waiters ({@code awaitNanos}, {@code await(t, unit)}, {@code awaitUntil}) that take tokens the
 *     signallers put;
 * <li>a thread that interrupts random workers (and now and then the releaser);
 * <li>a thread that calls {@code releaseIdleKeys()} in a loop, beside the background deflater.
 * </ul>
 * Keys: 4096 per lock ({@code numaloom.soak.keys}), picked from a hot window that moves every two seconds (keys
 * that recur get records), uniformly (thin holds, binds that deflate idle ones, the table growing and shrinking),
 * from 32 keys whose hashes all collide, and from the condition keys; each lookup uses, at random, the pool's key
 * object or a fresh equal one.
 *
 * <p>Deadlock freedom of the test itself: nested acquisitions take the smaller key id first, and a nested
 * acquisition that waits untimed ({@code lock}, {@code lockInterruptibly}) waits only for a key of the upper half
 * of the ids, while {@code lockAll} and {@code lockAllInterruptibly} (which lock in the order of the records) lock
 * keys of the lower half only; timed and non-blocking acquisitions take any key, and condition waiters hold only
 * their key. No cycle of untimed waits is then possible.
 *
 * <p>Checked in every critical section: the key's owner slot (a plain field, touched only under the key's lock)
 * is empty on entry and still ours after an occasional {@link Thread#yield()}, {@code isHeldByCurrentThread},
 * {@code getHoldCount} and {@code isLocked}. Checked after every operation: the worker holds none of the keys it
 * touched, an {@link InterruptedException} included (a nested acquisition interrupted still holds its outer key
 * once, and nothing else); {@code lock}, {@code tryLock}, {@code unlock}, {@code lockAll}, {@code tryLockAll},
 * {@code unlockAll}, {@code awaitUninterruptibly}, {@code runWithLock} and {@code releaseIdleKeys} keep an interrupt
 * status that was set on entry or by an interrupt that happened during the call. Checked at the end: the plain
 * per-key counts equal the atomic tallies, every signal owed to an untimed waiter was delivered, tokens put equal
 * tokens taken plus those left, no condition has waiters, {@code activeKeys()} is 0, and after
 * {@code releaseIdleKeys()} {@code boundKeys()} is 0 and the table is back to its size when new. Throughout, the
 * table (read by reflection) has at most {@value #BUCKETS_PER_KEY} buckets per key of the pool. Zero violations and zero
 * {@link IllegalMonitorStateException}s are required; a {@link Watchdog} over the least progress of any thread
 * fails the run with a dump of every thread when one of them makes none for {@value #STALL_SECONDS} s, and the
 * first violation writes a dump too (both in {@code numaloom.soak.dumpDir}).
 *
 * <p>Tagged {@code soak}: the default build excludes it; {@code ./mvnw -Psoak -pl numaloom-stress -am verify} runs
 * it. Properties: {@code numaloom.soak.seconds}, {@code numaloom.soak.seed} (the workers' random choices; the
 * interleaving is the scheduler's), {@code numaloom.soak.workers} (32), {@code numaloom.soak.keys},
 * {@code numaloom.soak.dumpDir}. Prints one summary line.
 */
@Tag("soak")
class KeyedLockSoakTest {

    static final int STALL_SECONDS = 10;
    /** Keys whose id is 3 modulo this share one hashCode. */
    static final int COLLIDE_EVERY = 128;
    static final int COLLIDING_HASH = 0x5EED;
    /** Keys of the hot window, which moves every HOT_EPOCH. */
    static final int HOT_KEYS = 48;
    static final long HOT_EPOCH_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Condition keys per lock. */
    static final int CONDITION_KEYS = 8;
    /** The two kinds of untimed waiters, each on a condition of its own. */
    static final int INTERRUPTIBLY = 0;
    static final int UNINTERRUPTIBLY = 1;
    /** How long the run goes on past its duration, at most, until every kind of acquisition happened. */
    static final Duration EVERY_KIND_PATIENCE = Duration.ofMinutes(1);
    /** The most table buckets per key of the pool that a lock may have (see {@link #sample}). */
    static final int BUCKETS_PER_KEY = 16;
    /** How long the end waits for the signals owed to untimed waiters to wake them. */
    static final Duration DRAIN_PATIENCE = Duration.ofSeconds(10);

    /** A key whose equal copies are distinct objects; the hashes of some collide on purpose. */
    record Key(int id, int hash) {
        static Key of(int id) {
            return new Key(id, id % COLLIDE_EVERY == 3 ? COLLIDING_HASH : id * 0x9E3779B1);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.id == id;
        }
    }

    /** The acquisitions and condition events counted, by kind. */
    enum Kind {
        LOCK("lock"), LOCK_INTERRUPTIBLY("lockInterruptibly"), TRY_LOCK("tryLock"), TRY_LOCK_TIMED("tryLock(t)"),
        VIEW("forKey"), RUN_WITH_LOCK("runWithLock"), WITH_LOCK("withLock"), REENTRY("re-entry"),
        NESTED_LOCK("nested lock"), NESTED_LOCK_INTERRUPTIBLY("nested lockInterruptibly"),
        NESTED_TRY_LOCK("nested tryLock"), NESTED_TRY_LOCK_TIMED("nested tryLock(t)"),
        LOCK_ALL("lockAll"), LOCK_ALL_INTERRUPTIBLY("lockAllInterruptibly"), TRY_LOCK_ALL("tryLockAll"),
        TRY_LOCK_ALL_TIMED("tryLockAll(t)"),
        AWAIT("await woken"), AWAIT_UNINTERRUPTIBLY("awaitUninterruptibly woken"), AWAIT_TIMED("timed await got a token"),
        SIGNAL("signal"), SIGNAL_ALL("signalAll");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** One keyed lock under test, its keys and the state each key's lock guards. */
    static final class Soaked {
        final String name;
        final KeyedLock<Key> locks;
        final Key[] keys;
        /** Guarded by each key's lock: the thread inside the key's critical section, and the sections. */
        final Thread[] owner;
        final long[] count;
        /** The same sections, counted atomically. */
        final AtomicLongArray tally;
        final int[] conditionIds;
        /** Per condition key: [INTERRUPTIBLY] awaited by await(), [UNINTERRUPTIBLY] by awaitUninterruptibly(). */
        final Condition[][] untimed;
        final Condition[] timed;
        /**
         * Guarded by the condition key's lock, per kind of untimed waiter: the waiters inside await, and the signals
         * owed to them; the timed waiters' tokens; whether the run is over.
         */
        final int[][] waiting;
        final int[][] owed;
        final long[] tokens;
        final boolean[] stopped;
        final LongAdder put = new LongAdder();
        final LongAdder taken = new LongAdder();
        /** Sampled by the main thread. */
        int maxBound;
        int minBuckets = Integer.MAX_VALUE;
        int maxBuckets;
        int lastBuckets;
        int resizesSeen;

        Soaked(String name, KeyedLock<Key> locks, int keyCount) {
            this.name = name;
            this.locks = locks;
            keys = new Key[keyCount];
            for (int i = 0; i < keyCount; i++) {
                keys[i] = Key.of(i);
            }
            owner = new Thread[keyCount];
            count = new long[keyCount];
            tally = new AtomicLongArray(keyCount);
            conditionIds = new int[CONDITION_KEYS];
            untimed = new Condition[2][CONDITION_KEYS];
            timed = new Condition[CONDITION_KEYS];
            for (int c = 0; c < CONDITION_KEYS; c++) {
                // spread over the ids; 3 and keyCount / 2 + 3 are colliding keys
                conditionIds[c] = c * (keyCount / CONDITION_KEYS) + 3 + 2 * (c % 4);
                untimed[INTERRUPTIBLY][c] = locks.forKey(keys[conditionIds[c]]).newCondition();
                untimed[UNINTERRUPTIBLY][c] = locks.forKey(keys[conditionIds[c]]).newCondition();
                timed[c] = locks.forKey(Key.of(conditionIds[c])).newCondition();
            }
            waiting = new int[2][CONDITION_KEYS];
            owed = new int[2][CONDITION_KEYS];
            tokens = new long[CONDITION_KEYS];
            stopped = new boolean[CONDITION_KEYS];
        }
    }

    // ------------------------------------------------------------------ run state

    private final AtomicBoolean running = new AtomicBoolean(true);
    /**
     * Workers in {@link Worker#untimedWaiter} now, at most a quarter of them: only a signaller that picks the
     * waiter's key wakes it (an interrupt too, for await), so with no such limit every worker could end up
     * waiting with nobody left to signal (a 2-minute run did, in awaitUninterruptibly).
     */
    private final AtomicInteger untimedWaiters = new AtomicInteger();
    private int maxUntimedWaiters;
    private final LongAdder[] acquired = newAdders(Kind.values().length);
    private final LongAdder[] gaveUp = newAdders(Kind.values().length);
    private final LongAdder sections = new LongAdder();
    /** Untimed waiters that returned normally with no signal owed, by kind (spurious wake-ups, allowed). */
    private final LongAdder[] unowed = newAdders(2);
    private final LongAdder interruptsSent = new LongAdder();
    private final LongAdder interruptedExceptions = new LongAdder();
    private final LongAdder interruptStatusesCleared = new LongAdder();
    private final LongAdder releaseCalls = new LongAdder();
    private final LongAdder released = new LongAdder();
    private final LongAdder violations = new LongAdder();
    private final LongAdder monitorStateExceptions = new LongAdder();
    private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean dumped = new AtomicBoolean();
    private volatile Watchdog watchdog;
    private volatile String dumpNote = "";
    private long runStart;
    private Soaked[] soaked;

    private static LongAdder[] newAdders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    /** Records a violation (the first 20 in full) and writes a thread dump at the first. */
    private void violation(String what) {
        violations.increment();
        if (failures.size() < 20) {
            failures.add(new AssertionError(what + " (in " + Thread.currentThread().getName() + ")"));
        }
        Watchdog w = watchdog;
        if (w != null && dumped.compareAndSet(false, true)) {
            dumpNote = "; at the first violation: " + w.dumpNow();
        }
    }

    /** A thread whose unexpected exception ends it; the run then ends too. */
    private void died(Throwable t) {
        if (t instanceof IllegalMonitorStateException) {
            monitorStateExceptions.increment();
        }
        failures.add(t);
        Watchdog w = watchdog;
        if (w != null && dumped.compareAndSet(false, true)) {
            dumpNote = "; at the first failure: " + w.dumpNow();
        }
    }

    // ------------------------------------------------------------------ the test

    @Test
    void soak() throws Exception {
        Duration duration = Duration.ofMillis((long) (1000 * Double.parseDouble(property("numaloom.soak.seconds", "120"))));
        String seedProperty = property("numaloom.soak.seed", "");
        long seed = seedProperty.isBlank() ? System.nanoTime() * 0x9E3779B97F4A7C15L
                : seedProperty.startsWith("0x") ? Long.parseUnsignedLong(seedProperty.substring(2), 16) : Long.parseLong(seedProperty);
        int workerCount = Integer.parseInt(property("numaloom.soak.workers", "32"));
        int keyCount = Integer.parseInt(property("numaloom.soak.keys", "4096"));
        Path dumpDir = Path.of(property("numaloom.soak.dumpDir", "target/soak")).toAbsolutePath();
        Files.createDirectories(dumpDir);
        if (workerCount < 2 || keyCount < 1024 || keyCount % (2 * COLLIDE_EVERY) != 0) {
            throw new IllegalArgumentException("numaloom.soak.workers >= 2 and numaloom.soak.keys >= 1024, a multiple of "
                    + 2 * COLLIDE_EVERY);
        }
        String settings = String.format("seed %#x, %d platform + %d virtual workers, parallelism %s, %d keys x 3 locks, %s",
                seed, workerCount / 2, workerCount - workerCount / 2,
                System.getProperty("jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors() + " (default)"),
                keyCount, duration);
        System.out.println("soak KeyedLock: " + settings + " (-Dsoak.seed=" + String.format("%#x", seed) + " repeats the choices)");

        soaked = new Soaked[] {
                new Soaked("idleKeys(64)", KeyedLock.builder().idleKeys(64).name("soak-small").build(), keyCount),
                new Soaked("default", KeyedLock.builder().name("soak-default").build(), keyCount),
                new Soaked("bindOnFirstLock", KeyedLock.builder().bindOnFirstLock(true).name("soak-eager").build(), keyCount),
        };
        maxUntimedWaiters = Math.max(1, workerCount / 4);
        runStart = System.nanoTime();
        SplittableRandom seeds = new SplittableRandom(seed);

        Worker[] workers = new Worker[workerCount];
        for (int i = 0; i < workerCount; i++) {
            Worker w = new Worker(seeds.split());
            String name = (i % 2 == 0 ? "soak-platform-" : "soak-virtual-") + i;
            w.thread = i % 2 == 0 ? Thread.ofPlatform().daemon().name(name).unstarted(w) : Thread.ofVirtual().name(name).unstarted(w);
            workers[i] = w;
        }
        Releaser releaser = new Releaser(seeds.split());
        releaser.thread = Thread.ofPlatform().daemon().name("soak-releaser").unstarted(releaser);
        SplittableRandom interrupterRandom = seeds.split();
        Thread interrupter = Thread.ofPlatform().daemon().name("soak-interrupter").unstarted(() -> {
            while (running.get()) {
                Interruptible target = interrupterRandom.nextInt(16) == 0 ? releaser : workers[interrupterRandom.nextInt(workers.length)];
                target.interrupt();
                interruptsSent.increment();
                LockSupport.parkNanos(interrupterRandom.nextLong(20_000, 1_000_000));
            }
        });

        List<Interruptible> watched = new ArrayList<>(List.of(workers));
        watched.add(releaser);
        try (Watchdog dog = new Watchdog("soak-keyedlock", () -> watched.stream().mapToLong(w -> w.progress).min().orElse(0),
                Duration.ofSeconds(STALL_SECONDS), dumpDir)) {
            watchdog = dog;
            for (Worker w : workers) {
                w.thread.start();
            }
            releaser.thread.start();
            interrupter.start();

            long end = runStart + duration.toNanos();
            long patience = end + EVERY_KIND_PATIENCE.toNanos();
            while (failures.isEmpty() && !dog.stalled()) {
                long now = System.nanoTime();
                if (now - end >= 0 && (everyKindHappened() || now - patience >= 0)) {
                    break;
                }
                sample();
                Thread.sleep(20);
            }
            running.set(false);
            interrupter.join();
            joinAll(dog, List.of(releaser.thread));
            if (failures.isEmpty()) {
                drainSignals(dog);
            }
            // Wake the untimed waiters left: the run is over. (A thread that died may have left a key locked.)
            for (Soaked s : soaked) {
                for (int c = 0; c < CONDITION_KEYS; c++) {
                    Key k = s.keys[s.conditionIds[c]];
                    if (!s.locks.tryLock(k, STALL_SECONDS, TimeUnit.SECONDS)) {
                        violation(s.name + " key " + s.conditionIds[c] + ": not free within " + STALL_SECONDS + " s at the end");
                        continue;
                    }
                    try {
                        s.stopped[c] = true;
                        for (int u : new int[] {INTERRUPTIBLY, UNINTERRUPTIBLY}) {
                            s.owed[u][c] = s.waiting[u][c];
                            s.untimed[u][c].signalAll();
                        }
                        s.timed[c].signalAll();
                    } finally {
                        s.locks.unlock(k);
                    }
                }
            }
            joinAll(dog, java.util.Arrays.stream(workers).map(w -> w.thread).toList());
            dog.check();
        } catch (AssertionError stall) {
            if (failures.isEmpty()) {
                System.out.println(summary(duration));
                throw stall;
            }
            failures.add(stall); // reported with the failures that came first
        }
        watchdog = null;
        if (!failures.isEmpty()) {
            System.out.println(summary(duration));
            throwFailures(settings);
        }

        // The plain counts, the tallies, the owners, the tokens.
        for (Soaked s : soaked) {
            for (int id = 0; id < keyCount; id++) {
                if (s.count[id] != s.tally.get(id)) {
                    violation(s.name + " key " + id + ": " + s.count[id] + " plain increments under its lock, "
                            + s.tally.get(id) + " critical sections");
                }
                if (s.owner[id] != null) {
                    violation(s.name + " key " + id + ": owner slot left " + s.owner[id]);
                }
            }
            long left = 0;
            for (int c = 0; c < CONDITION_KEYS; c++) {
                left += s.tokens[c];
            }
            if (s.put.sum() != s.taken.sum() + left) {
                violation(s.name + ": " + s.put.sum() + " tokens put, " + s.taken.sum() + " taken, " + left + " left");
            }
        }
        // Nothing in use, no waiter, nothing locked; then nothing bound.
        for (Soaked s : soaked) {
            int active = s.locks.activeKeys();
            if (active != 0) {
                violation(s.name + ": activeKeys() " + active + " after the run");
            }
            for (int id = 0; id < keyCount; id++) {
                if (s.locks.isLocked(Key.of(id))) {
                    violation(s.name + " key " + id + " left locked");
                }
            }
            for (int c = 0; c < CONDITION_KEYS; c++) {
                KeyedLock<Key>.KeyLock view = s.locks.forKey(Key.of(s.conditionIds[c]));
                view.lock();
                try {
                    if (view.hasWaiters(s.untimed[INTERRUPTIBLY][c]) || view.hasWaiters(s.untimed[UNINTERRUPTIBLY][c])
                            || view.hasWaiters(s.timed[c])) {
                        violation(s.name + " key " + s.conditionIds[c] + ": waiters left on a condition");
                    }
                } finally {
                    view.unlock();
                }
            }
            active = s.locks.activeKeys();
            if (active != 0) {
                violation(s.name + ": activeKeys() " + active + " after the checks");
            }
            s.locks.releaseIdleKeys();
            int bound = s.locks.boundKeys();
            if (bound != 0) {
                violation(s.name + ": boundKeys() " + bound + " after releaseIdleKeys()");
            }
            // An idle KeyedLock shrinks back to its size when new (README, KeyedLock's class comment).
            int buckets = TableSize.of(s.locks);
            int newBuckets = TableSize.of(KeyedLock.builder().releaseIdleKeysInBackground(false).build());
            if (buckets != newBuckets) {
                violation(s.name + ": a table of " + buckets + " buckets after releaseIdleKeys(), " + newBuckets + " when new");
            }
        }

        System.out.println(summary(duration));
        throwFailures(settings);
        for (Kind k : Kind.values()) {
            if (acquired[k.ordinal()].sum() == 0) {
                throw new AssertionError("too little happened to call this a soak: no " + k.label + " in "
                        + Duration.ofNanos(System.nanoTime() - runStart) + "; " + summary(duration));
            }
        }
    }

    private static String property(String name, String otherwise) {
        String v = System.getProperty(name);
        return v == null || v.isBlank() ? otherwise : v;
    }

    private boolean everyKindHappened() {
        for (LongAdder a : acquired) {
            if (a.sum() == 0) {
                return false;
            }
        }
        return true;
    }

    private void joinAll(Watchdog dog, List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) {
            while (!t.join(Duration.ofMillis(200))) {
                dog.check();
            }
        }
    }

    /**
     * Every signal given while an untimed waiter waits must wake one: once the signallers and the interrupter
     * stopped, the owed signals drain (see {@link Worker#untimedWaiter} for why this cannot fail when none is lost).
     */
    private void drainSignals(Watchdog dog) throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_PATIENCE.toNanos();
        for (Soaked s : soaked) {
            for (int c = 0; c < CONDITION_KEYS; c++) {
                Key k = s.keys[s.conditionIds[c]];
                for (;;) {
                    int owed;
                    int waiting;
                    s.locks.lock(k);
                    try {
                        owed = s.owed[INTERRUPTIBLY][c] + s.owed[UNINTERRUPTIBLY][c];
                        waiting = s.waiting[INTERRUPTIBLY][c] + s.waiting[UNINTERRUPTIBLY][c];
                    } finally {
                        s.locks.unlock(k);
                    }
                    if (owed == 0) {
                        break;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        violation(s.name + " key " + s.conditionIds[c] + ": " + owed + " signal(s) given to " + waiting
                                + " untimed waiter(s) woke none of them within " + DRAIN_PATIENCE.toSeconds() + " s");
                        break;
                    }
                    dog.check();
                    Thread.sleep(10);
                }
            }
        }
    }

    /**
     * Samples each lock's bound keys and (by reflection) its table size, which must stay bounded: at most
     * {@value #BUCKETS_PER_KEY} buckets per key of the pool (a lock never has more records than keys, and grows
     * its table only while it has fewer than eight buckets per record).
     */
    private void sample() {
        for (Soaked s : soaked) {
            s.maxBound = Math.max(s.maxBound, s.locks.boundKeys());
            int buckets = TableSize.of(s.locks);
            if (buckets > BUCKETS_PER_KEY * s.keys.length && s.maxBuckets <= BUCKETS_PER_KEY * s.keys.length) {
                violation(s.name + ": a table of " + buckets + " buckets for " + s.keys.length + " keys (boundKeys "
                        + s.locks.boundKeys() + ")");
            }
            if (buckets > 0) {
                s.minBuckets = Math.min(s.minBuckets, buckets);
                s.maxBuckets = Math.max(s.maxBuckets, buckets);
                if (s.lastBuckets != 0 && buckets != s.lastBuckets) {
                    s.resizesSeen++;
                }
                s.lastBuckets = buckets;
            }
        }
    }

    /**
     * The table size of a KeyedLock, read reflectively (it has no public accessor); 0 where it cannot be read, and
     * the checks of the table's size then pass (the summary says n/a).
     */
    static final class TableSize {
        private static final Field TABLE;
        private static final Field BUCKETS;

        static {
            Field table = null;
            Field buckets = null;
            try {
                table = KeyedLock.class.getDeclaredField("table");
                table.setAccessible(true);
                buckets = table.getType().getDeclaredField("buckets");
                buckets.setAccessible(true);
            } catch (ReflectiveOperationException | RuntimeException e) {
                table = null;
            }
            TABLE = table;
            BUCKETS = buckets;
        }

        static int of(KeyedLock<?> locks) {
            if (TABLE == null) {
                return 0;
            }
            try {
                return BUCKETS.getInt(TABLE.get(locks));
            } catch (ReflectiveOperationException | RuntimeException e) {
                return 0;
            }
        }
    }

    private String summary(Duration duration) {
        StringBuilder b = new StringBuilder("soak KeyedLock ").append(duration).append(" (ran ")
                .append(Duration.ofMillis((System.nanoTime() - runStart) / 1_000_000)).append("): acquisitions ");
        long total = 0;
        for (Kind k : Kind.values()) {
            if (k.ordinal() < Kind.AWAIT.ordinal()) {
                total += acquired[k.ordinal()].sum();
            }
        }
        b.append(total).append(" (");
        String kinds = java.util.Arrays.stream(Kind.values()).filter(k -> k.ordinal() < Kind.AWAIT.ordinal())
                .map(this::counted).collect(Collectors.joining(", "));
        b.append(kinds).append("), critical sections ").append(sections.sum()).append("; conditions: ");
        b.append(java.util.Arrays.stream(Kind.values()).filter(k -> k.ordinal() >= Kind.AWAIT.ordinal())
                .map(this::counted).collect(Collectors.joining(", ")));
        b.append(", timed awaits timed out ").append(gaveUp[Kind.AWAIT_TIMED.ordinal()].sum())
                .append(", wake-ups with no signal owed (spurious, or its signal taken off by an interrupted waiter) await ")
                .append(unowed[INTERRUPTIBLY].sum()).append(" awaitUninterruptibly ").append(unowed[UNINTERRUPTIBLY].sum());
        b.append("; interrupts sent ").append(interruptsSent.sum()).append(", InterruptedException ")
                .append(interruptedExceptions.sum()).append(", interrupt statuses still set after an operation ")
                .append(interruptStatusesCleared.sum());
        b.append("; releaseIdleKeys ").append(releaseCalls.sum()).append(" calls, ").append(released.sum())
                .append(" keys released; per lock (max boundKeys, table buckets min-max, resizes seen):");
        for (Soaked s : soaked) {
            b.append(' ').append(s.name).append(' ').append(s.maxBound).append(", ")
                    .append(s.maxBuckets == 0 ? "n/a" : s.minBuckets + "-" + s.maxBuckets).append(", ").append(s.resizesSeen).append(';');
        }
        b.append(" violations ").append(violations.sum()).append(", IllegalMonitorStateException ")
                .append(monitorStateExceptions.sum());
        return b.toString();
    }

    private String counted(Kind k) {
        long failed = gaveUp[k.ordinal()].sum();
        return k.label + " " + acquired[k.ordinal()].sum() + (failed > 0 && k != Kind.AWAIT_TIMED ? " (" + failed + " gave up)" : "");
    }

    private void throwFailures(String settings) {
        if (failures.isEmpty() && violations.sum() == 0) {
            return;
        }
        Throwable first = failures.peek();
        AssertionError e = new AssertionError(violations.sum() + " violation(s), " + monitorStateExceptions.sum()
                + " IllegalMonitorStateException(s), " + failures.size() + " failure(s) recorded (" + settings + ")"
                + dumpNote + "; the first: " + first, first);
        failures.stream().skip(1).limit(10).forEach(e::addSuppressed);
        throw e;
    }

    // ------------------------------------------------------------------ threads

    /**
     * A thread the interrupter may interrupt. It counts its interrupts before and after each
     * {@link Thread#interrupt()}, so that a method that must keep the interrupt status can be checked: an
     * interrupt counted as started after a mark and as done before the check happened within the call.
     */
    abstract class Interruptible {
        final AtomicInteger interruptsStarted = new AtomicInteger();
        final AtomicInteger interruptsDone = new AtomicInteger();
        final SplittableRandom random;
        volatile long progress;
        Thread thread;

        Interruptible(SplittableRandom random) {
            this.random = random;
        }

        /** Only the interrupter calls this, one interrupt at a time. */
        void interrupt() {
            interruptsStarted.incrementAndGet();
            thread.interrupt();
            interruptsDone.incrementAndGet();
        }

        int mark() {
            return interruptsStarted.get();
        }

        /** Fails if the interrupt status, set on entry ({@code was}) or by an interrupt since {@code mark}, is clear. */
        void keptInterrupt(String what, int mark, boolean was) {
            int done = interruptsDone.get();
            if ((was || done > mark) && !Thread.currentThread().isInterrupted()) {
                violation(what + " cleared the interrupt status " + (was ? "set on entry" : "set by an interrupt during the call"));
            }
        }
    }

    /** Calls releaseIdleKeys() in a loop, with pauses of all lengths; the background deflater runs beside it. */
    final class Releaser extends Interruptible implements Runnable {
        Releaser(SplittableRandom random) {
            super(random);
        }

        @Override
        public void run() {
            try {
                while (running.get()) {
                    Soaked s = soaked[random.nextInt(soaked.length)];
                    int mark = mark();
                    boolean was = Thread.currentThread().isInterrupted();
                    released.add(s.locks.releaseIdleKeys());
                    keptInterrupt("releaseIdleKeys", mark, was);
                    releaseCalls.increment();
                    if (random.nextInt(64) == 0 && s.locks.activeKeys() < 0) {
                        violation(s.name + ": activeKeys() < 0");
                    }
                    Thread.interrupted();
                    progress++;
                    switch (random.nextInt(8)) {
                        case 0, 1, 2 -> { }
                        case 3 -> Thread.yield();
                        case 4, 5 -> LockSupport.parkNanos(1_000_000);
                        case 6 -> LockSupport.parkNanos(20_000_000);
                        default -> LockSupport.parkNanos(300_000_000);
                    }
                }
            } catch (Throwable t) {
                died(t);
            } finally {
                progress = Long.MAX_VALUE;
            }
        }
    }

    final class Worker extends Interruptible implements Runnable {
        /** The ids of the keys the current operation touched. */
        private final int[] touched = new int[16];
        private int touchedCount;

        Worker(SplittableRandom random) {
            super(random);
        }

        @Override
        public void run() {
            try {
                while (running.get()) {
                    Soaked s = soaked[random.nextInt(soaked.length)];
                    touchedCount = 0;
                    try {
                        step(s);
                    } catch (InterruptedException e) {
                        interruptedExceptions.increment();
                    }
                    for (int i = 0; i < touchedCount; i++) {
                        checkHold(s, touched[i], 0, "after the operation");
                    }
                    if (Thread.interrupted()) {
                        interruptStatusesCleared.increment();
                    }
                    progress++;
                }
            } catch (Throwable t) {
                died(t);
            } finally {
                progress = Long.MAX_VALUE;
            }
        }

        private void step(Soaked s) throws InterruptedException {
            int r = random.nextInt(100);
            if (r < 30) {
                single(s);
            } else if (r < 55) {
                nested(s);
            } else if (r < 70) {
                several(s);
            } else if (r < 80) {
                signaller(s);
            } else if (r < 88 && untimedWaiters.incrementAndGet() <= maxUntimedWaiters) {
                try {
                    untimedWaiter(s);
                } finally {
                    untimedWaiters.decrementAndGet();
                }
            } else {
                if (r < 88) {
                    untimedWaiters.decrementAndGet(); // enough of them wait: wait timed
                }
                timedWaiter(s);
            }
        }

        // -------------------------------------------------------------- keys

        /** A key id: from the moving hot window, the colliding keys, the condition keys, or any. */
        private int pick(Soaked s) {
            int n = s.keys.length;
            switch (random.nextInt(8)) {
                case 0, 1, 2 -> {
                    long epoch = (System.nanoTime() - runStart) / HOT_EPOCH_NANOS;
                    return (int) ((epoch * 977 + random.nextInt(HOT_KEYS)) % n);
                }
                case 3 -> {
                    return 3 + COLLIDE_EVERY * random.nextInt(n / COLLIDE_EVERY);
                }
                case 4 -> {
                    return s.conditionIds[random.nextInt(CONDITION_KEYS)];
                }
                default -> {
                    return random.nextInt(n);
                }
            }
        }

        /** The pool's key object or a fresh equal one. */
        private Key key(Soaked s, int id) {
            return random.nextBoolean() ? s.keys[id] : Key.of(id);
        }

        private void touch(int id) {
            for (int i = 0; i < touchedCount; i++) {
                if (touched[i] == id) {
                    return;
                }
            }
            touched[touchedCount++] = id;
        }

        // -------------------------------------------------------------- checks

        private void checkHold(Soaked s, int id, int holds, String when) {
            Key k = key(s, id);
            int held = s.locks.getHoldCount(k);
            if (held != holds || s.locks.isHeldByCurrentThread(k) != (holds > 0)) {
                violation(s.name + " key " + id + " " + when + ": hold count " + held + ", isHeldByCurrentThread "
                        + s.locks.isHeldByCurrentThread(k) + ", expected " + holds);
            }
        }

        /** Enters the key's critical section, held {@code holds} times: nobody else may be inside. */
        private void enter(Soaked s, int id, int holds) {
            checkHold(s, id, holds, "inside");
            if (!s.locks.isLocked(key(s, id))) {
                violation(s.name + " key " + id + ": isLocked false inside");
            }
            Thread me = Thread.currentThread();
            Thread inside = s.owner[id];
            if (inside != null) {
                violation(s.name + " key " + id + ": entered while " + inside.getName() + " was inside");
            }
            s.owner[id] = me;
        }

        private void exit(Soaked s, int id) {
            Thread inside = s.owner[id];
            if (inside != Thread.currentThread()) {
                violation(s.name + " key " + id + ": " + (inside == null ? "nobody" : inside.getName()) + " inside, not "
                        + Thread.currentThread().getName());
            }
            s.count[id]++;
            s.tally.incrementAndGet(id);
            s.owner[id] = null;
            sections.increment();
        }

        private void section(Soaked s, int id, int holds) {
            enter(s, id, holds);
            if (random.nextInt(8) == 0) {
                Thread.yield();
            }
            exit(s, id);
        }

        private void count(Kind k) {
            acquired[k.ordinal()].increment();
        }

        private void gaveUp(Kind k) {
            gaveUp[k.ordinal()].increment();
        }

        // -------------------------------------------------------------- the calls that keep the interrupt status

        private void lock(Soaked s, Key k) {
            int mark = mark();
            boolean was = Thread.currentThread().isInterrupted();
            s.locks.lock(k);
            keptInterrupt("lock(key)", mark, was);
        }

        private boolean tryLock(Soaked s, Key k) {
            int mark = mark();
            boolean was = Thread.currentThread().isInterrupted();
            boolean got = s.locks.tryLock(k);
            keptInterrupt("tryLock(key)", mark, was);
            return got;
        }

        private void unlock(Soaked s, int id) {
            int mark = mark();
            boolean was = Thread.currentThread().isInterrupted();
            s.locks.unlock(key(s, id));
            keptInterrupt("unlock(key)", mark, was);
        }

        // -------------------------------------------------------------- operations

        /** One key, by any method, maybe re-entered. */
        private void single(Soaked s) throws InterruptedException {
            int id = pick(s);
            touch(id);
            Key k = key(s, id);
            Kind kind;
            switch (random.nextInt(9)) {
                case 0, 1 -> {
                    lock(s, k);
                    kind = Kind.LOCK;
                }
                case 2 -> {
                    s.locks.lockInterruptibly(k);
                    kind = Kind.LOCK_INTERRUPTIBLY;
                }
                case 3 -> {
                    if (!tryLock(s, k)) {
                        gaveUp(Kind.TRY_LOCK);
                        return;
                    }
                    kind = Kind.TRY_LOCK;
                }
                case 4, 5 -> {
                    if (!s.locks.tryLock(k, random.nextLong(1, 2_000), TimeUnit.MICROSECONDS)) {
                        gaveUp(Kind.TRY_LOCK_TIMED);
                        return;
                    }
                    kind = Kind.TRY_LOCK_TIMED;
                }
                case 6 -> {
                    KeyedLock<Key>.KeyLock view = s.locks.forKey(k);
                    if (random.nextBoolean()) {
                        view.lock();
                    } else {
                        view.lockInterruptibly();
                    }
                    count(Kind.VIEW);
                    try {
                        section(s, id, 1);
                    } finally {
                        (random.nextBoolean() ? view : s.locks.forKey(key(s, id))).unlock();
                    }
                    return;
                }
                case 7 -> {
                    int mark = mark();
                    boolean was = Thread.currentThread().isInterrupted();
                    s.locks.runWithLock(k, () -> section(s, id, 1));
                    keptInterrupt("runWithLock", mark, was);
                    count(Kind.RUN_WITH_LOCK);
                    return;
                }
                default -> {
                    long c = s.locks.withLock(k, () -> {
                        section(s, id, 1);
                        return s.count[id];
                    });
                    if (c <= 0) {
                        violation(s.name + " key " + id + ": withLock returned " + c);
                    }
                    count(Kind.WITH_LOCK);
                    return;
                }
            }
            count(kind);
            try {
                section(s, id, 1);
                if (random.nextInt(6) == 0) {
                    boolean again;
                    if (random.nextBoolean()) {
                        lock(s, key(s, id));
                        again = true;
                    } else {
                        again = tryLock(s, key(s, id));
                    }
                    if (!again) {
                        violation(s.name + " key " + id + ": its holder failed to re-enter it with tryLock");
                    } else {
                        count(Kind.REENTRY);
                        try {
                            section(s, id, 2);
                        } finally {
                            unlock(s, id);
                        }
                        checkHold(s, id, 1, "after re-entry");
                    }
                }
            } finally {
                unlock(s, id);
            }
        }

        /**
         * {@code lock(a); lock(b); ... unlock(b); unlock(a)} with {@code a < b}; a {@code b} waited for untimed is
         * in the upper half of the ids (see the class comment).
         */
        private void nested(Soaked s) throws InterruptedException {
            int n = s.keys.length;
            int x = pick(s);
            int y = pick(s);
            if (x == y) {
                y = (x + 1) % n;
            }
            int a = Math.min(x, y);
            int b = Math.max(x, y);
            int how = random.nextInt(4);
            if (how <= 1 && b < n / 2) {
                b += n / 2;
            }
            touch(a);
            touch(b);
            Key ka = key(s, a);
            if (random.nextBoolean()) {
                lock(s, ka);
                count(Kind.LOCK);
            } else {
                s.locks.lockInterruptibly(ka);
                count(Kind.LOCK_INTERRUPTIBLY);
            }
            try {
                enter(s, a, 1);
                try {
                    Key kb = key(s, b);
                    Kind kind;
                    boolean got = true;
                    switch (how) {
                        case 0 -> {
                            lock(s, kb);
                            kind = Kind.NESTED_LOCK;
                        }
                        case 1 -> {
                            s.locks.lockInterruptibly(kb);
                            kind = Kind.NESTED_LOCK_INTERRUPTIBLY;
                        }
                        case 2 -> {
                            got = tryLock(s, kb);
                            kind = Kind.NESTED_TRY_LOCK;
                        }
                        default -> {
                            got = s.locks.tryLock(kb, random.nextLong(1, 2_000), TimeUnit.MICROSECONDS);
                            kind = Kind.NESTED_TRY_LOCK_TIMED;
                        }
                    }
                    if (!got) {
                        gaveUp(kind);
                        checkHold(s, b, 0, "after a failed nested try");
                        checkHold(s, a, 1, "(outer) after a failed nested try");
                    } else {
                        count(kind);
                        try {
                            section(s, b, 1);
                            checkHold(s, a, 1, "(outer) inside the inner section");
                        } finally {
                            unlock(s, b);
                        }
                    }
                } catch (InterruptedException e) {
                    // the inner acquisition gave up: the outer key is still held, once, the inner one not
                    checkHold(s, b, 0, "after an interrupted nested acquisition");
                    checkHold(s, a, 1, "(outer) after an interrupted nested acquisition");
                    throw e;
                } finally {
                    exit(s, a);
                }
            } finally {
                unlock(s, a);
            }
        }

        /**
         * A random subset, with equal duplicates, by lockAll and its siblings; lockAll and lockAllInterruptibly take
         * keys of the lower half of the ids only (see the class comment).
         */
        private void several(Soaked s) throws InterruptedException {
            int n = s.keys.length;
            int how = random.nextInt(4);
            int size = 1 + random.nextInt(6);
            List<Key> keys = new ArrayList<>(2 * size);
            int first = touchedCount;
            for (int i = 0; i < size; i++) {
                int id = pick(s);
                if (how <= 1) {
                    id %= n / 2;
                }
                touch(id);
                keys.add(key(s, id));
                if (random.nextInt(6) == 0) {
                    keys.add(Key.of(id));
                }
            }
            shuffle(keys);
            Kind kind = switch (how) {
                case 0 -> Kind.LOCK_ALL;
                case 1 -> Kind.LOCK_ALL_INTERRUPTIBLY;
                case 2 -> Kind.TRY_LOCK_ALL;
                default -> Kind.TRY_LOCK_ALL_TIMED;
            };
            boolean got = true;
            try {
                switch (how) {
                    case 0 -> {
                        int mark = mark();
                        boolean was = Thread.currentThread().isInterrupted();
                        s.locks.lockAll(keys);
                        keptInterrupt("lockAll", mark, was);
                    }
                    case 1 -> s.locks.lockAllInterruptibly(keys);
                    case 2 -> {
                        int mark = mark();
                        boolean was = Thread.currentThread().isInterrupted();
                        got = s.locks.tryLockAll(keys);
                        keptInterrupt("tryLockAll", mark, was);
                    }
                    default -> got = s.locks.tryLockAll(keys, random.nextLong(1, 3_000), TimeUnit.MICROSECONDS);
                }
            } catch (InterruptedException e) {
                for (int i = first; i < touchedCount; i++) {
                    checkHold(s, touched[i], 0, "after an interrupted " + kind.label);
                }
                throw e;
            }
            if (!got) {
                gaveUp(kind);
                for (int i = first; i < touchedCount; i++) {
                    checkHold(s, touched[i], 0, "after a failed " + kind.label);
                }
                return;
            }
            count(kind);
            try {
                for (int i = first; i < touchedCount; i++) {
                    section(s, touched[i], 1);
                }
            } finally {
                if (random.nextInt(4) == 0) {
                    for (int i = touchedCount - 1; i >= first; i--) {
                        unlock(s, touched[i]);
                    }
                } else {
                    List<Key> again = new ArrayList<>(keys.size());
                    for (Key k : keys) {
                        again.add(key(s, k.id()));
                    }
                    shuffle(again);
                    int mark = mark();
                    boolean was = Thread.currentThread().isInterrupted();
                    s.locks.unlockAll(again);
                    keptInterrupt("unlockAll", mark, was);
                }
            }
        }

        private void shuffle(List<Key> keys) {
            for (int i = keys.size() - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                keys.set(i, keys.set(j, keys.get(i)));
            }
        }

        /**
         * Puts a token for the timed waiters and signals them; signals an untimed waiter only while one waits that no
         * signal was owed to, and signalAll only when none is owed (so a lost signal stays owed to the end).
         */
        private void signaller(Soaked s) {
            int c = random.nextInt(CONDITION_KEYS);
            int id = s.conditionIds[c];
            touch(id);
            lock(s, key(s, id));
            count(Kind.LOCK);
            try {
                enter(s, id, 1);
                int mark = mark();
                boolean was = Thread.currentThread().isInterrupted();
                for (int u : new int[] {INTERRUPTIBLY, UNINTERRUPTIBLY}) {
                    if (s.waiting[u][c] > s.owed[u][c]) {
                        if (s.owed[u][c] == 0 && random.nextInt(4) == 0) {
                            s.owed[u][c] = s.waiting[u][c];
                            s.untimed[u][c].signalAll();
                            count(Kind.SIGNAL_ALL);
                        } else {
                            s.owed[u][c]++;
                            s.untimed[u][c].signal();
                            count(Kind.SIGNAL);
                        }
                    }
                }
                s.tokens[c]++;
                s.put.increment();
                if (random.nextInt(4) == 0) {
                    s.timed[c].signalAll();
                } else {
                    s.timed[c].signal();
                }
                keptInterrupt("signal", mark, was);
                exit(s, id);
            } finally {
                unlock(s, id);
            }
        }

        /**
         * Waits untimed, by await or awaitUninterruptibly (each on a condition of its own), until signalled,
         * interrupted, or the end of the run. The signallers signal a condition only while more threads wait on it
         * than signals are owed to them, and count the signal as owed; a waiter that returns takes one off.
         *
         * <p>awaitUninterruptibly: none of its waiters leaves without a signal (but spuriously), so a signal given
         * while owed < waiting finds one in the queue, and one that wakes nobody stays owed to the end, where
         * {@link #drainSignals} reports it. await: an interrupted waiter leaves the queue, and a signal given while
         * every waiter left in it is interrupted wakes nobody, as it should. Such a waiter takes one owed signal off
         * when it leaves by InterruptedException: with S the signalled waiters and C the interrupted ones not yet
         * gone, owed <= S + C holds throughout (a signal that found nobody had owed < waiting = S + C before it), and
         * both are 0 once the interrupter stopped and every woken waiter left. Owed signals that do not drain then
         * mean a waiter that was signalled and never woke, or a signal that went to nobody while one waited.
         */
        private void untimedWaiter(Soaked s) throws InterruptedException {
            int c = random.nextInt(CONDITION_KEYS);
            int id = s.conditionIds[c];
            touch(id);
            if (random.nextBoolean()) {
                lock(s, key(s, id));
                count(Kind.LOCK);
            } else {
                s.locks.lockInterruptibly(key(s, id));
                count(Kind.LOCK_INTERRUPTIBLY);
            }
            try {
                section(s, id, 1);
                if (s.stopped[c]) {
                    return;
                }
                boolean uninterruptibly = random.nextBoolean();
                int u = uninterruptibly ? UNINTERRUPTIBLY : INTERRUPTIBLY;
                s.waiting[u][c]++;
                boolean woken = false;
                try {
                    if (uninterruptibly) {
                        int mark = mark();
                        boolean was = Thread.currentThread().isInterrupted();
                        s.untimed[u][c].awaitUninterruptibly();
                        keptInterrupt("awaitUninterruptibly", mark, was);
                    } else {
                        s.untimed[u][c].await();
                    }
                    woken = true;
                } finally {
                    // await returns or throws holding the key again
                    checkHold(s, id, 1, "after await");
                    s.waiting[u][c]--;
                    if (!woken) {
                        // interrupted: see above
                        s.owed[u][c] = Math.min(Math.max(0, s.owed[u][c] - 1), s.waiting[u][c]);
                    } else if (s.owed[u][c] > 0) {
                        s.owed[u][c]--;
                        count(uninterruptibly ? Kind.AWAIT_UNINTERRUPTIBLY : Kind.AWAIT);
                    } else {
                        unowed[u].increment();
                    }
                }
                section(s, id, 1);
            } finally {
                unlock(s, id);
            }
        }

        /** Waits a few milliseconds at most, by one of the timed awaits, for a token. */
        private void timedWaiter(Soaked s) throws InterruptedException {
            int c = random.nextInt(CONDITION_KEYS);
            int id = s.conditionIds[c];
            touch(id);
            lock(s, key(s, id));
            count(Kind.LOCK);
            try {
                long nanos = TimeUnit.MICROSECONDS.toNanos(random.nextLong(1, 3_000));
                long deadline = System.nanoTime() + nanos;
                Date until = new Date(System.currentTimeMillis() + 1 + nanos / 1_000_000);
                int how = random.nextInt(3);
                try {
                    while (s.tokens[c] == 0 && !s.stopped[c]) {
                        long left = deadline - System.nanoTime();
                        boolean inTime = switch (how) {
                            case 0 -> left > 0 && s.timed[c].awaitNanos(left) > 0;
                            case 1 -> left > 0 && s.timed[c].await(left, TimeUnit.NANOSECONDS);
                            default -> s.timed[c].awaitUntil(until);
                        };
                        checkHold(s, id, 1, "after a timed await");
                        if (!inTime) {
                            break;
                        }
                    }
                } catch (InterruptedException e) {
                    checkHold(s, id, 1, "after an interrupted timed await");
                    throw e;
                }
                if (s.tokens[c] > 0) {
                    s.tokens[c]--;
                    s.taken.increment();
                    count(Kind.AWAIT_TIMED);
                } else {
                    gaveUp(Kind.AWAIT_TIMED);
                }
                section(s, id, 1);
            } finally {
                unlock(s, id);
            }
        }
    }
}
