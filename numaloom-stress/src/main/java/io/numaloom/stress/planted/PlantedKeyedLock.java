package io.numaloom.stress.planted;

import io.numaloom.stress.subject.KeyedSubject;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A small model of {@code KeyedLock}'s protocol (records stay bound while idle and are taken back by deflation)
 * with an optional planted bug, to show that the keyed proofs (Lincheck's {@code KeyedCounters} and
 * {@code KeyPairCounters}, jcstress's {@link PlantedKeyedMutex}) catch a deflater that ignores a racing locker, a
 * thin hold taken outside the guard, and an inflater that reads a thin-hold node it has freed. With
 * {@link Bug#NONE} it is correct, and the tests that pass on {@code KeyedLock} must pass on it.
 *
 * <p><b>Protocol.</b> {@code KeyedLock}'s, without the resizing, the queues and the budget. Keys hash (their
 * {@code hashCode}) to one of a fixed number of buckets (one unless the constructor asks for more); each bucket
 * has a guard, a chain of bound records, a thin slot and a spare record. A bucket's chain is linked and unlinked
 * only under its guard, and a thread holds at most one guard at a time. A record is bound to a key and its hash;
 * lookups match both. It has a lock word ({@link #FREE}, {@link #LOCKED}, {@link #DEFLATED}), an owner and a
 * hold count for re-entry, and {@code pins}: the number of threads in the slow path of an acquisition, which need
 * the record to stay bound without holding it ({@code -1}: deflated). A holder does not pin; the lock word, held,
 * keeps the record bound. A record stays bound after its last user leaves.
 * <ul>
 * <li><em>Fast path.</em> Scan the key's chain without the guard; on the record of an equal key and hash, CAS the
 *     word {@code FREE -> LOCKED}, then read the binding again: the same key object, or release the word and take
 *     the slow path (the record was deflated and bound again in between).
 * <li><em>Slow path.</em> Pin the record (CAS {@code pins: p -> p + 1} for {@code p >= 0}) and check its binding,
 *     or else, under the guard, pin the linked record of the key, inflate the key's thin hold (below) or bind a
 *     record (the bucket's deflated spare if there is one: the binder writes the hash and the key, then revives
 *     the word with {@code FREE}, then sets {@code pins} to 1, in that order, because a thread that read the
 *     record before its deflation may still reach it). Then take the word from {@code FREE} or from
 *     {@code DEFLATED} (the pin makes that deflation back out), re-enter, or wait: a bounded spin with
 *     {@link Thread#onSpinWait()}, then {@link Thread#yield()}; then unpin.
 * <li><em>Deflation</em> ({@link #releaseIdleKeys()}, under each bucket's guard in turn), for each linked record:
 *     CAS the word {@code FREE -> DEFLATED} (a fast locker's CAS on the same word decides against it), then CAS
 *     {@code pins: 0 -> -1}; if a thread pinned the record in between, back out with CAS
 *     {@code DEFLATED -> FREE}. A deflated record is unlinked, its key cleared, and kept as the bucket's spare.
 * <li><em>A pinned thread that takes the word from {@code DEFLATED}</em> adds one pin before it returns, and the
 *     deflater whose back-out CAS then fails drops it, as HotSpot's {@code ObjectMonitor::enter} adds an extra
 *     contention when it cancels an asynchronous deflation. Without that pin, the taker unpins (a holder does not
 *     pin) and the deflater's {@code pins: 0 -> -1}, if it comes after, succeeds on a held record: the record is
 *     unlinked under its holder, as with the planted bug below. {@code KeyedLock} does the same
 *     ({@code Record.acquiredDeflated}).
 * <li><em>Thin holds</em> (with {@code thinHolds}, as {@code KeyedLock} once its idle budget is bound): each
 *     thread has one thin-hold node per lock, reused for each of its thin holds and free while its key is null. A
 *     locker whose node is free and that finds no record of the key takes, under the bucket's guard, a thin hold
 *     if the bucket's slot is free: it writes its node's hash and key and publishes the node in the slot. It
 *     releases with CAS {@code slot: node -> null}, then frees its node. A thread that needs a record of a key
 *     held thin (a second locker, the holder's re-entry) inflates the hold under the guard: it reads the node's
 *     key and hash, CASes {@code slot: node -> null}, frees the node (its holder may take a thin hold of another
 *     key from then on, in another bucket, whose guard the inflater does not hold) and binds a record of that key
 *     and hash, held by the holder. That CAS and the release's decide between them; a holder whose CAS failed
 *     finds the record and unlocks it.
 * </ul>
 *
 * <p><b>{@link Bug#DEFLATE_IGNORES_LOCKER}.</b> The deflater checks "word is {@code FREE} and {@code pins} is 0"
 * with two reads, then writes {@code DEFLATED} and {@code -1} without a CAS and unlinks the record. A fast
 * locker whose CAS lands between the check and the writes holds a record that is no longer linked: its unlock
 * does not find it, and the next locker of the key binds another record (or the same one, from the spare) and
 * gets in too. A thread that pinned in between is lost the same way, and its unpin, later, can leave a record
 * bound again with pins below 0: a locker that finds it binds another record and gets in too.
 *
 * <p><b>{@link Bug#THIN_IGNORES_BINDER}.</b> The thin acquisition checks "no record of the key, the slot free"
 * without the guard and then writes its hold: a locker that binds a record of the key under the guard, or takes
 * the slot, between the check and the write is not seen, and both threads hold the key.
 *
 * <p><b>{@link Bug#INFLATE_READS_FREED_NODE}</b> ({@code KeyedLock.inflate} before commit 6b531ce). The inflater
 * reads the node's key, CASes the slot, frees the node, takes a record, and only then reads the node's hash to
 * bind the record under. The holder, whose node is free, may have taken a thin hold of its next key meanwhile
 * (in another bucket) and written that key's hash: the record of the first key is then bound under the second's
 * hash in the first key's chain, where no lookup of either key matches it. The holder's unlock of the first key
 * does not find its hold ({@link IllegalMonitorStateException}), and the next locker of that key finds no record
 * and no thin hold and gets in while the holder still holds it. It needs two buckets or more: with one, the
 * holder's next thin hold waits for the guard the inflater holds.
 *
 * <p>Waiting spins instead of parking, so that the model runs unchanged on jcstress's platform threads and under
 * Lincheck's model checker, which sees each spin iteration as a point where it may switch threads.
 */
public final class PlantedKeyedLock<K> implements KeyedSubject<K> {

    /** The bug planted in a keyed lock. */
    public enum Bug {
        /** A correct keyed lock: the control. */
        NONE,
        /**
         * The deflater checks the word and the pins with reads, then deflates with writes instead of the two
         * CASes: a locker that took the word or pinned the record since the check is overwritten.
         */
        DEFLATE_IGNORES_LOCKER,
        /**
         * With thin holds: the thin acquisition checks for a record and a free slot without the guard, then
         * writes its hold: a binder or another thin holder of the key since the check is not seen.
         */
        THIN_IGNORES_BINDER,
        /**
         * With thin holds and two buckets or more: the inflater frees the thin-hold node, then reads the hash it
         * binds the record under: the holder's next thin hold, of a key in another bucket, may have overwritten it.
         */
        INFLATE_READS_FREED_NODE
    }

    /**
     * A thread's thin-hold node, one per thread and lock, reused for each of its thin holds: free while its key is
     * null. Its holder writes hash and key while it is free, then publishes it in the bucket's slot; the holder's
     * release or an inflater frees it.
     */
    static final class Thin {
        final Thread holder = Thread.currentThread();
        volatile Object key;
        volatile int hash;

        boolean isFree() {
            return key == null;
        }

        boolean isOf(int h, Object k) {
            Object mine = key;
            return mine != null && hash == h && (mine == k || k.equals(mine));
        }
    }

    /** A bucket: its guard (the bucket itself), its chain, its thin slot and its spare record. */
    static final class Bucket {
        /** The chain of bound records: written under the guard, scanned without it. */
        volatile Record head;
        /** The thin hold, or null: set under the guard, cleared by CAS (release or inflation). */
        volatile Thin thin; // THIN
        /** The last record deflated here, for the next bind here; under the guard. */
        Record spare;
    }

    static final int FREE = 0;
    static final int LOCKED = 1;
    static final int DEFLATED = 2;

    /** Spins of a waiter before it starts yielding. */
    private static final int SPINS = 32;
    /** Chain links a lock-free scan follows before it falls back to the guard. */
    private static final int MAX_HOPS = 8;

    /** A key's lock while bound; reused for another key after deflation. */
    static final class Record {
        volatile int word;              // WORD
        volatile int pins = -1;         // PINS; -1: deflated (or never bound)
        volatile int waiting;           // WAITING: threads spinning for the word, for hasQueuedThreads
        volatile Thread owner;
        /** Re-entries beyond the first; owner-only. */
        int holds;
        volatile int hash;
        volatile Object key;
        volatile Record next;

        boolean isBoundTo(int h, Object k) {
            Object mine = key;
            return mine != null && hash == h && (mine == k || k.equals(mine));
        }
    }

    private static final VarHandle WORD;
    private static final VarHandle PINS;
    private static final VarHandle WAITING;
    private static final VarHandle THIN;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            THIN = l.findVarHandle(Bucket.class, "thin", Thin.class);
            WORD = l.findVarHandle(Record.class, "word", int.class);
            PINS = l.findVarHandle(Record.class, "pins", int.class);
            WAITING = l.findVarHandle(Record.class, "waiting", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Bug bug;
    /** Spins {@link Bug#INFLATE_READS_FREED_NODE}'s inflater waits, at most, for the freed node's hash to change. */
    private final int freedNodeSpins;
    private final boolean thinHolds;
    private final Bucket[] buckets;
    /** Each thread's thin-hold node for this lock; null without thin holds. */
    private final ThreadLocal<Thin> nodes;

    /** A model without thin holds: every key locked gets a record. One bucket. */
    public PlantedKeyedLock(Bug bug) {
        this(bug, false);
    }

    /** A model with thin holds if {@code thinHolds} (which {@link Bug#THIN_IGNORES_BINDER} needs). One bucket. */
    public PlantedKeyedLock(Bug bug, boolean thinHolds) {
        this(bug, thinHolds, 1);
    }

    /**
     * A model with thin holds if {@code thinHolds}, over {@code buckets} buckets (a power of two; a key's bucket is
     * its {@code hashCode} modulo that). {@link Bug#INFLATE_READS_FREED_NODE} needs thin holds and two buckets.
     */
    public PlantedKeyedLock(Bug bug, boolean thinHolds, int buckets) {
        this(bug, thinHolds, buckets, 0);
    }

    /**
     * As {@link #PlantedKeyedLock(Bug, boolean, int)}, with {@link Bug#INFLATE_READS_FREED_NODE}'s window widened:
     * after freeing the node, the inflater waits up to {@code freedNodeSpins} spins for the hash to change before
     * it reads it, as an inflater preempted there would. The real bug's window is a few instructions; jcstress on
     * a machine whose CPUs are busy with other work runs the two actors at the same moment too rarely to hit it
     * (none in 663,571 samples, 5 runs). Lincheck's model checker needs no widening: it chooses the switch.
     */
    public PlantedKeyedLock(Bug bug, boolean thinHolds, int buckets, int freedNodeSpins) {
        if ((bug == Bug.THIN_IGNORES_BINDER || bug == Bug.INFLATE_READS_FREED_NODE) && !thinHolds) {
            throw new IllegalArgumentException(bug + " is a bug of thin holds");
        }
        if (buckets < 1 || Integer.bitCount(buckets) != 1) {
            throw new IllegalArgumentException("buckets must be a power of two: " + buckets);
        }
        if (bug == Bug.INFLATE_READS_FREED_NODE && buckets < 2) {
            throw new IllegalArgumentException(bug + " needs two buckets: with one, the holder's next thin hold"
                    + " waits for the guard the inflater holds");
        }
        if (freedNodeSpins < 0 || freedNodeSpins > 0 && bug != Bug.INFLATE_READS_FREED_NODE) {
            throw new IllegalArgumentException("freedNodeSpins widens INFLATE_READS_FREED_NODE's window only, and"
                    + " cannot be negative: " + freedNodeSpins + " with " + bug);
        }
        this.bug = bug;
        this.freedNodeSpins = freedNodeSpins;
        this.thinHolds = thinHolds;
        this.buckets = new Bucket[buckets];
        for (int i = 0; i < buckets; i++) {
            this.buckets[i] = new Bucket();
        }
        this.nodes = thinHolds ? ThreadLocal.withInitial(Thin::new) : null;
    }

    public Bug bug() {
        return bug;
    }

    private static int hash(Object key) {
        return Objects.requireNonNull(key, "key").hashCode();
    }

    private Bucket bucket(int h) {
        return buckets[h & (buckets.length - 1)];
    }

    // ------------------------------------------------------------------ acquisition

    @Override
    public void lock(K key) {
        int h = hash(key);
        if (lockFast(key, h) == null && !holdThin(key, h)) {
            try {
                lockPinned(key, h, false, false, 0L);
            } catch (InterruptedException e) {
                throw new AssertionError("an uninterruptible acquisition threw", e);
            }
        }
    }

    @Override
    public void lockInterruptibly(K key) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        int h = hash(key);
        if (lockFast(key, h) == null) {
            lockPinned(key, h, true, false, 0L);
        }
    }

    @Override
    public boolean tryLock(K key) {
        int h = hash(key);
        if (lockFast(key, h) != null || holdThin(key, h)) {
            return true;
        }
        Record r = pin(key, h);
        try {
            return tryLockPinned(r) || reenter(r);
        } finally {
            unpin(r);
        }
    }

    @Override
    public boolean tryLock(K key, long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        int h = hash(key);
        if (lockFast(key, h) != null) {
            return true;
        }
        return lockPinned(key, h, true, true, System.nanoTime() + unit.toNanos(time));
    }

    /**
     * The fast path: the record of key found without the guard, its word taken {@code FREE -> LOCKED}, its
     * binding read again. Returns the record now held, or null (missing, held, being deflated, or rebound).
     */
    private Record lockFast(K key, int h) {
        Record r = bucket(h).head;
        for (int hops = 0; r != null && hops < MAX_HOPS; hops++, r = r.next) {
            Object k = r.key;
            if (k != null && r.hash == h && (k == key || key.equals(k))) {
                if (!WORD.compareAndSet(r, FREE, LOCKED)) { // RACE: lock against deflate, on the word
                    return null;
                }
                if (r.key != k) {
                    WORD.setVolatile(r, FREE); // deflated and bound again between our read and our CAS
                    return null;
                }
                r.owner = Thread.currentThread();
                return r;
            }
        }
        return null;
    }

    /**
     * With thin holds, a thin hold of a key that has no record, if the current thread's node is free and the
     * bucket's slot too: under the guard, or, with {@link Bug#THIN_IGNORES_BINDER}, checked without it and then
     * written.
     */
    private boolean holdThin(K key, int h) {
        if (!thinHolds) {
            return false;
        }
        Thin mine = nodes.get();
        if (!mine.isFree()) {
            return false; // this thread holds another key thin
        }
        Bucket b = bucket(h);
        if (bug == Bug.THIN_IGNORES_BINDER) {
            if (linked(b, h, key, Integer.MAX_VALUE) != null || b.thin != null) {
                return false;
            }
            takeThin(b, mine, h, key); // planted: a bind or a thin hold since the check is overwritten
            return true;
        }
        synchronized (b) {
            if (linked(b, h, key, Integer.MAX_VALUE) != null || b.thin != null) {
                return false;
            }
            takeThin(b, mine, h, key);
            return true;
        }
    }

    /** Writes the free node's hash and key, then publishes it in the slot. */
    private static void takeThin(Bucket b, Thin mine, int h, Object key) {
        mine.hash = h;
        mine.key = key;
        b.thin = mine;
    }

    /** The slow path: pin, take the word, re-enter or wait, unpin. False on timeout. */
    private boolean lockPinned(K key, int h, boolean interruptible, boolean timed, long deadline)
            throws InterruptedException {
        Record r = pin(key, h);
        try {
            if (tryLockPinned(r) || reenter(r)) {
                return true;
            }
            WAITING.getAndAdd(r, 1);
            try {
                for (int spins = 0; ; spins++) {
                    if (interruptible && Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    if (timed && System.nanoTime() - deadline >= 0L) {
                        return false;
                    }
                    if (spins < SPINS) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield();
                    }
                    if (tryLockPinned(r)) {
                        return true;
                    }
                }
            } finally {
                WAITING.getAndAdd(r, -1);
            }
        } finally {
            unpin(r);
        }
    }

    /**
     * A pinned thread's attempt: takes the word from {@code FREE}, or from {@code DEFLATED}: a deflation that our
     * pin makes fail. Taken from {@code DEFLATED}, it adds a pin for the deflater to drop, since ours goes when we
     * return and the deflater's {@code pins: 0 -> -1} may still be to come (see {@link #deflate}). A CAS lost to
     * the deflater's claim or back-out is retried: nobody holds the key then.
     */
    private static boolean tryLockPinned(Record r) {
        for (;;) {
            int s = r.word;
            if (s == LOCKED) {
                return false;
            }
            if (WORD.compareAndSet(r, s, LOCKED)) {
                if (s == DEFLATED) {
                    PINS.getAndAdd(r, 1); // still pinned by us, so the deflation cannot have completed
                }
                r.owner = Thread.currentThread();
                return true;
            }
        }
    }

    private static boolean reenter(Record r) {
        if (r.owner != Thread.currentThread()) {
            return false;
        }
        r.holds++;
        return true;
    }

    @Override
    public void unlock(K key) {
        int h = hash(key);
        Bucket b = bucket(h);
        Thin n = b.thin;
        if (n != null && n.holder == Thread.currentThread() && n.isOf(h, key)) {
            boolean released = THIN.compareAndSet(b, n, null); // RACE: release against inflate, on the thin slot
            n.key = null; // free either way (an inflater whose CAS won freed it already)
            if (released) {
                return;
            } // a failed CAS: the hold is a record now
        }
        Record r = heldRecord(key, h);
        if (r == null) {
            throw new IllegalMonitorStateException(Thread.currentThread().getName() + " does not hold key " + key);
        }
        if (r.holds > 0) {
            r.holds--;
            return;
        }
        r.owner = null;
        WORD.setVolatile(r, FREE); // the record stays bound, idle
    }

    // ------------------------------------------------------------------ records

    /**
     * Pins the record of key: found by the lock-free scan, or else under the guard, where it may be bound, by
     * inflating the key's thin hold or afresh.
     */
    private Record pin(K key, int h) {
        Bucket b = bucket(h);
        Record r = linked(b, h, key, MAX_HOPS);
        if (r != null && tryPin(r)) {
            if (r.isBoundTo(h, key)) {
                return r;
            }
            unpin(r); // deflated and bound to another key between our read and our pin
        }
        synchronized (b) {
            r = linked(b, h, key, Integer.MAX_VALUE);
            if (r != null) {
                if (tryPin(r)) {
                    return r;
                }
                if (bug == Bug.NONE) {
                    throw new IllegalStateException("a linked record was deflated: key " + key);
                }
                // Planted: a deflation that overwrote a pin let stale unpins drive a rebound record's pins
                // below 0. Bind another record for the key, as the bug's lost lockers do, so that the bug
                // shows in the outcome (two holders), not as an exception that jcstress reports as an error.
            }
            r = inflate(b, h, key);
            if (r == null) {
                r = spareOrNew(b);
                r.hash = h;
                r.key = key;
                r.next = b.head;
                WORD.setVolatile(r, FREE); // revive, after the binding: a fast path whose CAS reads this sees it
            }
            r.pins = 1;                // then let pins in: a pinned thread never sees the word of the old deflation
            b.head = r;
            return r;
        }
    }

    /**
     * Under b's guard: if b's thin slot holds key, ends that hold with the CAS that its holder's release races and
     * returns a record bound to the hold's key and hash, held by the holder, not yet pinned or linked (its next is
     * set). Null if the slot holds no hold of key or its holder released it first. With {@link Bug#NONE} the
     * node's key and hash are read before the CAS, and nothing of the node after it frees the node.
     */
    private Record inflate(Bucket b, int h, K key) {
        Thin n = b.thin;
        if (n == null || n.hash != h) {
            return null;
        }
        Object k = n.key;
        if (k == null || (k != key && !key.equals(k))) {
            return null;
        }
        int hash = n.hash;
        if (!THIN.compareAndSet(b, n, null)) { // RACE: inflate against release, on the thin slot
            return null;
        }
        n.key = null; // the node is free: its holder may take its next thin hold (in another bucket) from here on
        Record r = spareOrNew(b);
        if (bug == Bug.INFLATE_READS_FREED_NODE) {
            for (int spins = 0; spins < freedNodeSpins && n.hash == hash; spins++) {
                Thread.onSpinWait(); // the widened window: the holder may take its next thin hold meanwhile
            }
            hash = n.hash; // planted: read from the freed node, maybe the hash of the holder's next thin hold
        }
        r.hash = hash;
        r.key = k;
        r.next = b.head;
        r.owner = n.holder;
        r.holds = 0;
        WORD.setVolatile(r, LOCKED);
        return r;
    }

    /** The bucket's spare record, or a new one; under b's guard. */
    private static Record spareOrNew(Bucket b) {
        Record r = b.spare;
        if (r == null) {
            return new Record();
        }
        b.spare = null;
        return r;
    }

    /** CAS {@code pins: p -> p + 1} for {@code p >= 0}; fails on a deflated record. */
    private static boolean tryPin(Record r) {
        for (int p; (p = r.pins) >= 0; ) {
            if (PINS.compareAndSet(r, p, p + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Drops a pin; the record stays bound. */
    private static void unpin(Record r) {
        PINS.getAndAdd(r, -1);
    }

    /**
     * Deflates every idle record now, under each bucket's guard in turn: with {@link Bug#NONE} the two CASes
     * (word, then pins), backing out if a thread pinned in between.
     */
    @Override
    public int releaseIdleKeys() {
        int released = 0;
        for (Bucket b : buckets) {
            synchronized (b) {
                Record prev = null;
                for (Record r = b.head; r != null; ) {
                    Record next = r.next;
                    if (deflate(r)) {
                        if (prev == null) {
                            b.head = next;
                        } else {
                            prev.next = next;
                        }
                        r.key = null;
                        b.spare = r;
                        released++;
                    } else {
                        prev = r;
                    }
                    r = next;
                }
            }
        }
        return released;
    }

    private boolean deflate(Record r) {
        if (bug == Bug.DEFLATE_IGNORES_LOCKER) {
            if (r.word != FREE || r.pins != 0) {
                return false;
            }
            r.word = DEFLATED; // planted: a fast locker's CAS since the check is overwritten
            r.pins = -1;       // planted: so is a pin
            return true;
        }
        if (r.pins != 0) {
            return false; // in use
        }
        if (!WORD.compareAndSet(r, FREE, DEFLATED)) { // RACE: deflate against lock, on the word
            return false;
        }
        if (!PINS.compareAndSet(r, 0, -1)) { // RACE: deflate against pin
            if (!WORD.compareAndSet(r, DEFLATED, FREE)) { // back out, unless a pinned thread took the word
                PINS.getAndAdd(r, -1); // it did, and left us a pin to drop
            }
            return false;
        }
        return true;
    }

    /**
     * The record bound to key and hash h in b's chain, or null. Without the guard a scan may wander (a record it
     * passes may be unlinked and bound again meanwhile) and is cut after {@link #MAX_HOPS} links; a miss then falls
     * back to the guard, under which the scan is exact.
     */
    private static Record linked(Bucket b, int h, Object key, int maxHops) {
        Record r = b.head;
        for (int hops = 0; r != null && hops < maxHops; hops++, r = r.next) {
            if (r.isBoundTo(h, key)) {
                return r;
            }
        }
        return null;
    }

    private Record boundRecord(Object key, int h) {
        Bucket b = bucket(h);
        synchronized (b) {
            return linked(b, h, key, Integer.MAX_VALUE);
        }
    }

    /** The record of key the current thread holds, or null: under the guard, so exact. */
    private Record heldRecord(Object key, int h) {
        Record r = boundRecord(key, h);
        return r != null && r.owner == Thread.currentThread() && r.word == LOCKED ? r : null;
    }

    // ------------------------------------------------------------------ inspection

    @Override
    public int getHoldCount(K key) {
        int h = hash(key);
        if (heldThin(key, h)) {
            return 1;
        }
        Record r = heldRecord(key, h); // under the guard, so after an inflation that cleared our slot
        return r == null ? 0 : r.holds + 1;
    }

    /** Whether the current thread holds key thin now. */
    private boolean heldThin(Object key, int h) {
        Thin n = bucket(h).thin;
        return n != null && n.holder == Thread.currentThread() && n.isOf(h, key);
    }

    @Override public boolean isHeldByCurrentThread(K key) { return getHoldCount(key) > 0; }

    @Override
    public boolean isLocked(K key) {
        int h = hash(key);
        Thin n = bucket(h).thin;
        if (n != null && n.isOf(h, key)) {
            return true;
        }
        Record r = boundRecord(key, h);
        return r != null && r.word == LOCKED;
    }

    @Override
    public boolean hasQueuedThreads(K key) {
        Record r = boundRecord(key, hash(key));
        return r != null && r.waiting > 0;
    }

    /** Keys in use: held (thin, or by a record in any chain, bound under whatever hash) or pinned. */
    @Override
    public int activeKeys() {
        int n = 0;
        for (Bucket b : buckets) {
            synchronized (b) {
                for (Record r = b.head; r != null; r = r.next) {
                    if (r.pins > 0 || r.word == LOCKED) {
                        n++;
                    }
                }
                if (b.thin != null) {
                    n++;
                }
            }
        }
        return n;
    }

    /** The records bound now, in use or idle. */
    public int boundKeys() {
        int n = 0;
        for (Bucket b : buckets) {
            synchronized (b) {
                for (Record r = b.head; r != null; r = r.next) {
                    n++;
                }
            }
        }
        return n;
    }

    @Override
    public String toString() {
        return super.toString() + "[" + bug + (thinHolds ? ", thin holds" : "") + ", " + buckets.length
                + (buckets.length == 1 ? " bucket, " : " buckets, ") + boundKeys() + " bound, " + activeKeys()
                + " in use]";
    }
}
