package io.numaloom;

import io.numaloom.topology.Topology;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A lock per key: {@code lock(userId)}, {@code lock(path)}, {@code lock(cacheKey)}, with the
 * semantics of one {@link VnaLock} per key, the speed of a map of locks on keys that recur, and a
 * bounded memory whatever the keys seen.
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
 * locks.lockAll(List.of(from, to));          // several keys, in one global order: no deadlock
 * try {
 *     transfer(from, to);
 * } finally {
 *     locks.unlockAll(List.of(from, to));
 * }
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
 * <li><em>Fast on keys that recur.</em> A key that a thread locks again (or that is contended)
 *     gets an internal record and keeps it while idle, so locking it again is a lookup without a
 *     lock and one compare-and-set, and unlocking a lookup and a store: no allocation, about the
 *     cost of a {@code ConcurrentHashMap} of {@code ReentrantLock}s. A key a thread locks once
 *     and not again soon is held thin (below) and leaves nothing behind
 *     ({@link Builder#bindOnFirstLock} binds at the first lock instead).
 * <li><em>Bounded memory.</em> At most {@link Builder#idleKeys(int) idleKeys} keys (1024 by
 *     default, about 120 bytes each beside the key, record and table) stay bound while idle;
 *     binding more releases idle ones, and a background thread releases every key idle for about
 *     {@link #IDLE_SWEEP_MILLIS} ms, so an idle {@code KeyedLock} eventually keeps no reference to
 *     any key and shrinks back to its size when new. {@link #releaseIdleKeys()} does it at once.
 *     Keys in use (held, waited for, awaited) are never released. This holds whatever the keys'
 *     hashes: keys whose {@code hashCode}s collide share a chain of records that the table does not
 *     grow for; its idle records are released instead, so a lookup walks the colliding keys in use
 *     and a few idle ones (linearly, as {@code HashMap} does for keys that are not {@code Comparable}).
 * <li><em>Cheap on keys not seen lately.</em> A thread that locks a key it has not locked lately,
 *     or any key once {@code idleKeys} keys are bound, and finds no record of it holds it
 *     <em>thin</em>: it marks the key held in the key's hash
 *     bucket (a short bucket lock and a store) and releases it with one compare-and-set, binding
 *     no record and releasing no idle one. A second thread that wants the key, or the holder's
 *     re-entry or a condition of the key, turns the thin hold into a record the holder holds. A
 *     thread holds at most one key thin at a time.
 * <li><em>No allocation in steady state.</em> A released record is kept by the thread that
 *     released it and reused by that thread's next bind, so locking ever new keys one at a time
 *     allocates nothing either. A thread's first thin hold allocates its one thin-hold node
 *     (about 300 bytes with its admission filter, kept as long as the thread lives).
 * <li><em>Several keys without deadlock.</em> {@link #lockAll} locks a collection of keys in one
 *     global order, equal keys once; {@link #lockAllInterruptibly} and {@link #tryLockAll} (at once,
 *     or within a time) do the same, all or nothing.
 * </ul>
 * Keys must not change their {@code hashCode} or {@code equals} while in use, and
 * {@code equals} and {@code hashCode} should not block: they may be called while a short internal
 * bucket lock is held. An exception they throw reaches the caller and leaves the lock as it was;
 * a condition's {@code await} does not call them once its wait has begun, so it returns holding
 * the key ({@link KeyLock#newCondition()}).
 *
 * <p>The idea is that of D. Dice, "Implementing Fast Java Monitors with Relaxed-Locks" (JVM '01):
 * an object carries no monitor until one is needed, and a monitor record is bound to it on demand
 * and taken back speculatively, with one compare-and-set deciding each race between a thread that
 * found the record and the thread that takes it back; here records are taken back lazily, within
 * a budget, as HotSpot's asynchronous monitor deflation (JDK 15, JDK-8153224) does. Thin holds
 * follow D. F. Bacon, R. Konuru, C. Murthy and M. Serrano, "Thin Locks: Featherweight
 * Synchronization for Java" (PLDI '98): a lock held without contention is a word naming its
 * holder, inflated into a full monitor when a second thread needs it.
 *
 * @param <K> the type of the keys
 */
public final class KeyedLock<K> {

    /*
     * Implementation notes.
     *
     * Records. A Record is a VnaLock (so contended keys share all of its waiting code) plus a
     * binding: the key, its spread hash, the KeyedLock it belongs to (home) and a link in a hash
     * bucket's chain; and pins, the number of threads that need the record to stay bound without
     * holding its lock: each thread in the slow path of an acquisition, and each thread awaiting a
     * condition of the key. pins == -1 means unbound (deflated, spare). A holder does not pin: the
     * lock word, held, keeps the record bound.
     *
     * Invariants. (1) A record is linked in a chain of this lock's table if and only if it is
     * bound to this lock, and then pins >= 0 and its lock word is not DEFLATED. (2) Binding,
     * deflating and linking happen only under the lock of the record's bucket. (3) Deflating
     * needs two CASes in this order: the lock word 0 -> DEFLATED, then pins 0 -> -1. (4) At most
     * one linked record per key: a thread binds a new record only after scanning the bucket's
     * chain under the bucket lock and finding none for the key. (5) BOUND counts the linked
     * records, except while a binder is between its bind and its count: it counts the bind and the
     * deflations that the bind paid for in one update after both; a sweep (releaseIdleKeys)
     * counts each record it deflates before it unlinks it. (6) A key has at most one of a
     * linked record and a thin hold: a thin hold is published only under the bucket lock, after
     * the chain showed no record of the key, and a record is bound only after the chain and the
     * thin slot showed neither (a thin hold of the key is inflated instead).
     *
     * Fast path (lockBound). A locker scans the chain without the bucket lock, and on a record
     * whose binding matches takes the lock word 0 -> LOCKED by CAS, then reads the binding again:
     * the same key object and home, or it releases the lock and takes the pinned path. A record
     * deflated and rebound between the scan and the CAS is caught there: deflation moves the lock
     * word off 0 and only the binder's revive() (a release store, after it wrote the binding)
     * moves it back, so a CAS that succeeds read either the word of the binding it scanned or the
     * revive of a later one, whose binding it then sees (the CAS acquires what that release
     * published). Unlock finds the record the current thread holds (a held record's binding is
     * stable) and releases it: a store.
     *
     * Lock vs deflate. The deflater's first CAS and the fast path's CAS act on one word, so one of
     * them fails: a locker that wins holds the record and the deflater leaves it; a deflater that
     * wins makes every fast path fail until it is done. Its second CAS and a pin (pins p -> p + 1
     * for p >= 0) act on one word too: a pinned thread makes the deflation back out (the deflater
     * puts the word back to 0), and a deflation that got to -1 makes every later pin fail, so the
     * pinning thread takes the bucket lock, finds the record gone (unlinked under that lock) and
     * binds another. A pinned thread may take the lock word from DEFLATED (tryLockPinned, and a
     * heir of VnaLock, which reads DEFLATED as free): its pin came before the deflater's second
     * CAS, so that deflation is doomed, but the pin goes as soon as the thread holds the lock,
     * maybe before that CAS. So the taker adds a pin (Record.acquiredDeflated), and the deflater,
     * whose restoring CAS from DEFLATED then fails, drops it; HotSpot's ObjectMonitor::enter adds
     * an extra contention for the same reason. A pinned thread that loses its CAS to a deflater's
     * claim or back-out retries (tryLockPinned): nobody holds the lock then. A record may be
     * deflated and rebound between a locker's scan and its pin; the binder writes the binding,
     * then revives the lock word, then publishes pins with a volatile write, which the pin's CAS
     * reads: the re-read after the pin sees the new binding and the locker drops the pin, and a
     * pinned thread never sees the DEFLATED of the old deflation. A lock-free
     * scan may also wander into another chain through a record that was re-linked meanwhile; it
     * is cut at MAX_HOPS and a miss always falls back to the scan under the bucket lock, which is
     * exact by (1) and (2).
     *
     * Admission and drain. Binding a record for a key that never recurs fills the table with idle
     * records that every lookup of the bucket walks past and that keep the table at its budget's
     * size (48 KB for 1024 keys) where it is otherwise 64 buckets, a cost sync-many-keys against
     * Striped showed (docs/measurements.md, entry 40). So pinOrBind binds (within the budget) only for a key the thread held thin
     * lately: each thread's Thin node has a small filter of the hashes of its last thin holds
     * (Thin.recurs; TinyLFU's doorkeeper, per thread so that the thin path writes nothing
     * shared), and other keys are held thin even under the budget. And since keys stop recurring,
     * every DRAIN_INTERVAL-th thin hold of a thread, while records are bound, deflates one idle
     * record near its bucket that nobody locked since the drain last passed it (drainIdle; the
     * used bit, set by lockers, cleared by the drain: CLOCK's second chance). Over keys that do
     * not recur the table then holds no record and shrinks back; keys that recur keep theirs.
     * Builder.bindOnFirstLock restores binding at the first lock, and turns the drain off (a
     * drained record's key would only bind again).
     *
     * Deflation: when. A bind that brings BOUND over idleKeys deflates up to two idle records
     * in the buckets from its own on (deflateNearBind), so a burst of new keys recycles records
     * instead of growing the table; the thread keeps the last record it deflated as a spare for
     * its next bind. The sweep starts where the binder just wrote: that bucket's line,
     * and its neighbours on it, are in the binder's cache already. (A clock hand shared by every
     * binder was a word each bind wrote beside the table reference each lookup reads, and sent
     * concurrent binders to the same buckets; a hand per thread still swept lines last written by
     * other cores. Alternating runs (commit 3410dee, pre-method bench, not re-measured since) read
     * sync-many-keys 1.3-1.5x faster at 4 and 16 threads starting at the bind; see
     * docs/measurements.md, entry 35.)
     * Where a key hashes is as good a place as a hand to find an idle record: neither knows which
     * idle keys will recur. The Deflater thread calls releaseIdleKeys on every live lock with
     * bound keys once every IDLE_SWEEP_MILLIS, so a key that nobody uses is released within about
     * that. A sweep that a resize overtakes (another thread's: a binder's, or a deflater's shrink) sweeps the new
     * table too, so that a call of releaseIdleKeys in a quiet moment leaves no idle key bound even
     * when the Deflater sweeps beside it.
     *
     * Thin holds. Once the lock keeps idleKeys records bound, binding one more for a key not seen
     * lately costs a deflation (a second bucket lock, the claim and unpin CASes, the unbinding);
     * over a stream of distinct keys that was the whole cost of an acquisition. So lock, tryLock
     * and the section methods hold such a key thin instead (pinOrBind): under the bucket lock,
     * having found no record of the key, the thread writes its Thin node's key and hash and
     * publishes the node in the bucket's thin slot with a release store. One slot per bucket and
     * one node per thread: a thread whose node is in use, or that finds the slot taken, binds a
     * record as before. The holder releases with one CAS of the slot from its node to null,
     * without the bucket lock, then clears its node's key (releaseThin). Whatever needs a record of
     * the key inflates the hold, under the bucket lock (inflate): a second locker of the key (the
     * pinned path, lockAll included), the holder's own re-entry or condition await, and a resize.
     * The inflater reads the node's key and hash and takes a record, CASes the slot from the node to
     * null, clears the node's key (with release: the holder, which reads it with acquire, may take
     * its next thin hold from then on and overwrite key and hash, so nothing of the node is read
     * after the clear), binds a record held once by the node's thread (Record.bindHeld: owner, then the lock word
     * DEFLATED -> LOCKED, never passing 0) and links it. Release against inflate is that one CAS on
     * the slot: a holder whose CAS fails had its hold moved into the record, which the inflater
     * linked before it let go of the bucket lock, so the holder's heldRecord (whose last scan takes
     * that lock) finds it and unlocks it. Queries by the holder read the thin slot first and the
     * chain second, so a hold inflated in between is seen as the record. A resize inflates every
     * thin hold of the old table before it re-links the records: new tables start with empty thin
     * slots, and a holder's CAS on an old slot fails. The key cleared by the inflater (before the
     * link) and by the holder (after its CAS) is written with opaque stores, so the two writes of
     * null and the holder's next key have one order.
     *
     * lockAll. Every key's record is pinned first, so none can be deflated until the call is
     * done, and the records are locked in the order of their ids (given at creation, never
     * reused). Two calls that could wait for each other hold pins on the same records at once
     * (a key has at most one bound record, and a pinned record stays bound), so they lock in the
     * same order: no cycle. lockAllInterruptibly and tryLockAll lock in that order too; one that
     * gives up (time out, interrupt) unlocks what it had locked, latest first, before it unpins.
     *
     * Table. Buckets hold a chain head, a guard (the holding thread, or MOVED) and a thin slot. A
     * binder that finds a chain of GROW_CHAIN records while the table has fewer than eight buckets
     * per bound record, or any chain while BOUND is over a quarter of the buckets and the table is
     * smaller than four buckets per idle key (LOAD_SHIFT), doubles the table. A long chain in a
     * table that is already that large is keys whose hashes collide, which no size spreads: the
     * binder deflates idle records of that chain instead (trimChain), so the table stays within a
     * constant factor of the records (keys in use plus the idle budget) and a lookup walks the
     * colliding keys in use plus a few idle ones, whatever the hashes. A deflater whose
     * deflations leave a bucket of a grown table empty, and the next
     * SHRINK_SAMPLE buckets empty shrinks it to eight buckets per bound key within that size (half
     * the load that grows it, so the two do not alternate) and four beyond it, at least
     * MIN_BUCKETS, after it has counted them (shrinkIfSparse), and releaseIdleKeys shrinks it after
     * its sweep. A resize
     * takes every guard of the old table in index order (everybody else takes at most one guard at
     * a time, so this cannot deadlock), re-links the records, publishes the new table and marks
     * each old guard MOVED: a thread that was waiting for an old guard retries on the new table.
     *
     * Errors. No exception, an allocation failure included, leaves a guard taken, a record half
     * bound or a count wrong: guards are released in finally blocks; the records a bind or an
     * inflation needs are allocated before anything is changed; a resize that fails releases every
     * guard of the old table, which stays in use (thin holds it inflated are linked and counted);
     * the housekeeping after a bind (deflations, resize) counts before it can fail, and a bind whose
     * housekeeping fails unpins its record before the exception reaches the caller.
     */


    /** Chain links a lock-free scan follows before it falls back to the bucket lock. */
    static final int MAX_HOPS = 8;
    /** A binder that finds a chain this long doubles the table. */
    static final int GROW_CHAIN = 8;
    /**
     * A binder whose bucket was not empty doubles a table of fewer than idleKeys << LOAD_SHIFT
     * buckets while more than one bound record per 2^LOAD_SHIFT buckets: a key without a record
     * then mostly finds an empty bucket, where a walk over a chain of idle records would miss the
     * cache once per record. Beyond the idle budget's size only GROW_CHAIN grows it (held keys
     * cost table, and GROW_CHAIN keeps their chains short enough).
     */
    static final int LOAD_SHIFT = 2;
    /** Tables releaseIdleKeys sweeps at most in one call, when resizes move the records under it. */
    static final int MAX_SWEEP_PASSES = 32;
    /** Empty buckets a deflater checks before it halves a grown table. */
    static final int SHRINK_SAMPLE = 32;
    static final int MIN_BUCKETS = 64;
    static final int MAX_BUCKETS = 1 << 24;
    /** Buckets a binder looks at, from its own bucket on, for an idle record to deflate. */
    static final int SWEEP_BUCKETS = 16;
    /** Buckets, empty or not, a binder passes over at most when it looks for an idle record. */
    static final int SWEEP_HEADS = 256;

    /**
     * The default of {@link Builder#idleKeys(int)}: 1024 idle keys, about 125 KB of records and
     * table (plus the keys themselves), kept so that keys that recur find their record bound.
     */
    public static final int DEFAULT_IDLE_KEYS = 1024;

    /**
     * How often a background thread releases the idle keys of every {@code KeyedLock}: a key that
     * nobody uses is released within about this many milliseconds (1000), so an idle
     * {@code KeyedLock} eventually holds no key.
     */
    public static final long IDLE_SWEEP_MILLIS = 1000;

    private static final Object MOVED = new Object();

    /** Each thread keeps the last record it unbound, to bind without allocating. */
    private static final ThreadLocal<Record> SPARE = new ThreadLocal<>();

    /** Each thread's one {@link Thin} hold, made on its first thin hold. */
    private static final ThreadLocal<Thin> THIN_HOLD = ThreadLocal.withInitial(Thin::new);

    /** Slots of a thread's admission filter ({@link Thin#recurs}): the keys it held thin lately. */
    static final int RECENT = 64;
    /** A thread's thin holds per drain step ({@link #drainIdle}), while records are bound. */
    static final int DRAIN_INTERVAL = 16;

    /** What {@link #pinOrBind} returns when it took a thin hold. */
    private static final Object THIN = new Object();
    /** What {@link #lockBound} returns when it found the key's record but did not lock it. */
    private static final Object MISSED = new Object();

    private final byte mode;
    private final QueuePlacement placement;
    private final int idleKeys;
    /** Whether the {@link Deflater} thread releases this lock's idle keys. */
    private final boolean backgroundRelease;
    /** Whether a key's first lock binds a record ({@link Builder#bindOnFirstLock}), not only a recurring key's. */
    private final boolean bindOnFirstLock;
    /**
     * The name JFR events carry ({@link Builder#name}), or null. A field of its own: a KeyedLock is
     * one object per map of keys, not per key, so 4 bytes here cost nothing per key.
     */
    final String name;
    /** Whether JFR events carry the key's {@code toString} ({@link Builder#keysInEvents}). */
    final boolean keysInEvents;
    private volatile Table table;
    private int resizing; // RESIZING: 1 while a thread resizes
    /** Records linked in the table. Accessed through {@link #BOUND}. */
    private int bound;

    /**
     * Creates a keyed lock whose keys wait in one queue per NUMA node, as {@link VnaLock#VnaLock()}.
     *
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
     */
    public KeyedLock() {
        this(VnaPlacement.PER_NODE, null, DEFAULT_IDLE_KEYS, true, false, null, true);
    }

    private KeyedLock(byte mode, QueuePlacement placement, int idleKeys, boolean backgroundRelease,
                      boolean bindOnFirstLock, String name, boolean keysInEvents) {
        this.name = name;
        this.keysInEvents = keysInEvents;
        this.bindOnFirstLock = bindOnFirstLock;
        this.mode = mode;
        this.placement = placement;
        this.idleKeys = idleKeys;
        this.backgroundRelease = backgroundRelease;
        this.table = new Table(MIN_BUCKETS);
        if (mode != VnaPlacement.CUSTOM) {
            Topology.current(); // resolves the topology now: a bad spec fails here, never inside lock(key)
        }
    }

    /**
     * {@return a keyed lock whose keys wait in one queue per socket, as {@link VnaLock#perSocket()}}
     *
     * @param <K> the type of the keys
     */
    public static <K> KeyedLock<K> perSocket() {
        return new KeyedLock<>(VnaPlacement.PER_SOCKET, null, DEFAULT_IDLE_KEYS, true, false, null, true);
    }

    /**
     * {@return a keyed lock whose keys wait in the queues {@code placement} chooses, as {@link VnaLock#withPlacement}}
     *
     * @param <K> the type of the keys
     * @param placement chooses the queue of each waiting thread
     */
    public static <K> KeyedLock<K> withPlacement(QueuePlacement placement) {
        return new KeyedLock<>(VnaPlacement.CUSTOM, VnaLock.checkPlacement(placement), DEFAULT_IDLE_KEYS, true, false, null, true);
    }

    /**
     * {@return a builder for a keyed lock with other settings than the defaults}
     * {@code KeyedLock<String> locks = KeyedLock.builder().idleKeys(16_384).build();}
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Settings of a {@link KeyedLock}; each call returns this builder. */
    public static final class Builder {
        private byte mode = VnaPlacement.PER_NODE;
        private QueuePlacement placement;
        private int idleKeys = DEFAULT_IDLE_KEYS;
        private boolean backgroundRelease = true;
        private boolean bindOnFirstLock;
        private String name;
        private boolean keysInEvents = true;

        private Builder() {}

        /**
         * Whether the JVM's background deflater thread releases this lock's idle keys about once
         * every {@link KeyedLock#IDLE_SWEEP_MILLIS} ms (default true). Off, idle keys stay bound,
         * within {@link #idleKeys(int)}, until {@link KeyedLock#releaseIdleKeys()} or a bind over the
         * budget takes them: for a model checker that must see every thread, or code that releases
         * them itself.
         *
         * @param on whether idle keys are released in the background
         * @return this builder
         */
        public Builder releaseIdleKeysInBackground(boolean on) {
            this.backgroundRelease = on;
            return this;
        }

        /**
         * Whether a key's first {@code lock} or {@code tryLock} by a thread binds it a record, within
         * {@link #idleKeys(int)} (default false). By default a thread binds a record only for a key
         * it held thin itself among its last few dozen thin holds (an admission filter, as the
         * doorkeeper of TinyLFU): a key locked once is held thin and leaves nothing behind, so a
         * stream of keys that do not recur does not fill the idle budget with records nobody will
         * use, and keys that recur get the fast path from their second lock on. A key that is
         * contended, re-entered or awaited gets a record either way. On, a key not held thin gets a
         * record at its first lock: for keys that recur, uncontended, but each time in another
         * thread (a new virtual thread per request, say), whose filter is new.
         *
         * @param on whether a key's first lock binds a record
         * @return this builder
         */
        public Builder bindOnFirstLock(boolean on) {
            this.bindOnFirstLock = on;
            return this;
        }

        /**
         * A name for this lock in numaloom's JFR events and in the contention summary
         * ({@code numaloom-tools}), e.g. {@code "accounts"} (default: none; the report then shows
         * {@code KeyedLock@} and the identity hash).
         *
         * @param name the name, not null
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Whether numaloom's JFR events name the key of a wait by its {@code toString}, cut to
         * 64 characters (default true), so that a recording and
         * {@code numaloom-tools contention} show which keys threads waited for. Off for keys a
         * recording must not hold (user names, tokens, paths): the events then carry only the key's
         * {@code hashCode}. The string is built only for a wait that a recording commits (one at or
         * above its threshold), never on the uncontended path nor without a recording.
         *
         * @param on whether events carry the key's {@code toString}
         * @return this builder
         */
        public Builder keysInEvents(boolean on) {
            this.keysInEvents = on;
            return this;
        }

        /**
         * Keys wait in one queue per socket, as {@link VnaLock#perSocket()} (default: per NUMA node).
         *
         * @return this builder
         */
        public Builder perSocket() {
            mode = VnaPlacement.PER_SOCKET;
            placement = null;
            return this;
        }

        /**
         * Keys wait in the queues {@code placement} chooses, as {@link VnaLock#withPlacement}.
         *
         * @param placement chooses the queue of each waiting thread
         * @return this builder
         */
        public Builder placement(QueuePlacement placement) {
            this.placement = VnaLock.checkPlacement(placement);
            mode = VnaPlacement.CUSTOM;
            return this;
        }

        /**
         * How many keys the lock may keep bound while idle (default
         * {@value KeyedLock#DEFAULT_IDLE_KEYS}): a key whose record is still bound is locked with one
         * compare-and-set, without a bucket lock. A bind that brings the keys bound (in use or idle)
         * over this number releases idle ones. Each idle key costs about 80 bytes beside the key
         * itself, and keeps the key reachable until it is released, within about
         * {@link KeyedLock#IDLE_SWEEP_MILLIS} ms of going idle. 0 releases idle keys as soon as
         * another key is bound. The lock reports this budget as {@link KeyedLock#idleKeyBudget()}.
         *
         * @param idleKeys the most idle keys kept bound, 0 or more
         * @return this builder
         * @throws IllegalArgumentException if {@code idleKeys} is negative
         */
        public Builder idleKeys(int idleKeys) {
            if (idleKeys < 0) {
                throw new IllegalArgumentException("idleKeys must be >= 0, got " + idleKeys);
            }
            this.idleKeys = idleKeys;
            return this;
        }

        /**
         * {@return a new keyed lock with these settings}
         *
         * @param <K> the type of the keys
         * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
         */
        public <K> KeyedLock<K> build() {
            return new KeyedLock<>(mode, placement, idleKeys, backgroundRelease, bindOnFirstLock, name, keysInEvents);
        }
    }

    // ------------------------------------------------------------------ locking

    /**
     * Acquires the lock of {@code key}, waiting as long as it takes, as {@link Lock#lock()}.
     *
     * @param key the key
     * @throws NullPointerException if {@code key} is null
     */
    public void lock(K key) {
        int h = spread(key.hashCode());
        Object o = lockBound(key, h, true);
        if (!(o instanceof Record)) {
            lockPinned(key, h, o == MISSED);
        }
    }

    /**
     * Acquires the lock of {@code key} unless interrupted, as {@link Lock#lockInterruptibly()}.
     *
     * @param key the key
     * @throws InterruptedException if the current thread is interrupted on entry or while waiting
     */
    public void lockInterruptibly(K key) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        int h = spread(key.hashCode());
        if (lockBound(key, h, false) instanceof Record) {
            return;
        }
        Record r = pin(key, h);
        try {
            if (!r.tryLockPinned()) {
                r.lockInterruptibly();
            }
        } finally {
            unpin(r);
        }
    }

    /**
     * Acquires the lock of {@code key} if it is free or already held by the current thread.
     *
     * @param key the key
     * @return {@code true} if the lock of {@code key} was acquired
     */
    public boolean tryLock(K key) {
        int h = spread(key.hashCode());
        Object o = lockBound(key, h, false);
        if (o instanceof Record) {
            return true;
        }
        o = pinOrHoldThin(key, h, true, o == MISSED);
        if (o == THIN) {
            return true;
        }
        Record r = (Record) o;
        try {
            return r.tryLockPinned() || r.tryLock();
        } finally {
            unpin(r);
        }
    }

    /**
     * Acquires the lock of {@code key} within {@code time}, as {@link Lock#tryLock(long, TimeUnit)}.
     *
     * @param key the key
     * @param time the longest time to wait
     * @param unit the unit of {@code time}
     * @return {@code true} if the lock of {@code key} was acquired
     * @throws InterruptedException if the current thread is interrupted on entry or while waiting
     */
    public boolean tryLock(K key, long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        int h = spread(key.hashCode());
        if (lockBound(key, h, false) instanceof Record) {
            return true;
        }
        Record r = pin(key, h);
        try {
            return r.tryLockPinned() || r.tryLock(time, unit);
        } finally {
            unpin(r);
        }
    }

    /**
     * Releases one hold of the lock of {@code key}. The key's record stays bound while idle (see the
     * class comment), so that the next {@code lock} of the key takes the fast path.
     *
     * @param key the key
     * @throws IllegalMonitorStateException if the current thread does not hold it
     */
    public void unlock(K key) {
        int h = spread(Objects.requireNonNull(key, "key").hashCode());
        if (!releaseThin(key, h)) {
            unlockRecord(key);
        }
    }

    /** Releases one hold of the record of {@code key}, which the current thread holds. */
    private void unlockRecord(Object key) {
        Record r = heldRecord(key);
        if (r == null) {
            throw notHeld("unlock", key);
        }
        r.unlock();
    }

    /**
     * Ends the current thread's thin hold of {@code key}, if it has one: true. False if it has
     * none, or had one that another thread inflated meanwhile into a record the current thread
     * now holds (the caller then unlocks the record). The CAS races the inflater's.
     */
    private boolean releaseThin(Object key, int h) {
        Table t = table;
        int i = t.index(h);
        Thin n = t.thin(i);
        if (n == null || n.thread != Thread.currentThread()) {
            return false;
        }
        Object k = n.key();
        if (n.hash != h || k == null || (k != key && !key.equals(k))) {
            return false; // our thin hold here is of another key, or was inflated
        }
        boolean released = t.clearThin(i, n); // RACE: release against inflate (or a resize), on the thin slot
        n.setKey(null); // free again either way (an inflater that won cleared it already)
        return released;
    }

    /**
     * Runs {@code action} holding the lock of {@code key} and returns its result; the lock is
     * released however the action ends. Looks the key up once.
     *
     * @param <T> the type of the action's result
     * @param key the key
     * @param action what to run while holding the lock
     * @return the result of {@code action}
     */
    public <T> T withLock(K key, Supplier<? extends T> action) {
        Objects.requireNonNull(action, "action");
        int h = spread(key.hashCode());
        Record r = lockForSection(key, h);
        try {
            return action.get();
        } finally {
            unlockSection(r, key, h);
        }
    }

    /**
     * Runs {@code action} holding the lock of {@code key}; the lock is released however it ends.
     * Looks the key up once: the cheapest way to run a section under a key's lock.
     *
     * @param key the key
     * @param action what to run while holding the lock
     */
    public void runWithLock(K key, Runnable action) {
        Objects.requireNonNull(action, "action");
        int h = spread(key.hashCode());
        Record r = lockForSection(key, h);
        try {
            action.run();
        } finally {
            unlockSection(r, key, h);
        }
    }

    /** {@link #lock}, returning the record locked, which the caller unlocks directly, or null for a thin hold. */
    private Record lockForSection(K key, int h) {
        Object o = lockBound(key, h, true);
        return o instanceof Record r ? r : lockPinned(key, h, o == MISSED);
    }

    /** The end of a section begun by {@link #lockForSection}: the record's unlock, or the thin hold's release. */
    private void unlockSection(Record r, K key, int h) {
        if (r != null) {
            r.unlock();
        } else if (!releaseThin(key, h)) {
            unlockRecord(key); // inflated while we held it
        }
    }

    /**
     * Acquires the locks of every key of {@code keys}, waiting as long as it takes, without
     * deadlock: equal keys are locked once, and every call locks the keys' records in one global
     * order (the order in which the records were created), so two threads that lock overlapping
     * sets never wait for each other in a cycle, whatever the order of their collections. This is
     * the answer Guava's {@code Striped.bulkGet} gives for stripes, here for exact keys. Keys the
     * current thread already holds are re-entered. Release them with {@link #unlockAll}.
     * {@link #lockAllInterruptibly} and {@link #tryLockAll} lock in the same order, all or nothing.
     *
     * <p>If a key's {@code equals} or {@code hashCode} throws, or {@code keys} holds null, nothing
     * is locked and the exception propagates.
     *
     * @param keys the keys, in any order; equal keys are locked once
     * @throws NullPointerException if {@code keys} is or contains null
     */
    public void lockAll(Collection<? extends K> keys) {
        try {
            lockAllPinned(pinAll(keys), ALL_WAIT, 0L);
        } catch (InterruptedException e) {
            throw new AssertionError("lockAll waits uninterruptibly", e);
        }
    }

    /**
     * {@link #lockAll}, unless the current thread is interrupted: then the keys it had locked are
     * released and nothing stays locked.
     *
     * @param keys the keys, in any order; equal keys are locked once
     * @throws InterruptedException if the current thread is interrupted on entry or while waiting
     * @throws NullPointerException if {@code keys} is or contains null
     */
    public void lockAllInterruptibly(Collection<? extends K> keys) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        lockAllPinned(pinAll(keys), ALL_INTERRUPTIBLY, 0L);
    }

    /**
     * Acquires the locks of every key of {@code keys} if each is free or already held by the
     * current thread, or none of them: all or nothing, without waiting, in the order of
     * {@link #lockAll}.
     *
     * @param keys the keys, in any order; equal keys are locked once
     * @return {@code true} if every key was locked; {@code false}, with none of them locked (and
     *         the holds the current thread had before unchanged), otherwise
     * @throws NullPointerException if {@code keys} is or contains null
     */
    public boolean tryLockAll(Collection<? extends K> keys) {
        try {
            return lockAllPinned(pinAll(keys), ALL_NOW, 0L);
        } catch (InterruptedException e) {
            throw new AssertionError("tryLockAll does not wait", e);
        }
    }

    /**
     * Acquires the locks of every key of {@code keys} within {@code time}, or none of them: waits
     * as {@link #lockAll} does, in its order, so two calls cannot deadlock, and if the time runs out
     * before the last key is locked, or the thread is interrupted, releases the keys it had locked.
     * A time of zero or less tries each key once, as {@link #tryLockAll(Collection)}.
     *
     * @param keys the keys, in any order; equal keys are locked once
     * @param time the longest time to wait, for all the keys together
     * @param unit the unit of {@code time}
     * @return {@code true} if every key was locked; {@code false}, with none of them locked, if the
     *         time ran out first
     * @throws InterruptedException if the current thread is interrupted on entry or while waiting;
     *         then none of the keys is locked
     * @throws NullPointerException if {@code keys} or {@code unit} is null, or {@code keys} contains null
     */
    public boolean tryLockAll(Collection<? extends K> keys, long time, TimeUnit unit) throws InterruptedException {
        long nanos = Objects.requireNonNull(unit, "unit").toNanos(time);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return lockAllPinned(pinAll(keys), ALL_TIMED, nanos);
    }

    /** How {@link #lockAllPinned} waits for each key. */
    private static final int ALL_WAIT = 0, ALL_INTERRUPTIBLY = 1, ALL_TIMED = 2, ALL_NOW = 3;

    /**
     * Locks {@code records}, pinned by {@link #pinAll} and in its order, all or none, waiting for each
     * as {@code how} says ({@code nanos} for all of them together when timed); unpins them however it
     * ends. On a failure, an interrupt or an Error, it releases those it had locked, latest first.
     */
    private static boolean lockAllPinned(Record[] records, int how, long nanos) throws InterruptedException {
        long start = how == ALL_TIMED ? System.nanoTime() : 0L;
        int locked = 0;
        try {
            for (Record r : records) {
                if (!r.tryLockPinned()) {
                    boolean got = switch (how) {
                        case ALL_WAIT -> {
                            r.lock();
                            yield true;
                        }
                        case ALL_INTERRUPTIBLY -> {
                            r.lockInterruptibly();
                            yield true;
                        }
                        case ALL_TIMED -> r.tryLock(Math.max(0L, nanos - (System.nanoTime() - start)), TimeUnit.NANOSECONDS);
                        default -> r.tryLock();
                    };
                    if (!got) {
                        break;
                    }
                }
                locked++;
            }
        } finally {
            if (locked < records.length) { // undo, as if nothing was locked
                for (int i = locked - 1; i >= 0; i--) {
                    records[i].unlock();
                }
            }
            for (Record r : records) {
                unpin(r);
            }
        }
        return locked == records.length;
    }

    /**
     * Releases one hold of the lock of every distinct key of {@code keys}, as locked by
     * {@link #lockAll}: equal keys count once.
     *
     * @param keys the keys, in any order; equal keys count once
     * @throws IllegalMonitorStateException if the current thread does not hold one of the keys;
     *         then no lock is released
     * @throws NullPointerException if {@code keys} is or contains null
     */
    public void unlockAll(Collection<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        Record[] held = new Record[keys.size()];
        int n = 0;
        K thin = null; // a thread holds at most one key thin
        for (K key : keys) {
            if (thinHolder(key) == Thread.currentThread()) {
                thin = key;
                continue;
            }
            Record r = heldRecord(key);
            if (r == null) {
                throw notHeld("unlockAll", key);
            }
            held[n++] = r;
        }
        Arrays.sort(held, 0, n, BY_ID);
        for (int i = 0; i < n; i++) {
            if (i == 0 || held[i] != held[i - 1]) {
                held[i].unlock();
            }
        }
        if (thin != null && !releaseThin(thin, spread(thin.hashCode()))) {
            unlockRecord(thin); // inflated meanwhile
        }
    }

    /**
     * {@return the lock of {@code key} as a {@link Lock}, for code written against that interface and for
     * {@link Lock#newCondition() conditions}} The view holds the key (not a record): it may be
     * kept and used at any time, and keeps the key reachable while it is.
     *
     * @param key the key
     */
    public KeyLock forKey(K key) {
        Objects.requireNonNull(key, "key");
        return new KeyLock(key);
    }

    // ------------------------------------------------------------------ inspection

    /**
     * {@return whether some thread holds the lock of {@code key}; a snapshot for monitoring}
     *
     * @param key the key
     */
    public boolean isLocked(K key) {
        if (thinHolder(key) != null) {
            return true;
        }
        Record r = boundRecord(key);
        return r != null && r.isLocked() && r.isBoundTo(this, key);
    }

    /**
     * {@return whether the current thread holds the lock of {@code key}}
     *
     * @param key the key
     */
    public boolean isHeldByCurrentThread(K key) {
        return getHoldCount(key) > 0;
    }

    /**
     * {@return the current thread's holds on the lock of {@code key}, or zero}
     *
     * @param key the key
     */
    public int getHoldCount(K key) {
        // The thin hold first: one inflated meanwhile is a record by the time heldRecord's scan
        // under the bucket lock looks (the inflater links it before it lets go of that lock).
        if (thinHolder(key) == Thread.currentThread()) {
            return 1;
        }
        Record r = heldRecord(key);
        return r == null ? 0 : r.getHoldCount();
    }

    /** The thread that holds {@code key} thin now, or null; exact for the current thread, a snapshot for others. */
    private Thread thinHolder(Object key) {
        int h = spread(Objects.requireNonNull(key, "key").hashCode());
        Table t = table;
        Thin n = t.thin(t.index(h));
        if (n == null || n.hash != h) {
            return null;
        }
        Thread holder = n.thread;
        Object k = n.key();
        return k != null && (k == key || key.equals(k)) && t.thin(t.index(h)) == n ? holder : null;
    }

    /**
     * The record of {@code key} that the current thread holds, after inflating the current
     * thread's thin hold of the key if it has one (a condition's await needs a record); or null.
     */
    private Record heldRecordInflating(Object key) {
        int h = spread(key.hashCode());
        for (;;) {
            if (thinHolder(key) != Thread.currentThread()) {
                return heldRecord(key);
            }
            Table t = table;
            int i = t.index(h);
            if (!t.lock(i)) {
                continue;
            }
            Record r;
            try {
                Thin n = t.thin(i);
                r = n != null && n.thread == Thread.currentThread() && n.hash == h ? inflate(t, i, n, key, 0) : null;
            } finally {
                t.unlock(i);
            }
            if (r != null) {
                countBound(1);
                return r;
            }
        }
    }

    /**
     * {@return an estimate of the threads waiting to acquire the lock of {@code key}; for monitoring}
     *
     * @param key the key
     */
    public int getQueueLength(K key) {
        Record r = boundRecord(key);
        int n = r == null ? 0 : r.getQueueLength();
        return r != null && r.isBoundTo(this, key) ? n : 0;
    }

    /**
     * {@return the number of keys in use now: held, waited for, awaited, or in the middle of being locked;
     * zero when nobody uses this lock} A snapshot for monitoring: it scans the table.
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
                        if (r.inUse()) {
                            n++;
                        }
                    }
                    if (t.thin(i) != null) {
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

    /**
     * {@return the number of keys that have a record bound now: those in use and the idle ones kept for a
     * fast next lock (at most about {@link #idleKeyBudget()} of them, each released within about
     * {@link #IDLE_SWEEP_MILLIS} ms of going idle)} A snapshot for monitoring.
     */
    public int boundKeys() {
        return (int) BOUND.getVolatile(this);
    }

    /**
     * {@return the idle-key budget: the most idle keys this lock keeps bound, as set by
     * {@link Builder#idleKeys(int)} (1024 by default)} A setting, constant for the life of the lock, not a count:
     * the keys bound now are {@link #boundKeys()}, those in use {@link #activeKeys()}, and the idle ones about
     * their difference.
     */
    public int idleKeyBudget() {
        return idleKeys;
    }

    /**
     * {@return the idle-key budget, as {@link #idleKeyBudget()} does} Not the number of idle keys, which its name
     * beside {@link #activeKeys()} and {@link #boundKeys()} suggests.
     *
     * @deprecated a setting, not a count; use {@link #idleKeyBudget()}, which returns the same
     */
    @Deprecated(since = "0.1.0")
    public int idleKeys() {
        return idleKeys;
    }

    /**
     * Releases every idle key now: its record is unbound and the lock keeps no reference to the key.
     * A background thread does this for every {@code KeyedLock} about once every
     * {@link #IDLE_SWEEP_MILLIS} ms; call it to release the keys at once (before a heap dump, or
     * after a burst of keys that will not recur). Keys in use are left alone.
     *
     * @return the number of keys released
     */
    public int releaseIdleKeys() {
        int released = 0;
        // A resize during the sweep (another thread's: a binder's, or a deflater's shrink) moves the
        // records not yet swept into a new table: sweep that one too. A few passes at most; the
        // limit only bounds a call that races endless resizes of a busy lock.
        Table t = table;
        for (int pass = 0; pass < MAX_SWEEP_PASSES; pass++) {
            for (int i = 0; i < t.buckets; i++) {
                released += deflateBucket(t, i, Integer.MAX_VALUE, true, false);
            }
            Table now = table;
            if (now == t) {
                break;
            }
            t = now;
        }
        // Shrink now, also when another thread (the background deflater, a binder) is resizing: wait
        // for it and look again, so that the table fits the keys left when this call returns. The
        // interrupt status is set aside while waiting, as in Table.lock: parkNanos would not park.
        boolean interrupted = false;
        try {
            for (int tries = 0; ; tries++) {
                Table now = table;
                if (now.buckets <= MIN_BUCKETS || shrunkSize(boundKeys()) >= now.buckets || resize(now, false)) {
                    break;
                }
                if (tries < 64) {
                    Thread.yield();
                } else {
                    interrupted |= Thread.interrupted();
                    LockSupport.parkNanos(100_000L); // a resize in progress takes every guard: not long
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return released;
    }

    /** The number of hash buckets now: {@value #MIN_BUCKETS} when idle; grows with the active keys. */
    int buckets() {
        return table.buckets;
    }

    /**
     * The bytes of the table and of every bound record, each object's shallow size given by {@code sizeOf}
     * (tests measure the lock's own memory per held key with JOL); meaningful only while no thread binds or
     * deflates.
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

    /**
     * The fast path of every acquisition: finds the record bound to {@code key} without a lock and
     * takes its free lock with one CAS (with {@code spin}, after VnaLock's newcomer spin, about a
     * microsecond, if the lock is held and no heir competes for it; {@code tryLock(key)} does not spin). The binding read before the CAS is read again after it: a
     * record that was deflated and rebound in between is released again (it is no longer this
     * key's). Returns the record it locked; {@link #MISSED} if it found the record but the lock was
     * not free or the CAS lost a race; null if it found no record of the key (then the slow path
     * goes to the bucket lock at once). Either way the slow path decides.
     */
    private Object lockBound(Object key, int h, boolean spin) {
        Table t = table;
        Record r = t.head(t.index(h));
        for (int hops = 0; r != null && hops < MAX_HOPS; hops++, r = r.next()) {
            Object k = r.key();
            if (r.hash == h && k != null && (k == key || key.equals(k))) {
                if (!(spin ? r.tryLockBriefly() : r.tryLockUnqueued())) { // RACE: lock against deflate, on the lock word
                    return MISSED;
                }
                if (r.key() == k && r.home == this) {
                    r.used = true; // for the drain's second chance; the CAS has the line
                    return r;
                }
                r.unlock(); // rebound between our read of the binding and our CAS
                return MISSED;
            }
        }
        return null;
    }

    /**
     * The slow path of {@link #lock}: takes a thin hold of the key and returns null, or pins the
     * key's record, locks it, unpins and returns it. The fast path has spun as a newcomer already,
     * so the record's lock does not spin again.
     */
    private Record lockPinned(Object key, int h, boolean scan) {
        Object o = pinOrHoldThin(key, h, true, scan);
        if (o == THIN) {
            return null;
        }
        Record r = (Record) o;
        try {
            if (!r.tryLockPinned()) {
                r.lockAfterSpin();
            }
        } finally {
            unpin(r);
        }
        return r;
    }

    /** Finds or binds the record of {@code key} and pins it. */
    private Record pin(Object key, int h) {
        return (Record) pinOrHoldThin(key, h, false, true);
    }

    /**
     * Finds or binds the record of {@code key} and pins it, or, if {@code thinOk}, may take a thin
     * hold of the key instead and return {@link #THIN}. Without {@code scan} (the fast path's scan
     * has just found no record of the key) it goes to the bucket lock at once.
     */
    private Object pinOrHoldThin(Object key, int h, boolean thinOk, boolean scan) {
        for (;; scan = true) {
            Table t = table;
            Object r = scan ? pinScanning(t, h, key) : null;
            if (r == null) {
                r = pinOrBind(t, h, key, thinOk);
            }
            if (r != null) {
                return r;
            }
        }
    }

    /**
     * Pins the record of every key of {@code keys}, equal keys once, and returns them in the
     * global order of {@link #lockAll}. On an exception nothing stays pinned.
     */
    private Record[] pinAll(Collection<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        Record[] pinned = new Record[keys.size()];
        int n = 0;
        try {
            for (K key : keys) {
                Record r = pin(key, spread(key.hashCode()));
                pinned[n++] = r;
            }
        } catch (RuntimeException | Error e) {
            for (int i = 0; i < n; i++) {
                unpin(pinned[i]);
            }
            throw e;
        }
        Arrays.sort(pinned, 0, n, BY_ID);
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            if (distinct > 0 && pinned[distinct - 1] == pinned[i]) {
                unpin(pinned[i]); // an equal key: its record is pinned once already
            } else {
                pinned[distinct++] = pinned[i];
            }
        }
        return distinct == pinned.length ? pinned : Arrays.copyOf(pinned, distinct);
    }

    /**
     * The global order of {@link #lockAll}: records by creation. A record cannot be deflated
     * while pinned, so two calls that could wait for each other hold pins on the same records
     * at once and see the same order.
     */
    private static final java.util.Comparator<Record> BY_ID = (a, b) -> Long.compare(a.id, b.id);

    /** The lock-free attempt: a record bound to key, pinned, or null. */
    private Record pinScanning(Table t, int h, Object key) {
        Record r = t.head(t.index(h));
        for (int hops = 0; r != null && hops < MAX_HOPS; hops++, r = r.next()) {
            Object k = r.key();
            if (r.hash == h && r.home == this && k != null && (k == key || key.equals(k))) {
                if (!r.tryPin()) {
                    return null; // being deflated: the bucket lock will tell
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

    /**
     * Under the bucket lock: pins the record of key, or inflates the key's thin hold into a record
     * held by its holder and pins that, or, if {@code thinOk} and the lock keeps its idle keys
     * bound up to the budget already, takes a thin hold of the key for the current thread and
     * returns {@link #THIN}, or binds a record and pins it. Null if the table moved.
     */
    private Object pinOrBind(Table t, int h, Object key, boolean thinOk) {
        int i = t.index(h);
        if (!t.lock(i)) {
            return null;
        }
        Record bound;
        int chain = 0, splits = 0;
        boolean thin = false, drain = false;
        try {
            for (Record r = t.head(i); r != null; r = r.next(), chain++) {
                splits |= r.hash ^ h; // whether a doubled table would split this chain: see mayGrowForChain
                if (r.hash == h && r.isKey(key)) {
                    r.pinBound();
                    r.used = true;
                    return r;
                }
            }
            Thin n = t.thin(i);
            bound = n != null && n.hash == h ? inflate(t, i, n, key, 1) : null;
            if (bound == null && thinOk && t.thin(i) == null) {
                Thin mine = THIN_HOLD.get();
                // Admission: a record only for a key this thread held thin lately, within the budget.
                if (mine.isFree() && ((!bindOnFirstLock && !mine.recurs(h)) || (int) BOUND.getVolatile(this) >= idleKeys)) {
                    mine.hash = h;
                    mine.setKey(key);
                    t.setThin(i, mine); // release: an inflater that reads the slot sees key and hash
                    drain = !bindOnFirstLock && mine.drainDue(); // with it, a drained record's key would only bind again
                    thin = true;
                }
            }
            if (bound == null && !thin) {
                bound = spareRecord();
                bound.bind(this, h, key, t.head(i));
                t.setHead(i, bound);
            }
        } finally {
            t.unlock(i);
        }
        if (thin) {
            if (drain) {
                drainIdle(h);
            }
            return THIN;
        }
        try {
            // The bind and the deflations it pays for are counted in one update, none in the steady
            // state (one deflation per bind): BOUND is then only read, and its line stays shared.
            int over = (int) BOUND.getVolatile(this) + 1 - idleKeys;
            deflateAndCount(h, over > 0 ? Math.min(2, over) : 0, false, 1);
            if (chain >= GROW_CHAIN) {
                if (!mayGrowForChain(t, splits) || !resize(t, true)) {
                    trimChain(t, i, chain + 1 - GROW_CHAIN / 2);
                }
            } else if (chain > 0 && overLoaded(t) && t.buckets < MAX_BUCKETS) {
                resize(t, true);
            }
        } catch (RuntimeException | Error e) {
            unpin(bound); // the record stays bound, idle, counted: as after any bind
            throw e;
        }
        return bound;
    }

    /**
     * Whether a chain of GROW_CHAIN records justifies doubling {@code t}: if the doubled table
     * would split it ({@code splits}, the OR of each record's hash XOR the binder's, has the bit
     * that the doubled index adds), and while the table has fewer than eight buckets per bound
     * record. Otherwise the chain is keys whose hashes collide (a poor {@code hashCode}, or hash
     * flooding), which no table size spreads: doubling would only grow the table without bound
     * (27 keys of one hash took it to 2^24 buckets). So the table stays within a constant factor
     * of the records, which are the keys in use plus at most about {@link #idleKeys} idle ones,
     * whatever the hashes; the chain is trimmed instead.
     */
    private boolean mayGrowForChain(Table t, int splits) {
        return (splits & t.buckets) != 0 && t.buckets < MAX_BUCKETS
                && t.buckets < (long) (int) BOUND.getVolatile(this) << (LOAD_SHIFT + 1);
    }

    /**
     * Deflates up to {@code wanted} idle records of bucket i's chain, the long chain of keys whose
     * hashes collide, so that a lookup of such a key walks the records of the colliding keys in use
     * and at most about GROW_CHAIN / 2 idle ones. Skips the bucket if its guard is taken.
     */
    private void trimChain(Table t, int i, int wanted) {
        if (wanted > 0) {
            countBound(-deflateBucket(t, i, wanted, false, false));
        }
    }

    /**
     * Under bucket i's lock: if thin hold {@code n} is of {@code key} (null: of any key, for a
     * resize), ends it with the CAS that its holder's release races ({@link Table#clearThin}) and
     * binds a record held once by the holder, pinned {@code pins} times, linked at the head of
     * bucket i's chain. Returns the record, or null if the hold is
     * of another key or its holder released it first. The key is read before the CAS and cleared
     * after it, before the record is linked.
     */
    private Record inflate(Table t, int i, Thin n, Object key, int pins) {
        Object k = n.key();
        if (k == null || (key != null && k != key && !key.equals(k))) {
            return null;
        }
        // The hold's hash is read before the CAS, and the record allocated before it: once the
        // node is freed below, its holder may take a thin hold of another key and overwrite the
        // hash; and an allocation that fails after the CAS would lose the hold.
        int hash = n.hash;
        Record r = spareRecord();
        if (!t.clearThin(i, n)) { // RACE: inflate against release, on the thin slot
            keepAsSpare(r);
            return null;
        }
        n.freeAfterInflation(); // before the link: the holder, who acts on its hold only through the record now, sees it free
        r.bindHeld(this, hash, k, t.head(i), n.thread, pins);
        t.setHead(i, r);
        return r;
    }

    /** Counts {@code delta} more linked records in {@link #BOUND}; the first wakes the background release. */
    private void countBound(int delta) {
        if (delta != 0) {
            int before = (int) BOUND.getAndAdd(this, delta);
            if (before <= 0 && before + delta > 0 && backgroundRelease) {
                Deflater.watch(this);
            }
        }
    }

    /** Drops a pin. The record stays bound, idle if nobody else uses it: deflation takes it back. */
    private static void unpin(Record r) {
        r.unpin();
    }

    /**
     * The amortised deflation: a binder that brought the bound records over {@link #idleKeys}
     * deflates {@code wanted} idle records (one, or two while the count is further over, so that
     * it comes back down after a burst of keys that were held at once), in the buckets from the
     * one it bound into (hash {@code h}) on, whose line it has just written, and returns how many:
     * the caller counts them with its bind. One per bind in the steady state gives the binder's
     * thread a spare record for its next bind: no allocation. It looks into at most
     * {@link #SWEEP_BUCKETS} chains among at most {@link #SWEEP_HEADS} buckets, so a bind's work
     * is bounded while records in use fill the table. It skips a bucket whose guard is taken (by
     * a binder, or another deflater near the same buckets) instead of waiting for it. The record
     * just bound is pinned by its binder and never taken.
     */
    private int deflateNearBind(int h, int wanted) {
        return deflateNear(h, wanted, false);
    }

    /**
     * Deflates {@code wanted} idle records near hash {@code h} (as {@link #deflateNearBind}, or the
     * drain's pass with {@code clock}), counts them with {@code plus} (a bind) in one update, and
     * only then shrinks the table if the deflations left it sparse: an exception of the shrink (an
     * allocation that fails) then loses no count.
     */
    private void deflateAndCount(int h, int wanted, boolean clock, int plus) {
        Table t = table;
        int deflated = wanted > 0 ? deflateNear(h, wanted, clock) : 0;
        countBound(plus - deflated);
        if (deflated > 0) {
            shrinkIfSparse(t, t.index(h));
        }
    }

    /**
     * Halves a grown table when the buckets from {@code i} on are empty and the bound records fit
     * in fewer: a sample of the load, read without the guards (the resize counts under them).
     * The size check first: resize takes every guard before it counts, and a table that is
     * already eight buckets per bound key would take them for nothing.
     */
    private void shrinkIfSparse(Table t, int i) {
        if (t.buckets > MIN_BUCKETS && t.head(i) == null && shrunkSize(boundKeys()) < t.buckets
                && t.emptyAfter(i, SHRINK_SAMPLE)) {
            resize(t, false);
        }
    }

    /**
     * One step of the drain: a thread that took a thin hold ({@link #DRAIN_INTERVAL} of them) while
     * records are bound looks at the first chain from its bucket on and deflates one idle record
     * of it that nobody locked since the drain last passed it ({@link Record#used}, cleared as it
     * passes: CLOCK's second chance). One chain per step, so that a record is looked at about once
     * per DRAIN_INTERVAL thin holds per bound chain: a key that recurs more often keeps its record. With
     * the admission filter, which binds records only for keys that recur, this takes back the
     * records of keys that stopped recurring, so that a stream of keys that do not recur leaves
     * the table empty and small, and the keys that do recur keep theirs.
     */
    private void drainIdle(int h) {
        if ((int) BOUND.getVolatile(this) > 0) {
            deflateAndCount(h, 1, true, 0);
        }
    }

    /** {@link #deflateNearBind}, or with {@code clock} the drain's pass, which spares used records. */
    private int deflateNear(int h, int wanted, boolean clock) {
        Table t = table;
        int mask = t.buckets - 1;
        int i = t.index(h);
        int deflated = 0;
        for (int chains = 0, heads = 0, most = clock ? 1 : SWEEP_BUCKETS; chains < most && heads <= Math.min(mask, SWEEP_HEADS) && deflated < wanted;
             heads++, i = (i + 1) & mask) {
            if (t.head(i) != null) {
                chains++;
                deflated += deflateBucket(t, i, wanted - deflated, false, clock);
            }
        }
        return deflated;
    }

    /**
     * Under bucket i's lock, deflates up to {@code max} idle records of its chain; returns how
     * many. Deflation takes two CASes, as HotSpot's asynchronous monitor deflation does: the lock
     * word {@code 0 -> DEFLATED}, which makes every fast path fail, then {@code pins 0 -> -1},
     * which makes every pin fail; if a thread pinned the record in between, the deflater backs out
     * and puts the lock word back (unless the pinned thread already took the lock from DEFLATED,
     * as a pinned thread may).
     */
    private int deflateBucket(Table t, int i, int max, boolean sweeping, boolean clock) {
        if (t.head(i) == null || !(sweeping ? t.lock(i) : t.tryLock(i))) {
            return 0;
        }
        int deflated = 0;
        try {
            Record prev = null;
            for (Record r = t.head(i); r != null && deflated < max; ) {
                Record next = r.next();
                if (clock && r.used) {
                    r.used = false; // a second chance
                    prev = r;
                } else if (tryDeflate(r)) {
                    if (sweeping) {
                        // Counted before it is unlinked: a sweep that reads this bucket empty
                        // without its lock (releaseIdleKeys) then reads BOUND without it.
                        BOUND.getAndAdd(this, -1);
                    }
                    if (prev == null) {
                        t.setHead(i, next);
                    } else {
                        prev.setNext(next);
                    }
                    r.unbind();
                    deflated++;
                    keepAsSpare(r);
                } else {
                    prev = r;
                }
                r = next;
            }
        } finally {
            t.unlock(i);
        }
        return deflated;
    }

    /** The deflation of one record, under its bucket lock; see {@link #deflateBucket}. */
    private static boolean tryDeflate(Record r) {
        if ((int) Record.PINS.getVolatile(r) != 0) {
            return false; // in use: a pinned thread, or an await
        }
        r.dropOrphanReservation();
        if (!r.tryClaimForDeflation()) { // RACE: deflate against lock, on the lock word
            return false;
        }
        if (!r.tryUnpinLast()) { // RACE: deflate against pin
            if (!r.abandonDeflation()) {
                r.unpin(); // a pinned thread took the lock from DEFLATED and left us this pin
            }
            return false;
        }
        return true;
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
            try {
                SPARE.set(r); // may allocate the thread's entry
            } catch (OutOfMemoryError e) {
                // The spare only saves the next bind an allocation: dropped, it loses nothing, and
                // a deflater that has unlinked the record must not fail between that and its count.
            }
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
            if (r.isHeldByCurrentThread() && r.hash == h && r.home == this && r.isKey(key)) {
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
                    if (r.hash == h && r.isKey(key)) {
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
                    if (r.hash == h && r.isKey(key)) {
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
     * Doubles the table ({@code grow}) or shrinks it to at least eight buckets per active key,
     * holding every guard of the old one; does nothing if another thread is resizing or the
     * table changed meanwhile, and then returns false.
     */
    private boolean resize(Table t, boolean grow) {
        if (!RESIZING.compareAndSet(this, 0, 1)) {
            return false; // somebody else is resizing; a later binder or deflater will check again
        }
        // An exception (an allocation that fails, inflating a thin hold or making the new table)
        // leaves the old table as it was, every thin hold inflated so far a linked, counted record,
        // and every guard released: the lock goes on at its old size.
        int locked = 0, inflated = 0;
        boolean published = false;
        try {
            if (table != t) {
                return false;
            }
            for (; locked < t.buckets; locked++) {
                t.lockForResize(locked);
            }
            int buckets = grow ? t.buckets << 1 : shrunkSize(t.countLocked());
            if (buckets == t.buckets || (!grow && buckets > t.buckets)) {
                return true;
            }
            // Thin holds become records first (their holders' CASes on the old slots then fail, and
            // they find the records), so that the new table starts with empty thin slots.
            for (int i = 0; i < t.buckets; i++) {
                Thin h = t.thin(i);
                if (h != null && inflate(t, i, h, null, 0) != null) {
                    inflated++;
                }
            }
            Table n = newTable(buckets);
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
            published = true;
            for (int i = 0; i < t.buckets; i++) {
                t.markMoved(i);
            }
        } finally {
            if (!published) {
                for (int i = 0; i < locked; i++) {
                    t.unlock(i);
                }
            }
            RESIZING.setRelease(this, 0);
            countBound(inflated);
        }
        return true;
    }

    /**
     * Makes a resize's new table. A test seam: {@code KeyedLockAdversarialTest} fails it as an allocation
     * would, and checks that the lock stays usable.
     */
    private static Table newTable(int buckets) {
        java.util.function.IntFunction<Table> f = tableFactory;
        return f == null ? new Table(buckets) : f.apply(buckets);
    }

    /** Null, or what makes a resize's new table: for tests only (see {@link #newTable}). */
    static volatile java.util.function.IntFunction<Table> tableFactory;

    /** Whether t is smaller than the idle budget's size and holds more than its load; see LOAD_SHIFT. */
    private boolean overLoaded(Table t) {
        return t.buckets < (long) idleKeys << LOAD_SHIFT && (int) BOUND.getVolatile(this) > t.buckets >> LOAD_SHIFT;
    }

    /**
     * The size a shrink leaves: eight buckets per active key (half the load that grows the table)
     * while they fit in the idle budget's size, four beyond it, at least MIN_BUCKETS.
     */
    private int shrunkSize(int activeKeys) {
        long wanted = Math.max(MIN_BUCKETS, Math.max(4L * activeKeys,
                (long) Math.min(activeKeys, idleKeys) << (LOAD_SHIFT + 1)));
        return (int) Math.min(MAX_BUCKETS, Long.highestOneBit(wanted - 1) << 1);
    }

    private IllegalMonitorStateException notHeld(String action, Object key) {
        return new IllegalMonitorStateException("cannot " + action + " key " + key + " of " + this
                + ": the current thread " + VnaLock.threadIdentity(Thread.currentThread()) + " does not hold it");
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

        /** {@return the key this view locks} */
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

        @Override
        Object reportedKey() {
            return key;
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
         *
         * <p>The key's {@code hashCode} and {@code equals} run where an {@code await} begins and
         * in the owner checks of {@code await}, {@code signal} and {@code signalAll}: if they
         * throw there, the exception propagates, the key stays held and nothing waits or is
         * signalled (as for every method of the class). They never run after the wait has
         * begun: the signal, the wake-up and the re-acquisition reach the key's lock through
         * what the wait pinned, so {@code await} returns holding the key whatever the key's
         * methods would throw by then, and the next signalled waiter's wake-up, which waits for
         * that re-acquisition, is never lost to them.
         */
        @Override
        public Condition newCondition() {
            return new VnaCondition(this);
        }

        /** {@return whether some thread holds this key; a snapshot for monitoring} */
        public boolean isLocked() { return KeyedLock.this.isLocked(key); }
        /** {@return whether the current thread holds this key} */
        public boolean isHeldByCurrentThread() { return KeyedLock.this.isHeldByCurrentThread(key); }
        /** {@return the current thread's holds on this key, or zero} */
        public int getHoldCount() { return KeyedLock.this.getHoldCount(key); }
        /** {@return an estimate of the threads waiting to acquire this key; for monitoring} */
        public int getQueueLength() { return KeyedLock.this.getQueueLength(key); }
        /** {@return whether threads may be waiting to acquire this key; for monitoring} */
        public boolean hasQueuedThreads() { return getQueueLength() > 0; }

        /**
         * Whether {@code thread} is waiting to acquire this key, a condition waiter of the key that
         * was signalled and has not yet re-acquired it included (as {@code ReentrantLock} reports
         * it); a snapshot for monitoring, as {@link VnaLock#hasQueuedThread(Thread)}.
         *
         * @param thread the thread to look for
         * @return whether {@code thread} is queued for this key
         * @throws NullPointerException if {@code thread} is null
         */
        public boolean hasQueuedThread(Thread thread) {
            Objects.requireNonNull(thread, "thread");
            Record r = boundRecord(key);
            return r != null && r.hasQueuedThread(thread) && r.isBoundTo(KeyedLock.this, key);
        }

        /**
         * {@return the threads waiting to acquire this key, signalled condition waiters included; a
         * snapshot for monitoring, as {@link VnaLock#getQueuedThreads()}}
         */
        public Collection<Thread> getQueuedThreads() {
            Record r = boundRecord(key);
            Collection<Thread> threads = r == null ? List.of() : r.getQueuedThreads();
            return r != null && r.isBoundTo(KeyedLock.this, key) ? threads : List.of();
        }

        /**
         * {@return whether threads wait on {@code condition}, a condition of this view's key}
         *
         * @param condition a condition of this view's key
         */
        public boolean hasWaiters(Condition condition) {
            return ownCondition(condition).hasWaiters();
        }

        /**
         * {@return an estimate of the threads waiting on {@code condition}, a condition of this view's key}
         *
         * @param condition a condition of this view's key
         */
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

        /**
         * Pins the key's record for the wait and records it in {@code waiter}: the signal, the
         * wake-up and the re-acquisition then use it as it is, without the key's {@code hashCode}
         * and {@code equals}, which may throw; only this start of the wait runs them.
         */
        @Override
        int releaseFully(String action, VnaConditionWaiter waiter) {
            Record r = heldRecordInflating(key);
            if (r == null) {
                throw notHeld(action, key);
            }
            r.pinBound(); // held, so bound: the pin keeps it bound while we await, for the signal to find
            waiter.keyRecord = r; // before the release: a signaller may take the key as soon as it is free
            try {
                return r.releaseFully(action, waiter);
            } catch (RuntimeException | Error e) {
                waiter.keyRecord = null;
                unpin(r);
                throw e;
            }
        }

        @Override
        void reacquire(int saved, VnaConditionWaiter waiter) {
            Record r = pinnedRecord(waiter); // bound: our pin kept it
            try {
                r.reacquire(saved, waiter);
            } finally {
                unpin(r);
            }
        }

        @Override
        void checkOwner(String action) {
            if (!KeyedLock.this.isHeldByCurrentThread(key)) {
                throw notHeld(action, key);
            }
        }

        /**
         * The key's record that the waiter pinned counts it: the signaller holds the key (its
         * {@link #checkOwner} said so), so that record is the one it holds.
         */
        @Override
        void queueSignalled(VnaConditionWaiter waiter) {
            pinnedRecord(waiter).queueSignalled(waiter);
        }

        /** The key's record that {@code waiter}'s wait pinned ({@link #releaseFully}). */
        private static Record pinnedRecord(VnaConditionWaiter waiter) {
            return (Record) waiter.keyRecord;
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
            Thread owner = r == null ? thinHolder(key) : r.owner();
            return KeyedLock.this + "[key " + key
                    + (owner == null ? ", Unlocked]" : ", Locked by thread " + VnaLock.threadName(owner) + "]");
        }
    }

    // ------------------------------------------------------------------ internals

    /**
     * A key's lock: a {@link VnaLock} with a binding. The binding fields are written by the
     * binder under the bucket lock before its volatile write of {@code pins}, and cleared by the
     * deflater after its CAS of {@code pins} to -1.
     */
    static final class Record extends VnaLock {
        private static final java.util.concurrent.atomic.AtomicLong IDS = new java.util.concurrent.atomic.AtomicLong();

        /*
         * The binding. key is written with release (KEY) after hash and home, and read with acquire
         * (key()) by the scans that hold no bucket lock: a reader that finds a key sees the key
         * object as its binder saw it (a key built by the binder's thread and published to nobody
         * else is safe to call equals on). hash and home are plain: outside the bucket lock they
         * only filter, and every decision re-reads them after a CAS that read the binder's revive
         * (lock word) or its pins, whose release orders them. Plain, not volatile: a volatile store
         * is a full fence on x86, and a bind and a deflation wrote five of them.
         */
        private Object key;    // KEY
        KeyedLock<?> home;
        int hash;
        private Record next;   // NEXT
        private int pins = -1; // PINS
        /**
         * Locked since the drain last passed (set by lockers, cleared by the drain under the bucket
         * lock): the drain's second chance, as the CLOCK page-replacement policy's reference bit.
         * Plain: a lost update only costs a record one chance more or less.
         */
        boolean used;
        /** The record's place in the global order of {@link KeyedLock#lockAll}. */
        final long id = IDS.getAndIncrement();

        Record(byte mode, QueuePlacement placement) {
            super(mode, placement);
        }

        /** Whether a thread holds it, waits for it, awaits one of its conditions or is locking it. */
        boolean inUse() {
            return (int) PINS.getVolatile(this) > 0 || isLocked() || hasQueuedThreads();
        }

        /**
         * A reservation with no thread left to take it (nobody pins the record, so no heir exists):
         * cleared, so that the record can be deflated.
         */
        void dropOrphanReservation() {
            if (word() == RESERVED) { // a hint: the CAS decides; a failing CAS costs as much as one that succeeds
                casWord(RESERVED, 0); // RACE: the deflater's clearing against a heir's CAS from RESERVED (none is left)
            }
        }

        /**
         * A pinned thread took the lock word from DEFLATED: the deflater that claimed it has yet to
         * try, or has failed, its {@code pins: 0 -> -1}. The taker's own pin goes when it has the
         * lock (a holder does not pin), so it adds this one, which keeps that CAS failing; the
         * deflater, whose back-out then fails, drops it. HotSpot's ObjectMonitor::enter adds an
         * extra contention for the same reason when it cancels an asynchronous deflation.
         */
        @Override
        void acquiredDeflated() {
            PINS.getAndAdd(this, 1);
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
            Object k = key();
            return k != null ? k.hashCode() : 0;
        }

        @Override
        Object reportedKey() {
            return key();
        }

        /**
         * Binds a new or deflated record, pinned once for the binder, under the bucket lock and
         * before it is linked. The lock word is revived after the binding is written, so a fast
         * path whose CAS reads it sees the binding; pins are published last, so a thread that
         * reached the record before its deflation and pins it now never finds the word of that
         * deflation (DEFLATED), which it would take and the revive would then overwrite.
         */
        void bind(KeyedLock<?> home, int hash, Object key, Record next) {
            this.hash = hash;
            this.home = home;
            this.used = true;
            KEY.setRelease(this, key);
            NEXT.setRelease(this, next);
            revive();
            PINS.setVolatile(this, 1);
        }

        /**
         * {@link #bind}, for a key that {@code holder} holds thin: the record is bound held once by
         * {@code holder} and pinned {@code pins} times (the inflater's pin, or none). The lock word
         * goes from DEFLATED to LOCKED without passing 0, so a thread that found the record under
         * its old binding fails its fast-path CAS, and one that pins it re-reads the binding, as
         * after {@link #bind}.
         */
        void bindHeld(KeyedLock<?> home, int hash, Object key, Record next, Thread holder, int pins) {
            this.hash = hash;
            this.home = home;
            this.used = true;
            KEY.setRelease(this, key);
            NEXT.setRelease(this, next);
            reviveHeldBy(holder);
            PINS.setVolatile(this, pins);
        }

        /** Clears the binding after the deflater's {@code pins: 0 -> -1}, whose CAS orders these stores after it. */
        void unbind() {
            home = null;
            KEY.setOpaque(this, null);
        }

        /** The bound key, or null: read with acquire, for scans that hold no bucket lock. */
        Object key() {
            return KEY.getAcquire(this);
        }

        /** Whether the record is bound to {@code k} (the caller compared the hash). */
        boolean isKey(Object k) {
            Object mine = key();
            return mine == k || (mine != null && k.equals(mine));
        }

        boolean isBoundTo(KeyedLock<?> lock, Object k) {
            return home == lock && isKey(k);
        }

        /** A pin on a record that may be being deflated: fails once its pins are -1. */
        boolean tryPin() {
            for (int p; (p = (int) PINS.getVolatile(this)) >= 0; ) {
                if (PINS.compareAndSet(this, p, p + 1)) {
                    return true;
                }
            }
            return false;
        }

        /** A pin under the bucket lock, where a linked record cannot have been deflated. */
        void pinBound() {
            if (!tryPin()) {
                throw new IllegalStateException("a linked record was unbound: " + this);
            }
        }

        /** Drops one pin and returns how many remain. */
        int unpin() {
            return (int) PINS.getAndAdd(this, -1) - 1;
        }

        /** The deflater's second CAS: succeeds only if nobody pinned the record. */
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
        private static final VarHandle KEY;
        static final VarHandle PINS;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                NEXT = l.findVarHandle(Record.class, "next", Record.class);
                KEY = l.findVarHandle(Record.class, "key", Object.class);
                PINS = l.findVarHandle(Record.class, "pins", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /**
     * A thread's thin hold of a key that has no record: the holder is fixed, the key and its hash
     * are written by the holder under the bucket lock before the node is published in the bucket's
     * thin slot, and the key is cleared by the holder once the slot no longer holds the node (its
     * own CAS, or an inflater's). A thread has one node, so it holds at most one key thin.
     */
    static final class Thin {
        final Thread thread = Thread.currentThread();
        private Object key; // KEY: opaque, for one order of the holder's and an inflater's writes
        int hash;
        /**
         * The admission filter: the spread hashes of the keys this thread held thin lately, one per
         * slot, 0 for none. Whole hashes, not short fingerprints: a false positive binds a record
         * nobody will use, and over a stream of keys that do not recur even one in a hundred would
         * fill the idle budget. Holder only, as are seed and holds.
         */
        private final int[] recent = new int[RECENT];
        /** A xorshift state, for the filter's replacements. */
        private int seed = (int) thread.threadId() * 0x9E3779B9 | 1;
        /** Thin holds taken, for {@link #drainDue}. */
        private int holds;

        /**
         * Whether this thread held the key of hash {@code h} thin lately: its hash is in its slot
         * of the filter (or another key's of that hash is: a record bound for nothing).
         * Otherwise records it there, over a previous key's with probability 1/2, so that keys
         * that share a slot and alternate do not push each other out forever.
         */
        boolean recurs(int h) {
            int i = (h >>> 16) & (RECENT - 1);
            int was = recent[i];
            if (was == h) {
                return true;
            }
            int x = seed;
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            seed = x;
            if (was == 0 || x < 0) {
                recent[i] = h;
            }
            return false;
        }

        /** Whether this thin hold is the thread's {@link #DRAIN_INTERVAL}th since its last drain step. */
        boolean drainDue() {
            return (++holds & (DRAIN_INTERVAL - 1)) == 0;
        }

        Object key() {
            return KEY.getOpaque(this);
        }

        void setKey(Object k) {
            KEY.setOpaque(this, k);
        }

        /**
         * Whether the node is free for a new thin hold: read by its holder only, with acquire, so
         * that an inflater's reads of the old hold ({@link #freeAfterInflation}'s release) come
         * before the holder's writes of the next one.
         */
        boolean isFree() {
            return KEY.getAcquire(this) == null;
        }

        /** The inflater's clear, with release: its reads of key and hash come before the holder's next writes. */
        void freeAfterInflation() {
            KEY.setRelease(this, null);
        }

        private static final VarHandle KEY;

        static {
            try {
                KEY = MethodHandles.lookup().findVarHandle(Thin.class, "key", Object.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /**
     * Buckets: slot {@code 3i} is the chain head, slot {@code 3i + 1} the guard, slot {@code 3i + 2}
     * the thin hold (a {@link Thin}, or null). A bucket's three slots share a cache line, except
     * where the bucket straddles two.
     */
    static final class Table {
        final int buckets;
        private final Object[] slots;

        Table(int buckets) {
            this.buckets = buckets;
            this.slots = new Object[buckets * 3];
        }

        int index(int hash) {
            return hash & (buckets - 1);
        }

        Record head(int i) {
            return (Record) SLOTS.getAcquire(slots, 3 * i);
        }

        void setHead(int i, Record r) {
            SLOTS.setRelease(slots, 3 * i, r);
        }

        /** Bucket i's thin hold, or null: read with acquire, so the holder's key and hash are seen. */
        Thin thin(int i) {
            return (Thin) SLOTS.getAcquire(slots, 3 * i + 2);
        }

        /** Publishes a thin hold; only under bucket i's guard, on an empty slot. */
        void setThin(int i, Thin n) {
            SLOTS.setRelease(slots, 3 * i + 2, n);
        }

        /** Ends thin hold {@code n}: its holder's release, or an inflation. The one CAS that decides between them. */
        boolean clearThin(int i, Thin n) {
            return SLOTS.compareAndSet(slots, 3 * i + 2, n, null);
        }

        /**
         * Takes bucket i's guard; false if the table has moved. The guard is held for a scan and
         * a few stores (plus the key's equals), so waiting spins briefly, then yields, then
         * sleeps in growing steps: never a long busy spin.
         */
        boolean lock(int i) {
            Object g = SLOTS.getVolatile(slots, 3 * i + 1);
            if (g == null && SLOTS.compareAndSet(slots, 3 * i + 1, null, Thread.currentThread())) {
                return true;
            }
            return g != MOVED && lockSlow(i);
        }

        /**
         * {@link #lock}'s wait. The sleeps must really sleep: {@code parkNanos} returns at once
         * while the interrupt status is set, so an interrupted thread (in {@code lock(key)}, which
         * ignores interrupts) would spin here without ever unmounting, and with one carrier the
         * guard's holder (a resize parked for another guard) would never run again. So the status
         * is cleared while the thread sleeps and set again on the way out.
         */
        private boolean lockSlow(int i) {
            Thread me = Thread.currentThread();
            boolean interrupted = false;
            try {
                for (int tries = 0; ; tries++) {
                    Object g = SLOTS.getVolatile(slots, 3 * i + 1);
                    if (g == MOVED) {
                        return false;
                    }
                    if (g == null && SLOTS.compareAndSet(slots, 3 * i + 1, null, me)) {
                        return true;
                    }
                    if (tries < 64) {
                        Thread.onSpinWait();
                    } else if (tries < 96) {
                        Thread.yield();
                    } else {
                        interrupted |= Thread.interrupted();
                        LockSupport.parkNanos(this, Math.min(1_000L << Math.min(tries - 96, 10), 1_000_000L));
                    }
                }
            } finally {
                if (interrupted) {
                    me.interrupt();
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

        /** One try at bucket i's guard: false if it is taken, or moved. */
        boolean tryLock(int i) {
            return SLOTS.getVolatile(slots, 3 * i + 1) == null && SLOTS.compareAndSet(slots, 3 * i + 1, null, Thread.currentThread());
        }

        void unlock(int i) {
            SLOTS.setRelease(slots, 3 * i + 1, null);
        }

        void markMoved(int i) {
            SLOTS.setRelease(slots, 3 * i + 1, MOVED);
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

    /**
     * The background thread that releases idle keys: every {@link #IDLE_SWEEP_MILLIS} ms it calls
     * {@link #releaseIdleKeys()} on every live {@code KeyedLock} that has bound keys, as HotSpot's
     * monitor deflation thread deflates idle monitors. One daemon thread for the JVM, started by
     * the first bind; it holds the locks weakly, and parks without a timeout while no lock has a
     * bound key.
     */
    static final class Deflater {
        private static final ConcurrentLinkedQueue<WeakReference<KeyedLock<?>>> LOCKS = new ConcurrentLinkedQueue<>();
        private static final Object START = new Object();
        private static volatile Thread thread;
        /** Set by the deflater before it parks for good, then it looks once more; cleared by a wake. */
        private static volatile boolean sleeping;

        private Deflater() {}

        /** Called by the bind that took {@code lock} from no bound key to one. */
        static void watch(KeyedLock<?> lock) {
            if (!lock.watched) {
                LOCKS.add(new WeakReference<>(lock));
                lock.watched = true; // racy: a second registration only sweeps the lock twice
            }
            Thread t = thread;
            if (t == null) {
                t = start();
            }
            if (sleeping) {
                sleeping = false;
                LockSupport.unpark(t);
            }
        }

        private static Thread start() {
            synchronized (START) {
                Thread t = thread;
                if (t == null) {
                    t = Thread.ofPlatform().daemon().name("numaloom-keyed-deflater").stackSize(256 * 1024)
                            .unstarted(Deflater::run);
                    thread = t;
                    t.start();
                }
                return t;
            }
        }

        private static void run() {
            for (;;) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(IDLE_SWEEP_MILLIS));
                if (!sweep()) {
                    sleeping = true;
                    if (!sweep()) { // a bind racing the flag is seen here, or sees the flag
                        while (sleeping) {
                            LockSupport.park();
                        }
                    }
                    sleeping = false;
                }
            }
        }

        /** Releases the idle keys of every live lock; whether any lock still has bound keys. */
        private static boolean sweep() {
            boolean any = false;
            for (java.util.Iterator<WeakReference<KeyedLock<?>>> it = LOCKS.iterator(); it.hasNext(); ) {
                KeyedLock<?> lock = it.next().get();
                if (lock == null) {
                    it.remove();
                    continue;
                }
                try {
                    if (lock.boundKeys() > 0) {
                        lock.releaseIdleKeys();
                        any |= lock.boundKeys() > 0;
                    }
                } catch (RuntimeException | Error e) {
                    any = true; // a key's equals threw inside a resize, say: try again next time
                }
            }
            return any;
        }
    }

    /** Whether the {@link Deflater} holds a reference to this lock. */
    private volatile boolean watched;

    private static final VarHandle RESIZING;
    private static final VarHandle BOUND;

    static {
        try {
            RESIZING = MethodHandles.lookup().findVarHandle(KeyedLock.class, "resizing", int.class);
            BOUND = MethodHandles.lookup().findVarHandle(KeyedLock.class, "bound", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
