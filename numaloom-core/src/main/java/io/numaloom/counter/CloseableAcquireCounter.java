package io.numaloom.counter;

import io.numaloom.topology.Topology;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * Counts the acquisitions of a resource that many threads use at once and one thread eventually
 * closes, and closes it atomically: a close succeeds only when no acquisition is outstanding, and
 * every acquisition after it fails. It is the acquire/release counter of a shared
 * {@link java.lang.foreign.Arena}'s session in general form, built so that acquiring and releasing
 * scale with the number of cores instead of serializing on one word.
 *
 * <pre>{@code
 * int ticket = counter.tryAcquire();
 * if (ticket < 0) throw new IllegalStateException("closed");
 * try {
 *     use(resource);
 * } finally {
 *     counter.release(ticket);              // from any thread, with the ticket
 * }
 *
 * if (counter.tryClose() == CloseResult.CLOSED) free(resource);
 * }</pre>
 *
 * <p><b>Guarantees.</b> {@link #tryAcquire}, {@link #release}, {@link #tryClose} and {@link #isClosed}
 * are linearizable against a single counter with a closed flag, which gives these invariants:
 * <ol>
 * <li>{@code tryClose} returns {@link CloseResult#CLOSED} only when no acquisition is outstanding.
 * <li>Once a close has taken effect every {@code tryAcquire} returns {@code -1} and {@code isClosed()} is
 *     true; the close takes effect before the successful {@code tryClose} returns.
 * <li>{@code tryAcquire} returns {@code -1} only if a close has taken effect. A {@code tryClose} that ends
 *     {@link CloseResult#BUSY} never makes a racing acquisition fail; it may delay it, very briefly.
 * <li>Exactly one {@code tryClose} returns {@code CLOSED}; every one after it returns
 *     {@link CloseResult#ALREADY_CLOSED}.
 * <li>Everything a holder did before its {@code release} happens-before the successful {@code tryClose}
 *     returns, so the closer may free the resource.
 * </ol>
 * {@link #outstanding()} and {@link #toString()} are snapshots for diagnostics and not linearizable.
 *
 * <p><b>Tickets.</b> {@code tryAcquire} returns a ticket, at least 0, that names the stripe the
 * acquisition was counted on; {@code release(ticket)} takes it off that stripe. So the release may run
 * on any thread: a virtual thread that parks while it holds the resource may resume on another
 * carrier, and a holder may hand the resource and its ticket to another thread. The counter does not
 * know who holds what: releasing a ticket twice is caught only when its stripe would fall below zero
 * ({@link IllegalStateException}, and nothing changes); a ticket this counter never issued is an
 * {@link IllegalArgumentException}.
 *
 * <p><b>Properties.</b> Release is lock-free. Acquire is lock-free except while a close, or the
 * creation of the stripe it needs, is in progress on another thread. A close never waits for holders
 * (it reports {@code BUSY}); it waits only for another close, or for the creation of a stripe, in
 * progress. An acquirer that meets a close in progress waits for its outcome, which is a bounded
 * amount of work for the closer (one CAS per stripe): it spins briefly, then parks
 * until the closer is done, so nothing spins unboundedly and virtual threads unmount. These waits are
 * not interruptible, and an interrupt that arrives during one is kept for the caller. NUMA-aware and
 * per-CPU once striped: a thread counts on the stripe of the CPU it runs on, in the group of stripes
 * of that CPU's node, so threads running at the same time use different stripes. Not a lock: there is
 * no fairness to speak of, and acquisitions never wait for each other.
 *
 * <p><b>Cost.</b> Uncontended, {@code tryAcquire} and {@code release} are one CAS each on one word,
 * like a single-word counter, plus one load of a field on the same cache line; they allocate nothing. A
 * fresh counter is 24 bytes (compressed oops and class pointers). Stripes appear on first contention:
 * a table of slot references sized to the machine (a group per node, a slot per CPU of the largest
 * node), and a 272-byte stripe, alone on its cache lines, for each slot the first time a thread needs
 * it. {@link #striped()} creates them all up front, for a resource known to be shared from birth, and
 * {@link #withPlacement} lets the application choose each thread's stripe. A striped acquisition asks
 * {@link io.numaloom.topology.CurrentCpu#cpu()} where it runs (a few nanoseconds; see there for the
 * native-access policy); a release does not.
 */
public final class CloseableAcquireCounter {

    /*
     * Implementation notes (for maintainers; the class Javadoc above is for users).
     *
     * <p><b>Sources.</b> The problem and the shape of the solution come from the panama-dev thread
     * "Improve scaling of downcalls using MemorySegments allocated with shared arenas" (S. Monteith and
     * M. Cimadamore, December 2025): the JDK's shared session counts acquisitions in one CAS
     * word, which collapses beyond a few cores, and Monteith's proposal stripes the count, hands out
     * tickets, and closes in two phases, with racing acquirers waiting for the close's outcome. The
     * striping follows {@link java.util.concurrent.atomic.LongAdder}: a base word used until a CAS on it
     * fails, then cells created lazily, one per slot, each on its own cache lines; unlike LongAdder, whose
     * threads rehash after a collision through a per-thread probe that only the JDK can keep, a thread
     * here is placed by the CPU it runs on, as per-CPU reference counts are. The semantics (arrive,
     * depart, and a close that succeeds only at zero and makes later arrivals fail) are those of the
     * closeable scalable non-zero indicator, C-SNZI, of Lev, Luchangco and Olszewski, "Scalable
     * Reader-Writer Locks" (SPAA 2009), built on the SNZI of Ellen, Lev, Luchangco and Moir, "SNZI: Scalable
     * NonZero Indicators" (PODC 2007). This class keeps that interface but replaces the SNZI tree with a
     * flat table, because an uncontended arrival must cost one CAS, not a walk from a leaf.
     *
     * <p><b>Words.</b> The counter's {@code base} field and each stripe's value are <em>words</em>. A word
     * holds the number of acquisitions outstanding on it (at least 0), or {@code CLOSING} (a closer claimed
     * it while it was zero), or {@code CLOSED}. Ticket 0 names the base; ticket {@code s + 1} names the
     * stripe in slot {@code s} of the {@link Stripes} table, which is created once and whose slots, once
     * filled, never change. A word in {@code CLOSING} or {@code CLOSED} has no outstanding acquisition.
     *
     * <p><b>Control.</b> {@code control} is null while nothing structural happens; a {@link Control} record
     * while one thread closes the counter or creates a stripe; and {@link #CLOSED_CONTROL} forever once
     * the counter is closed. It is taken by CAS and serializes closers and stripe creation, so a closer
     * walks a set of words that cannot change under it. Acquire and release never write it.
     *
     * <p><b>Acquire.</b> Read the word; if it is a count, CAS it one higher and return its ticket; if it
     * is {@code CLOSED}, fail; if it is {@code CLOSING}, wait until the control holder is done and read it
     * again. Before the table exists the word is the base, and a failed CAS on the base creates the table
     * (contention). After that a thread uses its home slot, the slot of its current CPU (see
     * {@link Stripes} for why per CPU rather than per thread); a failed CAS moves it to the next slot of the
     * same node group, and an empty slot is filled, under control, with a new stripe that already counts
     * the caller's acquisition.
     *
     * <p><b>Release.</b> CAS the ticket's word one lower if it is positive; otherwise the caller releases
     * more than was acquired, which throws and changes nothing.
     *
     * <p><b>Close.</b> First read every word; if one holds an acquisition, return {@code BUSY} having
     * written nothing (a closer that polls a busy counter then costs its acquirers nothing). Otherwise
     * take control (wait while another thread holds it; {@code ALREADY_CLOSED} if it is
     * {@code CLOSED_CONTROL}). Phase one: CAS every word, the base first, from 0 to {@code CLOSING}. If a
     * word is not 0, an acquisition is outstanding: store 0 back into the words already marked, release
     * control, wake the waiters, and return {@code BUSY}. Phase two, all words marked: store {@code CLOSED}
     * into the base, which is the linearization point of the close, then into every stripe, set control
     * to {@code CLOSED_CONTROL}, wake the waiters, and return {@code CLOSED}.
     *
     * <p><b>Why the invariants hold.</b> (1) When the last word is marked every word is zero and claimed,
     * and a claimed word cannot rise (acquirers wait) or fall (a release of a zero word throws without
     * writing), so no acquisition is outstanding at the base commit. (2) From the base commit on, every
     * word is {@code CLOSING} or {@code CLOSED}, no slot can be filled (control is held, then closed), and
     * words only move on to {@code CLOSED}: every later acquire fails. {@code isClosed()} reads the base,
     * the first word to become {@code CLOSED}, so it is true as soon as any acquire can fail. (3) An
     * acquire fails only when it reads {@code CLOSED} in a word or {@code CLOSED_CONTROL}, both written after
     * the base commit; a {@code BUSY} close puts its marks back to 0 before it releases control, and the
     * acquirers that met them only waited (a close that sees a holder before claiming writes nothing). (4) Control admits one closer at a time and only a committing
     * closer installs {@code CLOSED_CONTROL}. (5) A release is a volatile CAS on its word, and the closer's
     * CAS from 0 on that word comes later in the synchronization order (it reads that release's zero or
     * a later write), so the release happens-before the mark, which precedes the return (JLS 17.4.4).
     *
     * <p><b>Waiting.</b> A thread that must wait (an acquirer at a {@code CLOSING} word, a closer or a
     * stripe creator at a held control word) waits for the holder's {@code Control} record to leave the
     * control word. It spins for {@link #SPINS} rounds of {@link Thread#onSpinWait()} (none on one CPU),
     * then pushes a {@link Waiter} onto the record's Treiber stack, and parks until the control word
     * changes. The holder first writes the control word, then swaps the stack for a terminal marker and
     * unparks everyone it held. Both sides use volatile accesses, so either the waiter sees the new control
     * word after its push or the holder sees the waiter in the stack; a push onto a finished record fails
     * and the waiter returns. Each record serves one operation, so there is no ABA.
     *
     * <p><b>Memory ordering.</b> All CASes have volatile semantics, which the argument for (5) and the
     * waiting handshake use. The loads that a CAS validates are acquire loads. The base commit is a
     * volatile store (what {@code isClosed()} reads); the other stores that restore or commit marks are
     * release stores, and they precede the volatile write of the control word, which a waiter reads before
     * it reads its word again.
     */

    /** A word claimed by a closer in phase one; it holds no acquisition. */
    static final int CLOSING = -1;
    /** A word of a closed counter. */
    static final int CLOSED = -2;
    /** The most acquisitions one word can hold. */
    static final int MAX_PER_WORD = Integer.MAX_VALUE;

    /** The ticket of an acquisition counted on the base word. */
    static final int BASE_TICKET = 0;
    /** What {@link #tryAcquire()} returns once the counter is closed. */
    static final int FAILED = -1;
    /** Internal: try again (never returned to callers). */
    private static final int RETRY = -2;

    /** Spins before parking while a control operation is in progress. */
    static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 1 << 6 : 0;

    /** The control word of a closed counter; its waiter stack is born finished. */
    static final Control CLOSED_CONTROL = Control.finished();

    private static final VarHandle BASE;
    private static final VarHandle STRIPES;
    private static final VarHandle CONTROL;
    private static final VarHandle VALUE = Stripe.VALUE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            BASE = lookup.findVarHandle(CloseableAcquireCounter.class, "base", int.class);
            STRIPES = lookup.findVarHandle(CloseableAcquireCounter.class, "stripes", Stripes.class);
            CONTROL = lookup.findVarHandle(CloseableAcquireCounter.class, "control", Control.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        // Load LockSupport before anyone can be in a position to need it (as the JDK's own classes do).
        Class<?> ensureLoaded = LockSupport.class;
    }

    // All three fields are accessed only through the VarHandles above.

    /** The base word: acquisitions counted here while there is no stripe table (and a few after). */
    private int base;
    /** The stripe table; null until the first contention; set once, under control. */
    private Stripes stripes;
    /** Null, the record of the structural operation in progress, or {@link #CLOSED_CONTROL}. */
    private Control control;

    /**
     * An open counter with nothing outstanding: one word until it meets contention.
     *
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed (the message quotes
     *         it and names the problem): here, not in a later {@code tryAcquire()}
     */
    public CloseableAcquireCounter() {
        Topology.current(); // resolves the topology the stripes will follow: a bad spec fails here
    }

    private CloseableAcquireCounter(Stripes table) {
        STRIPES.set(this, table);
    }

    /**
     * An open counter whose stripes all exist from the start, for a resource that is known to be
     * shared by many threads from birth. It behaves exactly as a counter built by the constructor that
     * has already met contention everywhere; it costs the table and a 272-byte stripe per slot.
     *
     * @return a new open counter
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
     */
    public static CloseableAcquireCounter striped() {
        Topology.current();
        return new CloseableAcquireCounter(Stripes.forThisMachine(true));
    }

    /**
     * An open counter whose acquisitions are placed by the application: a thread's first choice is
     * stripe {@code homeStripe.getAsInt()} (modulo the stripe count), instead of the stripe of its NUMA
     * node and thread. For thread-per-core designs that number their workers, for runtimes that know
     * better than {@code sched_getcpu} where a thread runs, and for deterministic tests. The stripes are
     * created on first use of their slot; the supplier must be cheap and must not throw.
     *
     * @param stripes    the number of stripes, rounded up to a power of two, at most 256
     * @param homeStripe the calling thread's preferred stripe; any int
     * @return a new open counter
     * @throws IllegalArgumentException if {@code stripes} is not positive
     * @throws NullPointerException     if {@code homeStripe} is null
     */
    public static CloseableAcquireCounter withPlacement(int stripes, IntSupplier homeStripe) {
        if (stripes < 1) {
            throw new IllegalArgumentException("stripes must be >= 1, got " + stripes);
        }
        return new CloseableAcquireCounter(Stripes.placed(stripes, Objects.requireNonNull(homeStripe, "homeStripe")));
    }

    /**
     * A counter whose table has the given shape, for tests of the NUMA paths on a one-node machine.
     *
     * @param nodes          node groups
     * @param stripesPerNode slots per node group (rounded up to a power of two)
     * @param nodeOfCaller   where the calling thread runs
     * @param eager          create every stripe now rather than on first use of its slot
     */
    static CloseableAcquireCounter withShape(int nodes, int stripesPerNode, IntSupplier nodeOfCaller,
                                             boolean eager) {
        return new CloseableAcquireCounter(Stripes.byNodeAndThread(nodes, stripesPerNode, nodeOfCaller, eager));
    }

    // ------------------------------------------------------------------------------------------ acquire

    /**
     * Counts one more acquisition unless the counter is closed. If a {@link #tryClose()} is in progress
     * on another thread, waits (briefly, see the class comment) for its outcome: it fails only if that
     * close succeeds.
     *
     * @return a ticket, at least 0, to pass to {@link #release(int)}; or -1 if the counter is closed
     * @throws IllegalStateException if {@code Integer.MAX_VALUE} acquisitions are outstanding on the
     *                               caller's stripe
     */
    public int tryAcquire() {
        Stripes table = (Stripes) STRIPES.getAcquire(this);
        if (table != null) {
            return acquireStriped(table);
        }
        int b = (int) BASE.getAcquire(this);
        if (b >= 0 && b < MAX_PER_WORD && BASE.compareAndSet(this, b, b + 1)) {
            return BASE_TICKET;
        }
        return acquireSlow();
    }

    /** The base word's slow path: its CAS failed, or it is claimed or closed, or full. */
    private int acquireSlow() {
        for (;;) {
            Stripes table = (Stripes) STRIPES.getAcquire(this);
            if (table != null) {
                return acquireStriped(table);
            }
            int b = (int) BASE.getAcquire(this);
            if (b >= 0) {
                checkRoom(b);
                if (BASE.compareAndSet(this, b, b + 1)) {
                    return BASE_TICKET;
                }
                // The CAS failed because another thread changed the base: contention. Inflate.
                int ticket = createStripe(-1);
                if (ticket != RETRY) {
                    return ticket;
                }
            } else if (b == CLOSED) {
                return FAILED;
            } else {
                awaitControlChange();
            }
        }
    }

    private int acquireStriped(Stripes table) {
        int slot = table.homeSlot();
        for (;;) {
            Stripe stripe = table.get(slot);
            if (stripe == null) {
                int ticket = createStripe(slot);
                if (ticket != RETRY) {
                    return ticket;
                }
                continue;   // the slot was filled meanwhile, or we waited for a close: read again
            }
            int v = (int) VALUE.getAcquire(stripe);
            if (v >= 0) {
                checkRoom(v);
                if (VALUE.compareAndSet(stripe, v, v + 1)) {
                    return slot + 1;
                }
                slot = table.neighbour(slot);   // contention on this stripe: spread out
            } else if (v == CLOSED) {
                return FAILED;
            } else {
                awaitControlChange();
            }
        }
    }

    /**
     * Under control, creates the stripe table if there is none, and a stripe in the caller's slot
     * ({@code slot}, or its home slot if {@code slot} is negative) that counts the caller's
     * acquisition.
     *
     * @return the new stripe's ticket; {@link #FAILED} if the counter is closed; {@link #RETRY} if the
     *         slot was filled meanwhile or control was busy (after waiting for it)
     */
    private int createStripe(int slot) {
        Control holder = (Control) CONTROL.getAcquire(this);
        Control mine = null;
        if (holder == null) {
            mine = new Control();
            holder = (Control) CONTROL.compareAndExchange(this, null, mine);
        }
        if (holder == CLOSED_CONTROL) {
            return FAILED;
        }
        if (holder != null) {
            awaitRelease(holder);
            return RETRY;
        }
        try {
            Stripes table = (Stripes) STRIPES.getAcquire(this);
            if (table == null) {
                table = Stripes.forThisMachine(false);
                STRIPES.setRelease(this, table);
            }
            if (slot < 0) {
                slot = table.homeSlot();
            }
            if (table.get(slot) != null) {
                return RETRY;
            }
            table.publish(slot, new Stripe(1));
            return slot + 1;
        } finally {
            CONTROL.setVolatile(this, null);
            mine.finish();
        }
    }

    private static void checkRoom(int count) {
        if (count == MAX_PER_WORD) {
            throw new IllegalStateException("too many outstanding acquisitions (" + count + " on one stripe)");
        }
    }

    // ------------------------------------------------------------------------------------------ release

    /**
     * Takes back one acquisition. Any thread may call this with a ticket that {@code tryAcquire}
     * returned, once per successful {@code tryAcquire}.
     *
     * @param ticket what {@link #tryAcquire()} returned
     * @throws IllegalArgumentException if this counter never issued {@code ticket} (for example -1,
     *                                  the result of a failed acquire)
     * @throws IllegalStateException    if the ticket's stripe has no outstanding acquisition (a ticket
     *                                  released twice, or one released after the close); the counter
     *                                  is unchanged
     */
    public void release(int ticket) {
        int b;
        if (ticket == BASE_TICKET
                && (b = (int) BASE.getAcquire(this)) > 0
                && BASE.compareAndSet(this, b, b - 1)) {
            return;
        }
        releaseSlow(ticket);
    }

    private void releaseSlow(int ticket) {
        if (ticket == BASE_TICKET) {
            for (;;) {
                int b = (int) BASE.getAcquire(this);
                if (b <= 0) {
                    throw overRelease(ticket);
                }
                if (BASE.compareAndSet(this, b, b - 1)) {
                    return;
                }
            }
        }
        Stripe stripe = stripeOf(ticket);
        for (;;) {
            int v = (int) VALUE.getAcquire(stripe);
            if (v <= 0) {
                throw overRelease(ticket);
            }
            if (VALUE.compareAndSet(stripe, v, v - 1)) {
                return;
            }
        }
    }

    private Stripe stripeOf(int ticket) {
        Stripes table = (Stripes) STRIPES.getAcquire(this);
        Stripe stripe = null;
        if (ticket > 0 && table != null && ticket <= table.length()) {
            stripe = table.get(ticket - 1);
        }
        if (stripe == null) {
            throw new IllegalArgumentException(ticket < 0
                    ? "ticket " + ticket + ": the acquisition failed, there is nothing to release"
                    : "ticket " + ticket + " was not issued by this counter");
        }
        return stripe;
    }

    private IllegalStateException overRelease(int ticket) {
        return new IllegalStateException("ticket " + ticket + " released more often than acquired"
                + (isClosed() ? " (the counter is closed)" : ""));
    }

    // -------------------------------------------------------------------------------------------- close

    /**
     * Closes the counter if no acquisition is outstanding. Never waits for holders; waits only, and
     * briefly, while another close or the creation of a stripe is in progress.
     *
     * @return {@link CloseResult#CLOSED} if this call closed the counter, {@link CloseResult#BUSY} if
     *         acquisitions are outstanding (nothing changed), {@link CloseResult#ALREADY_CLOSED} if
     *         another call closed it
     */
    public CloseResult tryClose() {
        if (visiblyBusy()) {
            return CloseResult.BUSY;
        }
        Control mine = takeControlToClose();
        if (mine == null) {
            return CloseResult.ALREADY_CLOSED;
        }
        if (!markAllIdle()) {
            releaseControl(mine);
            return CloseResult.BUSY;
        }
        commitClose(mine);
        return CloseResult.CLOSED;
    }

    /**
     * Whether some word holds an acquisition, by reads alone: a close that can see a holder reports
     * {@code BUSY} at once, without taking the control word or claiming anything, so that a closer
     * polling a busy counter disturbs neither its acquirers nor their cache lines. A positive word is an
     * outstanding acquisition of an open counter at the moment it is read, which is where such a
     * {@code BUSY} linearizes.
     */
    private boolean visiblyBusy() {
        if ((int) BASE.getVolatile(this) > 0) {
            return true;
        }
        Stripes table = (Stripes) STRIPES.getAcquire(this);
        if (table != null) {
            for (int slot = 0, n = table.length(); slot < n; slot++) {
                Stripe stripe = table.get(slot);
                if (stripe != null && (int) VALUE.getVolatile(stripe) > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Phase zero: the control word, or null if the counter is closed. */
    Control takeControlToClose() {
        Control mine = null;
        for (;;) {
            Control c = (Control) CONTROL.getAcquire(this);
            if (c == CLOSED_CONTROL) {
                return null;
            }
            if (c != null) {
                awaitRelease(c);
            } else {
                if (mine == null) {
                    mine = new Control();
                }
                if (CONTROL.compareAndSet(this, null, mine)) {
                    return mine;
                }
            }
        }
    }

    /**
     * Phase one, under control: claims every word at zero. If some word holds an acquisition, puts
     * back the claims made so far and returns false.
     */
    boolean markAllIdle() {
        if (!BASE.compareAndSet(this, 0, CLOSING)) {
            return false;
        }
        Stripes table = (Stripes) STRIPES.getAcquire(this);
        if (table != null) {
            for (int slot = 0, n = table.length(); slot < n; slot++) {
                Stripe stripe = table.get(slot);
                if (stripe != null && !VALUE.compareAndSet(stripe, 0, CLOSING)) {
                    unmark(table, slot);
                    return false;
                }
            }
        }
        return true;
    }

    /** Puts back the claims on the base and on the stripes of slots below {@code end}. */
    private void unmark(Stripes table, int end) {
        BASE.setRelease(this, 0);
        for (int slot = 0; slot < end; slot++) {
            Stripe stripe = table.get(slot);
            if (stripe != null) {
                VALUE.setRelease(stripe, 0);
            }
        }
    }

    /** Undoes a successful phase one and releases control (for tests that hold a close open). */
    void abortClose(Control mine) {
        Stripes table = (Stripes) STRIPES.getAcquire(this);
        unmark(table, table == null ? 0 : table.length());
        releaseControl(mine);
    }

    /** Phase two, under control, all words claimed: closes for good. */
    void commitClose(Control mine) {
        BASE.setVolatile(this, CLOSED);   // the linearization point
        Stripes table = (Stripes) STRIPES.getAcquire(this);
        if (table != null) {
            for (int slot = 0, n = table.length(); slot < n; slot++) {
                Stripe stripe = table.get(slot);
                if (stripe != null) {
                    VALUE.setRelease(stripe, CLOSED);
                }
            }
        }
        CONTROL.setVolatile(this, CLOSED_CONTROL);
        mine.finish();
    }

    /** Ends an operation that owned the control word without closing. */
    void releaseControl(Control mine) {
        CONTROL.setVolatile(this, null);
        mine.finish();
    }

    // ------------------------------------------------------------------------------------------ queries

    /**
     * Whether a close has taken effect. Once true, stays true.
     *
     * @return true if the counter is closed
     */
    public boolean isClosed() {
        return (int) BASE.getVolatile(this) == CLOSED;
    }

    /**
     * The number of outstanding acquisitions, for diagnostics: a sum over the stripes read one after
     * another, exact only when nothing races with it.
     *
     * @return the outstanding acquisitions, 0 once closed
     */
    public long outstanding() {
        long sum = Math.max(0, (int) BASE.getVolatile(this));
        Stripes table = (Stripes) STRIPES.getAcquire(this);
        if (table != null) {
            for (int slot = 0, n = table.length(); slot < n; slot++) {
                Stripe stripe = table.get(slot);
                if (stripe != null) {
                    sum += Math.max(0, (int) VALUE.getVolatile(stripe));
                }
            }
        }
        return sum;
    }

    /** Stripes created so far (0 while the counter has met no contention). */
    int stripeCount() {
        Stripes table = (Stripes) STRIPES.getAcquire(this);
        return table == null ? 0 : table.created();
    }

    /** The stripe table, or null (for tests). */
    Stripes table() {
        return (Stripes) STRIPES.getAcquire(this);
    }

    /**
     * A snapshot for diagnostics, for example
     * {@code CloseableAcquireCounter@1b6d3586[open, outstanding=3, stripes=2]}.
     */
    @Override
    public String toString() {
        int b = (int) BASE.getVolatile(this);
        String state = b == CLOSED ? "closed" : b == CLOSING ? "closing" : "open";
        return getClass().getSimpleName() + '@' + Integer.toHexString(System.identityHashCode(this))
                + '[' + state + ", outstanding=" + outstanding() + ", stripes=" + stripeCount() + ']';
    }

    // ------------------------------------------------------------------------------------------ waiting

    /** Called after reading {@code CLOSING} in a word: waits until its closer is done. */
    private void awaitControlChange() {
        Control c = (Control) CONTROL.getVolatile(this);
        if (c != null) {
            awaitRelease(c);
        }
        // null: the closer finished between our two reads; the caller reads its word again.
    }

    /** Waits until {@code c} is no longer the control word: spins briefly, then parks. */
    private void awaitRelease(Control c) {
        if (c == CLOSED_CONTROL) {
            return;
        }
        for (int i = SPINS; i > 0; i--) {
            if (CONTROL.getVolatile(this) != c) {
                return;
            }
            Thread.onSpinWait();
        }
        Waiter me = new Waiter(Thread.currentThread());
        if (!c.push(me)) {
            return;   // c has finished
        }
        boolean interrupted = false;
        while (CONTROL.getVolatile(this) == c) {
            LockSupport.park(this);
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The record of one structural operation (a close attempt, or the creation of a stripe) while
     * it owns the control word, with the threads waiting for it to end: a Treiber stack that the
     * owner swaps for {@link #DONE} when it is done, waking everyone in it.
     */
    static final class Control {
        private static final Waiter DONE = new Waiter(null);
        private static final VarHandle WAITERS;

        static {
            try {
                WAITERS = MethodHandles.lookup().findVarHandle(Control.class, "waiters", Waiter.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Accessed only through {@link #WAITERS}. */
        private Waiter waiters;

        static Control finished() {
            Control c = new Control();
            WAITERS.set(c, DONE);
            return c;
        }

        /** Adds a waiter; false if the operation has already ended. */
        boolean push(Waiter w) {
            Waiter head = (Waiter) WAITERS.getAcquire(this);
            for (;;) {
                if (head == DONE) {
                    return false;
                }
                w.next = head;
                Waiter witness = (Waiter) WAITERS.compareAndExchange(this, head, w);
                if (witness == head) {
                    return true;
                }
                head = witness;
            }
        }

        /** Ends the operation: called after the control word has changed; wakes every waiter. */
        void finish() {
            for (Waiter w = (Waiter) WAITERS.getAndSet(this, DONE); w != null; w = w.next) {
                LockSupport.unpark(w.thread);
            }
        }
    }

    /** A thread parked until a {@link Control} ends. */
    static final class Waiter {
        final Thread thread;
        Waiter next;

        Waiter(Thread thread) {
            this.thread = thread;
        }
    }
}
