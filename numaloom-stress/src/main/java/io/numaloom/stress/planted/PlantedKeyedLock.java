package io.numaloom.stress.planted;

import io.numaloom.stress.subject.KeyedSubject;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A small model of {@code KeyedLock}'s protocol (records stay bound while idle and are taken back by deflation)
 * with an optional planted bug, to show that the keyed proofs (Lincheck's {@code KeyedCounters}, jcstress's
 * {@link PlantedKeyedMutex}) catch a deflater that ignores a racing locker. With {@link Bug#NONE} it is correct,
 * and the tests that pass on {@code KeyedLock} must pass on it.
 *
 * <p><b>Protocol.</b> {@code KeyedLock}'s, without the hash table, the queues and the budget. The bound records
 * form one chain, linked and unlinked only under {@code guard}. A record has a lock word ({@link #FREE},
 * {@link #LOCKED}, {@link #DEFLATED}), an owner and a hold count for re-entry, and {@code pins}: the number of
 * threads in the slow path of an acquisition, which need the record to stay bound without holding it
 * ({@code -1}: deflated). A holder does not pin; the lock word, held, keeps the record bound. A record stays bound
 * after its last user leaves.
 * <ul>
 * <li><em>Fast path.</em> Scan the chain without the guard; on the record of an equal key, CAS the word
 *     {@code FREE -> LOCKED}, then read the binding again: the same key object, or release the word and take
 *     the slow path (the record was deflated and bound again in between).
 * <li><em>Slow path.</em> Pin the record (CAS {@code pins: p -> p + 1} for {@code p >= 0}) and check its binding,
 *     or else, under the guard, pin the linked record of the key or bind one (a deflated spare if there is one:
 *     the binder writes the key, then revives the word with {@code FREE}, then sets {@code pins} to 1, in that
 *     order, because a thread that read the record before its deflation may still reach it). Then take the word from
 *     {@code FREE} or from {@code DEFLATED} (the pin makes that deflation back out), re-enter, or wait: a bounded
 *     spin with {@link Thread#onSpinWait()}, then {@link Thread#yield()}; then unpin.
 * <li><em>Deflation</em> ({@link #releaseIdleKeys()}, under the guard), for each linked record: CAS the word
 *     {@code FREE -> DEFLATED} (a fast locker's CAS on the same word decides against it), then CAS
 *     {@code pins: 0 -> -1}; if a thread pinned the record in between, back out with CAS
 *     {@code DEFLATED -> FREE}. A deflated record is unlinked, its key cleared, and kept as the spare of the next
 *     bind.
 * <li><em>A pinned thread that takes the word from {@code DEFLATED}</em> adds one pin before it returns, and the
 *     deflater whose back-out CAS then fails drops it, as HotSpot's {@code ObjectMonitor::enter} adds an extra
 *     contention when it cancels an asynchronous deflation. Without that pin, the taker unpins (a holder does not
 *     pin) and the deflater's {@code pins: 0 -> -1}, if it comes after, succeeds on a held record: the record is
 *     unlinked under its holder, as with the planted bug below. {@code KeyedLock} does the same
 *     ({@code Record.acquiredDeflated}).
 * <li><em>Thin holds</em> (with {@code thinHolds}, as {@code KeyedLock} once its idle budget is bound): a
 *     locker that finds no record of the key takes, under the guard, a thin hold (the {@code thin} slot names the
 *     holder and the key) if the slot is free, and releases it with CAS {@code thin: hold -> null}. A thread that
 *     needs a record of a key held thin (a second locker, the holder's re-entry) inflates the hold under the
 *     guard: CAS {@code thin: hold -> null}, then binds a record held by the holder. That CAS and the release's
 *     decide between them; a holder whose CAS failed finds the record and unlocks it.
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
        THIN_IGNORES_BINDER
    }

    /** A thread's thin hold of a key that has no record. */
    static final class Thin {
        final Thread holder = Thread.currentThread();
        final Object key;

        Thin(Object key) {
            this.key = key;
        }

        boolean isOf(Object k) {
            return key == k || k.equals(key);
        }
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
        volatile Object key;
        volatile Record next;

        boolean isBoundTo(Object k) {
            Object mine = key;
            return mine != null && (mine == k || k.equals(mine));
        }
    }

    private static final VarHandle WORD;
    private static final VarHandle PINS;
    private static final VarHandle WAITING;
    private static final VarHandle THIN;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            THIN = l.findVarHandle(PlantedKeyedLock.class, "thin", Thin.class);
            WORD = l.findVarHandle(Record.class, "word", int.class);
            PINS = l.findVarHandle(Record.class, "pins", int.class);
            WAITING = l.findVarHandle(Record.class, "waiting", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Bug bug;
    private final boolean thinHolds;
    private final Object guard = new Object();
    /** The thin hold, or null: set under {@code guard}, cleared by CAS (release or inflation). */
    private volatile Thin thin;
    /** The chain of bound records: written under {@code guard}, scanned without it. */
    private volatile Record head;
    /** The last record deflated, for the next bind; under {@code guard}. */
    private Record spare;

    /** A model without thin holds: every key locked gets a record. */
    public PlantedKeyedLock(Bug bug) {
        this(bug, false);
    }

    /** A model with thin holds if {@code thinHolds} (which {@link Bug#THIN_IGNORES_BINDER} needs). */
    public PlantedKeyedLock(Bug bug, boolean thinHolds) {
        if (bug == Bug.THIN_IGNORES_BINDER && !thinHolds) {
            throw new IllegalArgumentException(bug + " is a bug of thin holds");
        }
        this.bug = bug;
        this.thinHolds = thinHolds;
    }

    public Bug bug() {
        return bug;
    }

    // ------------------------------------------------------------------ acquisition

    @Override
    public void lock(K key) {
        if (lockFast(key) == null && !holdThin(key)) {
            try {
                lockPinned(key, false, false, 0L);
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
        if (lockFast(key) == null) {
            lockPinned(key, true, false, 0L);
        }
    }

    @Override
    public boolean tryLock(K key) {
        if (lockFast(key) != null || holdThin(key)) {
            return true;
        }
        Record r = pin(key);
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
        if (lockFast(key) != null) {
            return true;
        }
        return lockPinned(key, true, true, System.nanoTime() + unit.toNanos(time));
    }

    /**
     * The fast path: the record of key found without the guard, its word taken {@code FREE -> LOCKED}, its
     * binding read again. Returns the record now held, or null (missing, held, being deflated, or rebound).
     */
    private Record lockFast(K key) {
        Objects.requireNonNull(key, "key");
        Record r = head;
        for (int hops = 0; r != null && hops < MAX_HOPS; hops++, r = r.next) {
            Object k = r.key;
            if (k != null && (k == key || key.equals(k))) {
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
     * With thin holds, a thin hold of a key that has no record, if the slot is free: under the guard, or, with
     * {@link Bug#THIN_IGNORES_BINDER}, checked without it and then written.
     */
    private boolean holdThin(K key) {
        if (!thinHolds) {
            return false;
        }
        if (bug == Bug.THIN_IGNORES_BINDER) {
            if (linked(key, Integer.MAX_VALUE) != null || thin != null) {
                return false;
            }
            thin = new Thin(key); // planted: a bind or a thin hold since the check is overwritten
            return true;
        }
        synchronized (guard) {
            if (linked(key, Integer.MAX_VALUE) != null || thin != null) {
                return false;
            }
            thin = new Thin(key);
            return true;
        }
    }

    /** The slow path: pin, take the word, re-enter or wait, unpin. False on timeout. */
    private boolean lockPinned(K key, boolean interruptible, boolean timed, long deadline)
            throws InterruptedException {
        Record r = pin(key);
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
        Thin n = thin;
        if (n != null && n.holder == Thread.currentThread() && n.isOf(key) && THIN.compareAndSet(this, n, null)) {
            return; // RACE: release against inflate, on the thin slot; a failed CAS: the hold is a record now
        }
        Record r = heldRecord(key);
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

    /** Pins the record of key: found by the lock-free scan, or else under the guard, where it may be bound. */
    private Record pin(K key) {
        Record r = linked(key, MAX_HOPS);
        if (r != null && tryPin(r)) {
            if (r.isBoundTo(key)) {
                return r;
            }
            unpin(r); // deflated and bound to another key between our read and our pin
        }
        synchronized (guard) {
            r = linked(key, Integer.MAX_VALUE);
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
            Thin n = thin;
            Thread holder = null;
            if (n != null && n.isOf(key) && THIN.compareAndSet(this, n, null)) { // RACE: inflate against release
                holder = n.holder; // the record is bound held by the thin holder
            }
            r = spare != null ? spare : new Record();
            spare = null;
            r.key = key;
            r.next = head;
            if (holder != null) {
                r.owner = holder;
                r.holds = 0;
                WORD.setVolatile(r, LOCKED);
            } else {
                WORD.setVolatile(r, FREE); // revive, after the binding: a fast path whose CAS reads this sees it
            }
            r.pins = 1;                // then let pins in: a pinned thread never sees the word of the old deflation
            head = r;
            return r;
        }
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
     * Deflates every idle record now, under the guard: with {@link Bug#NONE} the two CASes (word, then pins),
     * backing out if a thread pinned in between.
     */
    @Override
    public int releaseIdleKeys() {
        synchronized (guard) {
            int released = 0;
            Record prev = null;
            for (Record r = head; r != null; ) {
                Record next = r.next;
                if (deflate(r)) {
                    if (prev == null) {
                        head = next;
                    } else {
                        prev.next = next;
                    }
                    r.key = null;
                    spare = r;
                    released++;
                } else {
                    prev = r;
                }
                r = next;
            }
            return released;
        }
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
     * The record bound to key in the chain, or null. Without the guard a scan may wander (a record it passes may be
     * unlinked and bound again meanwhile) and is cut after {@link #MAX_HOPS} links; a miss then falls back to the
     * guard, under which the scan is exact.
     */
    private Record linked(Object key, int maxHops) {
        Objects.requireNonNull(key, "key");
        Record r = head;
        for (int hops = 0; r != null && hops < maxHops; hops++, r = r.next) {
            if (r.isBoundTo(key)) {
                return r;
            }
        }
        return null;
    }

    private Record boundRecord(Object key) {
        synchronized (guard) {
            return linked(key, Integer.MAX_VALUE);
        }
    }

    /** The record of key the current thread holds, or null: under the guard, so exact. */
    private Record heldRecord(Object key) {
        Record r = boundRecord(key);
        return r != null && r.owner == Thread.currentThread() && r.word == LOCKED ? r : null;
    }

    // ------------------------------------------------------------------ inspection

    @Override
    public int getHoldCount(K key) {
        if (heldThin(key)) {
            return 1;
        }
        Record r = heldRecord(key); // under the guard, so after an inflation that cleared our slot
        return r == null ? 0 : r.holds + 1;
    }

    /** Whether the current thread holds key thin now. */
    private boolean heldThin(Object key) {
        Thin n = thin;
        return n != null && n.holder == Thread.currentThread() && n.isOf(key);
    }

    @Override public boolean isHeldByCurrentThread(K key) { return getHoldCount(key) > 0; }

    @Override
    public boolean isLocked(K key) {
        Thin n = thin;
        if (n != null && n.isOf(key)) {
            return true;
        }
        Record r = boundRecord(key);
        return r != null && r.word == LOCKED;
    }
    @Override public boolean hasQueuedThreads(K key) { Record r = boundRecord(key); return r != null && r.waiting > 0; }

    /** Keys in use: held or pinned. Idle bound records do not count. */
    @Override
    public int activeKeys() {
        synchronized (guard) {
            int n = 0;
            for (Record r = head; r != null; r = r.next) {
                if (r.pins > 0 || r.word == LOCKED) {
                    n++;
                }
            }
            return thin != null ? n + 1 : n;
        }
    }

    /** The records bound now, in use or idle. */
    public int boundKeys() {
        synchronized (guard) {
            int n = 0;
            for (Record r = head; r != null; r = r.next) {
                n++;
            }
            return n;
        }
    }

    @Override
    public String toString() {
        return super.toString() + "[" + bug + (thinHolds ? ", thin holds" : "") + ", " + boundKeys() + " bound, "
                + activeKeys() + " in use]";
    }
}
