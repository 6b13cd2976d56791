package io.numaloom;

import io.numaloom.topology.Topology;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A lock per key: {@code lock(userId)}, {@code lock(path)}, {@code lock(cacheKey)}, with the
 * semantics of one {@link VnaLock} per key and memory that follows the keys in use, not the keys
 * ever seen.
 *
 * <pre>{@code
 * KeyedLock<String> locks = new KeyedLock<>();
 * locks.lock(accountId);
 * try {
 *     // only one thread at a time runs here for this accountId; other ids do not wait
 * } finally {
 *     locks.unlock(accountId);
 * }
 * int balance = locks.withLock(accountId, () -> ledger.balance(accountId));
 * }</pre>
 *
 * <p><b>Guarantees.</b>
 * <ul>
 * <li><em>Exact exclusion per key.</em> Keys are compared by {@code equals}/{@code hashCode}.
 *     Two keys never share a lock, so holding two keys cannot deadlock with another thread that
 *     holds two other keys (unlike lock striping, where keys that collide on a stripe do).
 * <li><em>{@code ReentrantLock} semantics per key.</em> Reentrant, with hold counts, owner
 *     checks, {@link #tryLock(Object)}, timed and interruptible acquisition, and conditions
 *     through {@link #forKey}. Contended keys wait as {@code VnaLock} waiters do: per NUMA node
 *     queues, parking, a bound in time on overtaking.
 * <li><em>Memory follows activity.</em> A key has a record only while some thread holds it, waits
 *     for it or awaits one of its conditions; the record is recycled when the last of them
 *     leaves, so an idle {@code KeyedLock} holds no per-key memory and keeps no reference to a
 *     key. The table of records grows with the number of keys in use at once and shrinks back.
 * <li><em>No allocation in steady state.</em> A recycled record is kept by the thread that freed
 *     it and reused by that thread's next lock of any key, so a thread that locks and unlocks
 *     keys one at a time allocates nothing after its first lock.
 * </ul>
 * Keys must not change their {@code hashCode} or {@code equals} while locked, and
 * {@code equals} and {@code hashCode} should not block: they are called while a short internal
 * bucket lock is held.
 *
 * <p>The idea is that of D. Dice, "Implementing Fast Java Monitors with Relaxed-Locks" (JVM '01):
 * an object carries no monitor until one is needed, a monitor record is bound to it on demand,
 * and it is unbound speculatively as soon as nobody uses it, with one compare-and-set deciding
 * the race between a thread that found the record and the thread that unbinds it.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Records.</b> A {@link Record} is a {@link VnaLock} (so contended keys share all of its
 * waiting code) plus a binding: the key, its spread hash, the {@code KeyedLock} it belongs to
 * ({@code home}) and a link in a hash bucket's chain; and {@code pins}, the number of threads
 * using it: each hold, each thread trying to lock and each thread awaiting a condition of the
 * key counts once. {@code pins == -1} means unbound (retired or spare).
 *
 * <p><b>Invariants.</b> (1) A record is linked in a chain of this lock's table if and only if it
 * is bound to this lock, and then {@code pins >= 0}. (2) Binding, unbinding and linking happen
 * only under the lock of the record's bucket. (3) Unbinding needs the CAS {@code pins: 0 -> -1}.
 * (4) At most one linked record per key: a thread binds a new record only after scanning the
 * bucket's chain under the bucket lock and finding none for the key.
 *
 * <p><b>Lock vs unbind.</b> A locker scans the chain without the bucket lock; on a record whose
 * binding matches it pins with the CAS {@code pins: p -> p + 1} for {@code p >= 0}, then reads
 * the binding again. The unbinder's CAS {@code 0 -> -1} and the pin CAS act on one word, so one
 * of them fails: either the unbinder sees the pin and leaves the record bound (the locker will
 * unbind it when it is done), or the locker sees {@code -1}, takes the bucket lock, and finds
 * the record gone (the unbinder unlinked it under that lock) and binds another. A record may be
 * unbound and rebound between the locker's read and its pin; the binder writes the binding
 * before its volatile write of {@code pins}, which the locker's CAS reads (JLS 17.4.4: a
 * volatile write synchronizes-with every later read of that variable), so the re-read after the
 * pin sees the new binding, and the locker drops the pin. A lock-free scan may also wander
 * into another chain through a record that was re-linked meanwhile; it is cut at
 * {@link #MAX_HOPS} and a miss always falls back to the scan under the bucket lock, which is
 * exact by (1) and (2).
 *
 * <p><b>Releasing.</b> {@code unlock} releases the record's {@code VnaLock} and then unpins; the
 * thread that brings {@code pins} to 0 takes the bucket lock and tries {@code 0 -> -1}. It
 * re-finds the record in the chain under that lock rather than trusting a hash read earlier, so
 * a record rebound meanwhile is never unlinked from a chain it is not in. When the CAS fails a
 * later user owns the unbinding. Since every user's pin covers its whole call into the
 * {@code VnaLock}, {@code pins == 0} means no thread is inside it: the record is quiescent and
 * may serve another key.
 *
 * <p><b>Table.</b> Buckets hold a chain head and a guard (the holding thread, or
 * {@code MOVED}). A binder that finds a chain of {@link #GROW_CHAIN} records doubles the
 * table; an unbinder that empties a bucket of a grown table and finds the next
 * {@link #SHRINK_SAMPLE} buckets empty shrinks it to four buckets per active key (at least
 * {@link #MIN_BUCKETS}), so the last unbind of a burst returns the table to its idle size. A resize takes every guard of the old table in
 * index order (everybody else takes at most one guard at a time, so this cannot deadlock),
 * re-links the records, publishes the new table and marks each old guard {@code MOVED}: a thread
 * that was waiting for an old guard retries on the new table.
 */
public final class KeyedLock<K> {

    /** Chain links a lock-free scan follows before it falls back to the bucket lock. */
    static final int MAX_HOPS = 8;
    /** A binder that finds a chain this long doubles the table. */
    static final int GROW_CHAIN = 8;
    /** Empty buckets an unbinder checks before it halves a grown table. */
    static final int SHRINK_SAMPLE = 32;
    static final int MIN_BUCKETS = 64;
    static final int MAX_BUCKETS = 1 << 24;

    private static final Object MOVED = new Object();

    /** Each thread keeps the last record it unbound, to bind without allocating. */
    private static final ThreadLocal<Record> SPARE = new ThreadLocal<>();

    private final byte mode;
    private final QueuePlacement placement;
    private volatile Table table;
    private int resizing; // RESIZING: 1 while a thread resizes

    /**
     * Creates a keyed lock whose keys wait in one queue per NUMA node, as {@link VnaLock#VnaLock()}.
     *
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
     */
    public KeyedLock() {
        this(VnaLock.PER_NODE, null);
    }

    private KeyedLock(byte mode, QueuePlacement placement) {
        this.mode = mode;
        this.placement = placement;
        this.table = new Table(MIN_BUCKETS);
        if (mode != VnaLock.CUSTOM) {
            Topology.current(); // resolves the topology now: a bad spec fails here, never inside lock(key)
        }
    }

    /** A keyed lock whose keys wait in one queue per socket, as {@link VnaLock#perSocket()}. */
    public static <K> KeyedLock<K> perSocket() {
        return new KeyedLock<>(VnaLock.PER_SOCKET, null);
    }

    /** A keyed lock whose keys wait in the queues {@code placement} chooses, as {@link VnaLock#withPlacement}. */
    public static <K> KeyedLock<K> withPlacement(QueuePlacement placement) {
        return new KeyedLock<>(VnaLock.CUSTOM, VnaLock.checkPlacement(placement));
    }

    // ------------------------------------------------------------------ locking

    /**
     * Acquires the lock of {@code key}, waiting as long as it takes, as {@link Lock#lock()}.
     *
     * @throws NullPointerException if {@code key} is null
     */
    public void lock(K key) {
        Record r = pin(key);
        boolean locked = false;
        try {
            r.lock();
            locked = true;
        } finally {
            if (!locked) {
                unpin(r);
            }
        }
    }

    /** Acquires the lock of {@code key} unless interrupted, as {@link Lock#lockInterruptibly()}. */
    public void lockInterruptibly(K key) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Record r = pin(key);
        boolean locked = false;
        try {
            r.lockInterruptibly();
            locked = true;
        } finally {
            if (!locked) {
                unpin(r);
            }
        }
    }

    /** Acquires the lock of {@code key} if it is free or already held by the current thread. */
    public boolean tryLock(K key) {
        Record r = pin(key);
        boolean locked = false;
        try {
            locked = r.tryLock();
        } finally {
            if (!locked) {
                unpin(r);
            }
        }
        return locked;
    }

    /** Acquires the lock of {@code key} within {@code time}, as {@link Lock#tryLock(long, TimeUnit)}. */
    public boolean tryLock(K key, long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Record r = pin(key);
        boolean locked = false;
        try {
            locked = r.tryLock(time, unit);
        } finally {
            if (!locked) {
                unpin(r);
            }
        }
        return locked;
    }

    /**
     * Releases one hold of the lock of {@code key}.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold it
     */
    public void unlock(K key) {
        Record r = heldRecord(key);
        if (r == null) {
            throw notHeld("unlock", key);
        }
        r.unlock();
        unpin(r);
    }

    /**
     * Runs {@code action} holding the lock of {@code key} and returns its result; the lock is
     * released however the action ends.
     */
    public <T> T withLock(K key, Supplier<? extends T> action) {
        Objects.requireNonNull(action, "action");
        Record r = pin(key);
        boolean locked = false;
        try {
            r.lock();
            locked = true;
            return action.get();
        } finally {
            if (locked) {
                r.unlock();
            }
            unpin(r);
        }
    }

    /** Runs {@code action} holding the lock of {@code key}; the lock is released however it ends. */
    public void runWithLock(K key, Runnable action) {
        Objects.requireNonNull(action, "action");
        withLock(key, () -> {
            action.run();
            return null;
        });
    }

    /**
     * The lock of {@code key} as a {@link Lock}, for code written against that interface and for
     * {@link Lock#newCondition() conditions}. The view holds the key (not a record): it may be
     * kept and used at any time, and keeps the key reachable while it is.
     */
    public KeyLock forKey(K key) {
        Objects.requireNonNull(key, "key");
        return new KeyLock(key);
    }

    // ------------------------------------------------------------------ inspection

    /** Whether some thread holds the lock of {@code key}; a snapshot for monitoring. */
    public boolean isLocked(K key) {
        Record r = boundRecord(key);
        return r != null && r.isLocked() && r.isBoundTo(this, key);
    }

    /** Whether the current thread holds the lock of {@code key}. */
    public boolean isHeldByCurrentThread(K key) {
        return heldRecord(key) != null;
    }

    /** The current thread's holds on the lock of {@code key}, or zero. */
    public int getHoldCount(K key) {
        Record r = heldRecord(key);
        return r == null ? 0 : r.getHoldCount();
    }

    /** An estimate of the threads waiting to acquire the lock of {@code key}; for monitoring. */
    public int getQueueLength(K key) {
        Record r = boundRecord(key);
        int n = r == null ? 0 : r.getQueueLength();
        return r != null && r.isBoundTo(this, key) ? n : 0;
    }

    /**
     * The number of keys that have a record now (held, waited for, awaited, or in the middle of
     * being locked or unlocked); zero when nobody uses this lock. A snapshot for monitoring: it
     * scans the table.
     */
    public int activeKeys() {
        for (;;) {
            Table t = table;
            int n = 0;
            for (int i = 0; i < t.buckets; i++) {
                if (!t.lock(i)) {
                    n = -1;
                    break; // the table moved: count again
                }
                try {
                    for (Record r = t.head(i); r != null; r = r.next()) {
                        n++;
                    }
                } finally {
                    t.unlock(i);
                }
            }
            if (n >= 0) {
                return n;
            }
        }
    }

    /** The number of hash buckets now: {@value #MIN_BUCKETS} when idle; grows with the active keys. */
    int buckets() {
        return table.buckets;
    }

    /**
     * The bytes of the table and of every bound record, each object's shallow size given by {@code sizeOf}
     * (tests measure the lock's own memory per held key with JOL); meaningful only while no thread binds or
     * unbinds.
     */
    long ownBytes(java.util.function.ToLongFunction<Object> sizeOf) {
        Table t = table;
        long bytes = sizeOf.applyAsLong(this) + sizeOf.applyAsLong(t) + sizeOf.applyAsLong(t.slots);
        for (int i = 0; i < t.buckets; i++) {
            for (Record r = t.head(i); r != null; r = r.next()) {
                bytes += sizeOf.applyAsLong(r);
            }
        }
        return bytes;
    }

    // ------------------------------------------------------------------ records

    /** Finds or binds the record of {@code key} and pins it. */
    private Record pin(Object key) {
        Objects.requireNonNull(key, "key");
        int h = spread(key.hashCode());
        for (;;) {
            Table t = table;
            Record r = pinScanning(t, h, key);
            if (r == null) {
                r = pinOrBind(t, h, key);
            }
            if (r != null) {
                return r;
            }
        }
    }

    /** The lock-free attempt: a record bound to key, pinned, or null. */
    private Record pinScanning(Table t, int h, Object key) {
        Record r = t.head(t.index(h));
        for (int hops = 0; r != null && hops < MAX_HOPS; hops++, r = r.next()) {
            Object k = r.key;
            if (r.hash == h && r.home == this && k != null && (k == key || key.equals(k))) {
                if (!r.tryPin()) {
                    return null; // being unbound: the bucket lock will tell
                }
                boolean bound = false;
                try {
                    bound = r.isBoundTo(this, key); // the key's equals, which may throw
                } finally {
                    if (!bound) {
                        unpin(r); // rebound between our read and our pin, or equals threw
                    }
                }
                return bound ? r : null;
            }
        }
        return null;
    }

    /** Under the bucket lock: pins the record of key, or binds one. Null if the table moved. */
    private Record pinOrBind(Table t, int h, Object key) {
        int i = t.index(h);
        if (!t.lock(i)) {
            return null;
        }
        Record bound;
        int chain = 0;
        try {
            for (Record r = t.head(i); r != null; r = r.next(), chain++) {
                if (r.hash == h && (r.key == key || key.equals(r.key))) {
                    r.pinBound();
                    return r;
                }
            }
            bound = spareRecord();
            bound.bind(this, h, key, t.head(i));
            t.setHead(i, bound);
        } finally {
            t.unlock(i);
        }
        if (chain >= GROW_CHAIN && t.buckets < MAX_BUCKETS) {
            resize(t, true);
        }
        return bound;
    }

    /** Drops one pin; the thread that drops the last one unbinds the record. */
    private void unpin(Record r) {
        if (r.unpin() == 0) {
            unbind(r);
        }
    }

    private void unbind(Record r) {
        for (;;) {
            Table t = table;
            int i = t.index(r.hash);
            if (!t.lock(i)) {
                continue; // the table moved: look in the new one
            }
            boolean emptied = false;
            try {
                Record prev = null;
                Record c = t.head(i);
                while (c != null && c != r) {
                    prev = c;
                    c = c.next();
                }
                if (c == null || !r.tryUnpinLast()) {
                    return; // rebound elsewhere, or pinned again: a later user unbinds it
                }
                if (prev == null) {
                    t.setHead(i, r.next());
                    emptied = r.next() == null;
                } else {
                    prev.setNext(r.next());
                }
                r.unbind();
            } finally {
                t.unlock(i);
            }
            keepAsSpare(r);
            if (emptied && t.buckets > MIN_BUCKETS && t.emptyAfter(i, SHRINK_SAMPLE)) {
                resize(t, false);
            }
            return;
        }
    }

    /**
     * The thread's spare record if it suits this lock's placement, else a new one. A spare of another
     * placement is dropped, not kept: kept, it would stay the spare forever and every bind of this
     * lock would allocate.
     */
    private Record spareRecord() {
        Record r = SPARE.get();
        if (r != null) {
            SPARE.set(null);
            if (r.placedBy(mode, placement)) {
                return r;
            }
        }
        return new Record(mode, placement);
    }

    private static void keepAsSpare(Record r) {
        if (SPARE.get() == null) {
            SPARE.set(r);
        }
    }

    /** The record of key held by the current thread, or null. */
    private Record heldRecord(Object key) {
        Objects.requireNonNull(key, "key");
        int h = spread(key.hashCode());
        Table t = table;
        Record r = t.head(t.index(h));
        for (int hops = 0; r != null && hops < MAX_HOPS; hops++, r = r.next()) {
            // A record the current thread holds stays bound to its key: its binding is stable.
            if (r.isHeldByCurrentThread() && r.hash == h && r.home == this && (r.key == key || key.equals(r.key))) {
                return r;
            }
        }
        for (;;) {
            t = table;
            int i = t.index(h);
            if (!t.lock(i)) {
                continue;
            }
            try {
                for (r = t.head(i); r != null; r = r.next()) {
                    if (r.hash == h && (r.key == key || key.equals(r.key))) {
                        return r.isHeldByCurrentThread() ? r : null;
                    }
                }
                return null;
            } finally {
                t.unlock(i);
            }
        }
    }

    /** The record bound to key now, unpinned, or null: for monitoring (and tests) only. */
    Record boundRecord(Object key) {
        Objects.requireNonNull(key, "key");
        int h = spread(key.hashCode());
        for (;;) {
            Table t = table;
            int i = t.index(h);
            if (!t.lock(i)) {
                continue;
            }
            try {
                for (Record r = t.head(i); r != null; r = r.next()) {
                    if (r.hash == h && (r.key == key || key.equals(r.key))) {
                        return r;
                    }
                }
                return null;
            } finally {
                t.unlock(i);
            }
        }
    }

    /**
     * Doubles the table ({@code grow}) or shrinks it to at least four buckets per active key,
     * holding every guard of the old one; does nothing if another thread is resizing or the
     * table changed meanwhile.
     */
    private void resize(Table t, boolean grow) {
        if (!RESIZING.compareAndSet(this, 0, 1)) {
            return; // somebody else is resizing; a later binder or unbinder will check again
        }
        try {
            if (table != t) {
                return;
            }
            for (int i = 0; i < t.buckets; i++) {
                t.lockForResize(i);
            }
            int buckets = grow ? t.buckets << 1 : shrunkSize(t.countLocked());
            if (buckets == t.buckets || (!grow && buckets > t.buckets)) {
                for (int i = 0; i < t.buckets; i++) {
                    t.unlock(i);
                }
                return;
            }
            Table n = new Table(buckets);
            for (int i = 0; i < t.buckets; i++) {
                for (Record r = t.head(i); r != null; ) {
                    Record next = r.next();
                    int j = n.index(r.hash);
                    r.setNext(n.head(j));
                    n.setHead(j, r);
                    r = next;
                }
            }
            table = n;
            for (int i = 0; i < t.buckets; i++) {
                t.markMoved(i);
            }
        } finally {
            RESIZING.setRelease(this, 0);
        }
    }

    private static int shrunkSize(int activeKeys) {
        long wanted = Math.max(MIN_BUCKETS, 4L * activeKeys);
        return (int) Math.min(MAX_BUCKETS, Long.highestOneBit(wanted - 1) << 1);
    }

    private IllegalMonitorStateException notHeld(String action, Object key) {
        return new IllegalMonitorStateException("cannot " + action + " key " + key + " of " + this
                + ": the current thread " + Thread.currentThread().getName() + " does not hold it");
    }

    /** Spreads the user's hash over every bit (a multiplicative mix), so that low bits index. */
    static int spread(int h) {
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    // ------------------------------------------------------------------ the Lock view

    /**
     * The lock of one key of a {@link KeyedLock} as a {@link Lock}, with the inspection methods
     * of {@link VnaLock}. Two views of equal keys of the same {@code KeyedLock} are the same lock.
     */
    public final class KeyLock extends ConditionLock implements Lock {
        private final K key;

        private KeyLock(K key) {
            this.key = key;
        }

        /** The key this view locks. */
        public K key() {
            return key;
        }

        @Override
        Object reportedLock() {
            return KeyedLock.this;
        }

        @Override
        int reportedKeyHash() {
            return key.hashCode();
        }

        @Override public void lock() { KeyedLock.this.lock(key); }
        @Override public void lockInterruptibly() throws InterruptedException { KeyedLock.this.lockInterruptibly(key); }
        @Override public boolean tryLock() { return KeyedLock.this.tryLock(key); }
        @Override public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return KeyedLock.this.tryLock(key, time, unit);
        }
        @Override public void unlock() { KeyedLock.this.unlock(key); }

        /**
         * A condition of this key's lock. A thread awaiting it keeps the key's record bound, so
         * a signal made by a later holder of the key reaches it.
         */
        @Override
        public Condition newCondition() {
            return new VnaCondition(this);
        }

        /** Whether some thread holds this key; a snapshot for monitoring. */
        public boolean isLocked() { return KeyedLock.this.isLocked(key); }
        /** Whether the current thread holds this key. */
        public boolean isHeldByCurrentThread() { return KeyedLock.this.isHeldByCurrentThread(key); }
        /** The current thread's holds on this key, or zero. */
        public int getHoldCount() { return KeyedLock.this.getHoldCount(key); }
        /** An estimate of the threads waiting to acquire this key; for monitoring. */
        public int getQueueLength() { return KeyedLock.this.getQueueLength(key); }
        /** Whether threads may be waiting to acquire this key; for monitoring. */
        public boolean hasQueuedThreads() { return getQueueLength() > 0; }

        /** Whether threads wait on {@code condition}, a condition of this view's key. */
        public boolean hasWaiters(Condition condition) {
            return ownCondition(condition).hasWaiters();
        }

        /** An estimate of the threads waiting on {@code condition}, a condition of this view's key. */
        public int getWaitQueueLength(Condition condition) {
            return ownCondition(condition).waitQueueLength();
        }

        private VnaCondition ownCondition(Condition condition) {
            Objects.requireNonNull(condition, "condition");
            if (!(condition instanceof VnaCondition c) || !(c.lock instanceof KeyedLock<?>.KeyLock v)
                    || v.owner() != KeyedLock.this || !Objects.equals(v.key, key)) {
                throw new IllegalArgumentException("not a condition of this key's lock: " + condition);
            }
            return c;
        }

        private KeyedLock<K> owner() {
            return KeyedLock.this;
        }

        @Override
        int releaseFully(String action) {
            Record r = heldRecord(key);
            if (r == null) {
                throw notHeld(action, key);
            }
            return r.releaseFully(action); // the holds' pins stay: the record stays bound
        }

        @Override
        void reacquire(int saved) {
            Record r = boundRecord(key); // bound: our pins kept it
            r.reacquire(saved);
        }

        @Override
        void checkOwner(String action) {
            if (heldRecord(key) == null) {
                throw notHeld(action, key);
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof KeyedLock<?>.KeyLock v && v.owner() == KeyedLock.this && v.key.equals(key);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(KeyedLock.this) * 31 + key.hashCode();
        }

        /** Names the key and, like {@code ReentrantLock}, the owning thread while there is one. */
        @Override
        public String toString() {
            Record r = boundRecord(key);
            Thread owner = r == null ? null : r.owner();
            return KeyedLock.this + "[key " + key
                    + (owner == null ? ", Unlocked]" : ", Locked by thread " + owner.getName() + "]");
        }
    }

    // ------------------------------------------------------------------ internals

    /**
     * A key's lock: a {@link VnaLock} with a binding. The binding fields are written by the
     * binder under the bucket lock before its volatile write of {@code pins}, and cleared by the
     * unbinder after its CAS of {@code pins} to -1.
     */
    static final class Record extends VnaLock {
        volatile Object key;
        volatile KeyedLock<?> home;
        volatile int hash;
        private Record next;   // NEXT
        private int pins = -1; // PINS

        Record(byte mode, QueuePlacement placement) {
            super(mode, placement);
        }

        /** The owner, or null; a snapshot for monitoring. */
        Thread owner() {
            return getOwner();
        }

        /** JFR events name the KeyedLock; the record is pinned while it is waited for, so home is set. */
        @Override
        Object reportedLock() {
            Object h = home;
            return h != null ? h : this;
        }

        @Override
        int reportedKeyHash() {
            Object k = key;
            return k != null ? k.hashCode() : 0;
        }

        void bind(KeyedLock<?> home, int hash, Object key, Record next) {
            this.hash = hash;
            this.key = key;
            this.home = home;
            NEXT.setRelease(this, next);
            PINS.setVolatile(this, 1);
        }

        void unbind() {
            home = null;
            key = null;
        }

        boolean isBoundTo(KeyedLock<?> lock, Object k) {
            Object mine = key;
            return home == lock && mine != null && (mine == k || k.equals(mine));
        }

        /** A pin on a record that may be unbinding: fails if it is. */
        boolean tryPin() {
            for (int p; (p = (int) PINS.getVolatile(this)) >= 0; ) {
                if (PINS.compareAndSet(this, p, p + 1)) {
                    return true;
                }
            }
            return false;
        }

        /** A pin under the bucket lock, where a linked record cannot be unbinding. */
        void pinBound() {
            if (!tryPin()) {
                throw new IllegalStateException("a linked record was unbound: " + this);
            }
        }

        /** Drops one pin and returns how many remain. */
        int unpin() {
            return (int) PINS.getAndAdd(this, -1) - 1;
        }

        /** The unbinder's CAS: succeeds only if nobody uses the record. */
        boolean tryUnpinLast() {
            return PINS.compareAndSet(this, 0, -1);
        }

        Record next() {
            return (Record) NEXT.getAcquire(this);
        }

        void setNext(Record n) {
            NEXT.setRelease(this, n);
        }

        private static final VarHandle NEXT;
        private static final VarHandle PINS;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                NEXT = l.findVarHandle(Record.class, "next", Record.class);
                PINS = l.findVarHandle(Record.class, "pins", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /** Buckets: slot {@code 2i} is the chain head, slot {@code 2i + 1} the guard. */
    static final class Table {
        final int buckets;
        private final Object[] slots;

        Table(int buckets) {
            this.buckets = buckets;
            this.slots = new Object[buckets * 2];
        }

        int index(int hash) {
            return hash & (buckets - 1);
        }

        Record head(int i) {
            return (Record) SLOTS.getAcquire(slots, 2 * i);
        }

        void setHead(int i, Record r) {
            SLOTS.setRelease(slots, 2 * i, r);
        }

        /**
         * Takes bucket i's guard; false if the table has moved. The guard is held for a scan and
         * a few stores (plus the key's equals), so waiting spins briefly, then yields, then
         * sleeps in growing steps: never a long busy spin.
         */
        boolean lock(int i) {
            Thread me = Thread.currentThread();
            for (int tries = 0; ; tries++) {
                Object g = SLOTS.getVolatile(slots, 2 * i + 1);
                if (g == MOVED) {
                    return false;
                }
                if (g == null && SLOTS.compareAndSet(slots, 2 * i + 1, null, me)) {
                    return true;
                }
                if (tries < 64) {
                    Thread.onSpinWait();
                } else if (tries < 96) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(Math.min(1_000L << Math.min(tries - 96, 10), 1_000_000L));
                }
            }
        }

        /** The resizer's lock: no bucket of a current table is MOVED. */
        void lockForResize(int i) {
            if (!lock(i)) {
                throw new IllegalStateException("bucket " + i + " of the current table is marked moved");
            }
        }

        /** The number of linked records; the caller holds every guard. */
        int countLocked() {
            int n = 0;
            for (int i = 0; i < buckets; i++) {
                for (Record r = head(i); r != null; r = r.next()) {
                    n++;
                }
            }
            return n;
        }

        void unlock(int i) {
            SLOTS.setRelease(slots, 2 * i + 1, null);
        }

        void markMoved(int i) {
            SLOTS.setRelease(slots, 2 * i + 1, MOVED);
        }

        /** Whether the {@code count} buckets after i hold no record (a sample of the load). */
        boolean emptyAfter(int i, int count) {
            for (int k = 1; k <= count; k++) {
                if (head((i + k) & (buckets - 1)) != null) {
                    return false;
                }
            }
            return true;
        }

        private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Object[].class);
    }

    private static final VarHandle RESIZING;

    static {
        try {
            RESIZING = MethodHandles.lookup().findVarHandle(KeyedLock.class, "resizing", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
