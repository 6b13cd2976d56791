package io.numaloom;

import io.numaloom.topology.CurrentCpu;
import io.numaloom.topology.Topology;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * A reentrant mutual-exclusion {@link Lock} for virtual threads on NUMA machines: a drop-in
 * replacement for {@link java.util.concurrent.locks.ReentrantLock} (non-fair mode) that keeps
 * lock handoffs on one NUMA node when it can, and never lets a waiter burn a carrier.
 *
 * <p><b>Algorithm.</b> The VNA lock of Kovalev, Koval et al., "NUMA-aware lock for Java
 * Lightweight Threads" (seed 000) and the NUMA_MCS lock of the thesis behind it (seed 001 §3):
 * a global flag taken by one CAS, plus one MCS queue (Mellor-Crummey and Scott, 1991) per NUMA
 * node in which contending threads wait. Waiting is parking, and the wake-up discipline is Dice's
 * Relaxed-Lock (JVM '01, seed 002): competitive handoff, at most one <em>heir</em> awake at a
 * time (futile-wakeup throttling), no atomic instruction to unlock an uncontended lock, and a
 * race on that unlock that is detected and recovered from rather than prevented.
 *
 * <p><b>Properties.</b> Reentrant. Not FIFO-fair, but starvation-free with a documented bound
 * (below). NUMA-aware: prefers to hand the lock to a waiter of the node that last acquired it
 * through a queue. Parks: only the heir spins, briefly, and only when more than one carrier can
 * run; everybody else is parked. Uncontended lock+unlock: one CAS and one release store, no
 * allocation. A fresh lock is 32 bytes (JOL, compressed oops); the queues, padded to separate
 * cache lines, appear on first contention and stay.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>State.</b> {@code owner} is the flag: the owning thread, or null when free. It is taken
 * by CAS and released by a store. {@code holds} counts re-entries beyond the first and is only
 * touched by the owner. Everything else lives in a {@link Waiters} record, created by the first
 * thread that has to wait: per queue, an MCS tail and the queue's <em>candidate</em>; and for
 * the whole lock the <em>heir</em>, the count {@code queued}, and the handoff statistics.
 *
 * <p><b>Roles of a waiting thread.</b> A thread that fails the fast path does not spin: it
 * registers in {@code queued}, tries the flag once more, and appends its queue node to the MCS
 * queue of its NUMA node
 * (or socket). MCS order gives each queue one <em>candidate</em>: its head. Candidates do not
 * all compete: at most one of them, the <em>heir</em>, is awake and allowed to CAS the flag.
 * All other waiters are parked without timeout. When the heir takes the flag it leaves its
 * queue right away, passing the candidacy to its MCS successor (so a queue node is free as
 * soon as its thread owns the lock, and one node per thread suffices for every lock), clears
 * the heir, and records its queue in {@code ownerQueue}. This is a deviation from the paper,
 * where the MCS lock is held through the critical section; it keeps the paper's property that
 * one thread per node contends for the flag (here: one thread overall).
 *
 * <p><b>Choosing the heir.</b> Whoever releases a contended lock, or leaves the heir role,
 * calls {@link Waiters#wakeHeir}: if there is no heir it picks a candidate and installs it by
 * CAS on {@code heir}, then unparks it; if the heir exists and has announced that it is
 * parking, it unparks it. The pick prefers the queue whose turn it is (the NUMA node of the
 * last queued owner, recorded at lock time, never the node the unlocking thread happens to run
 * on now) until the turn has lasted {@link #LOCAL_HANDOFF_LIMIT} contended releases, then
 * moves round-robin to the next queue with a candidate. A picked node is
 * validated after the CAS (it must still belong to this lock and be a candidate); if it is
 * not, the CAS is undone and the pick retried, so a stale pick never blocks the heir slot.
 *
 * <p><b>Unlock and the benign race.</b> {@code unlock} of a lock whose {@code Waiters} is
 * absent, or whose {@code queued} is zero, stores null into {@code owner} with release
 * semantics and returns: no atomic instruction, no fence. The hint is read before the store,
 * so a thread that registers concurrently can be missed: it becomes heir, fails its CAS
 * because the store is not yet visible to it, and parks while nobody will wake it. Two things
 * recover from this, and neither costs the uncontended path anything:
 * <ol>
 * <li>the heir spins before it parks (when more than one carrier exists), so a release that was
 *     merely late is seen during the spin; and
 * <li>the heir, and only the heir, parks with a timeout when the owner acquired by barging,
 *     starting at {@link #HEIR_PARK_MIN_NANOS} and doubling up to {@link #HEIR_PARK_MAX_NANOS}.
 *     A missed wake-up therefore costs at most one timeout, never liveness. When the owner came
 *     through a queue ({@code ownerQueue >= 0}, read after announcing the park) the heir parks
 *     without a timeout: such an owner resets {@code ownerQueue} with a volatile store before its
 *     fenced release and then reads {@code parked}, so by sequential consistency it sees the
 *     announcement. (Untimed parks also spare a virtual thread the timer a timed park needs.) Under the Java memory model
 *     the release store becomes visible eventually and a timed-out heir re-reads {@code owner}
 *     with volatile semantics; the JIT may move the hint read before the release store (a
 *     release store orders only earlier accesses), which widens the window by a few
 *     instructions and changes nothing in the argument.
 * </ol>
 * Every other wake-up is exact. When {@code queued} is non-zero, or the owner came through a
 * queue, unlock takes the contended path: it releases with a volatile store (a full fence) and
 * then reads the heir state. The heir announces {@code parked} with a volatile store and then
 * re-reads {@code owner} with a volatile load. By sequential consistency of volatile accesses
 * (JLS 17.4.4) either the unlocker sees {@code parked} and unparks the heir, or the heir sees
 * the lock free. Once a contended unlock has observed {@code queued > 0}, every later owner
 * acquires from a release that happens-after that observation, so it sees {@code queued > 0}
 * as well: only the very first owner after the lock becomes contended can miss a waiter.
 * Non-heir waiters are woken only by explicit designation (a CAS then an unpark, whose permit
 * is not lost if it precedes the park), so they can park without a timeout.
 *
 * <p><b>Bounded unfairness.</b> Newcomers may barge (take a free flag by CAS ahead of the
 * heir): competitive handoff keeps running threads running, which is where the throughput
 * comes from. Both limits below count <em>contended releases</em>, that is every release while
 * somebody waits, by queued owners and bargers alike, so barging is bounded by count, not only
 * in time. The heir is passed by at most {@link #HEIR_OVERTAKE_LIMIT} of them; then the
 * releasing owner transfers ownership to it directly, without ever freeing the flag, so no
 * barger can take it. A queue's turn lasts {@link #LOCAL_HANDOFF_LIMIT} contended releases;
 * the next heir is then picked from the next queue, round-robin, that has a candidate. So the
 * candidate of a queue becomes heir after at most {@code (queues - 1)} turns of the other
 * queues, each ending with the acquisition of that turn's last heir, and then acquires within
 * {@code HEIR_OVERTAKE_LIMIT} releases: at most
 * {@code (queues - 1) * (LOCAL_HANDOFF_LIMIT + HEIR_OVERTAKE_LIMIT + 1) + HEIR_OVERTAKE_LIMIT + 1}
 * acquisitions by other threads. Within its own queue a thread is served in FIFO order. Like
 * CNA's threshold, the turn trades a bounded amount of cross-node fairness for locality.
 *
 * <p><b>Cancellation.</b> A timed-out or interrupted waiter that is not yet a candidate marks
 * its node cancelled by CAS (racing the grant, which is a CAS too) and leaves it in the queue;
 * whoever passes the candidacy on skips cancelled nodes, releasing their MCS position on their
 * behalf. A cancelled node is never reused (its thread takes a fresh one), so no stale
 * reference can reach a later incarnation. A cancelling candidate passes its candidacy on,
 * gives up the heir role and calls {@code wakeHeir}, so no wake-up is lost. A cancelling heir
 * that was handed the lock at the same moment (its CAS lost to the handoff) owns the lock and
 * returns as if it had acquired it; an interrupted {@code lockInterruptibly} then returns
 * normally with the interrupt status set, as the {@link Lock} contract allows.
 *
 * <p><b>Memory ordering.</b> Acquisition is a CAS with acquire semantics; the uncontended
 * release is a release store: that is exactly the happens-before edge {@link Lock} promises.
 * Queue links and roles ({@code next}, {@code status}, {@code heir}, {@code candidate} slots)
 * are accessed with volatile semantics, because each of them takes part in a store-then-load
 * handshake described above.
 */
public class VnaLock implements Lock {

    /**
     * Contended releases in one queue's turn: after this many, the heir is picked from the next
     * queue (round-robin) that has a candidate.
     */
    public static final int LOCAL_HANDOFF_LIMIT = 64;

    /** Contended releases that may pass the heir by before it is handed the lock directly. */
    public static final int HEIR_OVERTAKE_LIMIT = 16;

    /** The heir's first park timeout; it doubles on each timed-out park. */
    static final long HEIR_PARK_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The largest park timeout of the heir. */
    static final long HEIR_PARK_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(64);

    private static final int SPINS = 128;
    private static final int PLATFORM_SPINS = Runtime.getRuntime().availableProcessors() > 1 ? SPINS : 0;
    private static final int VIRTUAL_SPINS = virtualCarriers() > 1 ? SPINS : 0;

    private static final byte PER_NODE = 0;
    private static final byte PER_SOCKET = 1;
    private static final byte CUSTOM = 2;

    /** The owning thread; null when the lock is free. Accessed through {@link #OWNER}. */
    private Thread owner;
    /** Re-entries beyond the first; written and read by the owner only. */
    private int holds;
    /** Null until the first thread has to wait. Accessed through {@link #WAITERS}. */
    private Waiters waiters;
    /** Non-null only for {@link #CUSTOM} placement. */
    private final QueuePlacement placement;
    private final byte mode;

    /** Creates a lock with one waiting queue per NUMA node of {@link Topology#current()}. */
    public VnaLock() {
        this(PER_NODE, null);
    }

    private VnaLock(byte mode, QueuePlacement placement) {
        this.mode = mode;
        this.placement = placement;
    }

    /** Creates a lock with one waiting queue per socket (the paper's VNA_2_Q). */
    public static VnaLock perSocket() {
        return new VnaLock(PER_SOCKET, null);
    }

    /**
     * Creates a lock whose waiting queues are chosen by {@code placement}, for applications that
     * know where their threads run better than {@code sched_getcpu} does, and for tests.
     */
    public static VnaLock withPlacement(QueuePlacement placement) {
        Objects.requireNonNull(placement, "placement");
        if (placement.queueCount() < 1) {
            throw new IllegalArgumentException("placement.queueCount() must be >= 1, got " + placement.queueCount());
        }
        return new VnaLock(CUSTOM, placement);
    }

    /** Shorthand for {@link #withPlacement(QueuePlacement)} from a count and a supplier. */
    public static VnaLock withPlacement(int queueCount, IntSupplier currentQueue) {
        Objects.requireNonNull(currentQueue, "currentQueue");
        return withPlacement(new QueuePlacement() {
            @Override public int queueCount() { return queueCount; }
            @Override public int currentQueue() { return currentQueue.getAsInt(); }
        });
    }

    // ------------------------------------------------------------------ Lock

    @Override
    public void lock() {
        Thread me = Thread.currentThread();
        if (!tryAcquireFree(me)) {
            acquireUninterruptibly(me);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        Thread me = Thread.currentThread();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (!tryAcquireFree(me)) {
            acquireSlow(me, true, false, 0L);
        }
    }

    @Override
    public boolean tryLock() {
        Thread me = Thread.currentThread();
        return tryAcquireFree(me) || reenter(me);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(time);
        Thread me = Thread.currentThread();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (tryAcquireFree(me)) {
            return true;
        }
        if (nanos <= 0L) {
            return reenter(me);
        }
        return acquireSlow(me, true, true, System.nanoTime() + nanos);
    }

    @Override
    public void unlock() {
        if ((Thread) OWNER.get(this) != Thread.currentThread()) {
            throw notOwner("unlock");
        }
        if (holds != 0) {
            holds--;
            return;
        }
        release();
    }

    /** Releases a lock held once by the current thread. */
    private void release() {
        Waiters w = (Waiters) WAITERS.getOpaque(this);
        if (w == null || w.quiet()) {
            OWNER.setRelease(this, null);
        } else {
            releaseContended(w);
        }
    }

    @Override
    public Condition newCondition() {
        return new VnaCondition(this);
    }

    // ------------------------------------------------------------------ inspection

    /** The number of holds on this lock by the current thread, or zero. */
    public int getHoldCount() {
        return isHeldByCurrentThread() ? holds + 1 : 0;
    }

    /** Whether the current thread holds this lock. */
    public boolean isHeldByCurrentThread() {
        return (Thread) OWNER.getVolatile(this) == Thread.currentThread();
    }

    /** Whether any thread holds this lock; for monitoring, not for synchronization. */
    public boolean isLocked() {
        return OWNER.getVolatile(this) != null;
    }

    /** The owner, or null; a snapshot for monitoring. */
    protected Thread getOwner() {
        return (Thread) OWNER.getVolatile(this);
    }

    /** Whether some thread may be waiting to acquire this lock; a snapshot for monitoring. */
    public boolean hasQueuedThreads() {
        return getQueueLength() > 0;
    }

    /**
     * An estimate of the number of threads waiting to acquire this lock (threads between the
     * failed fast path and acquisition, cancellation or timeout); for monitoring.
     */
    public int getQueueLength() {
        Waiters w = (Waiters) WAITERS.getVolatile(this);
        return w == null ? 0 : w.waitingThreads();
    }

    /** The number of queues waiters are spread over: NUMA nodes, sockets or the custom count. */
    public int queueCount() {
        return switch (mode) {
            case PER_NODE -> Topology.current().nodeCount();
            case PER_SOCKET -> Topology.current().socketCount();
            default -> placement.queueCount();
        };
    }

    /** Whether threads are waiting on {@code condition}, which must belong to this lock. */
    public boolean hasWaiters(Condition condition) {
        return ownCondition(condition).hasWaiters();
    }

    /** An estimate of the threads waiting on {@code condition}, which must belong to this lock. */
    public int getWaitQueueLength(Condition condition) {
        return ownCondition(condition).waitQueueLength();
    }

    @Override
    public String toString() {
        Thread o = getOwner();
        return super.toString() + (o == null ? "[Unlocked]" : "[Locked by thread " + o.getName() + "]");
    }

    // ------------------------------------------------------------------ acquisition

    private boolean tryAcquireFree(Thread me) {
        return (Thread) OWNER.compareAndExchangeAcquire(this, (Thread) null, me) == null;
    }

    private boolean reenter(Thread me) {
        if ((Thread) OWNER.get(this) != me) {
            return false;
        }
        if (holds == Integer.MAX_VALUE - 1) {
            throw new Error("Maximum lock count exceeded");
        }
        holds++;
        return true;
    }

    /**
     * The slow path of every blocking acquisition: re-entry, then the queue.
     * Returns true once the lock is held, false on timeout; throws only if interruptible.
     */
    private boolean acquireSlow(Thread me, boolean interruptible, boolean timed, long deadline)
            throws InterruptedException {
        if (reenter(me)) {
            return true;
        }
        // No spinning here: only the heir spins (futile-wakeup throttling). Spinning newcomers
        // mostly burn carriers while the owner is descheduled, e.g. yielding inside.
        Waiters w = waitersOrInflate();
        w.register();
        if (tryAcquireFree(me)) {
            w.unregister();
            return true;
        }
        return queue(me, w, QNode.forCurrentThread(me), interruptible, timed, deadline);
    }

    private void acquireUninterruptibly(Thread me) {
        try {
            acquireSlow(me, false, false, 0L);
        } catch (InterruptedException e) {
            throw new AssertionError("uninterruptible acquisition was interrupted", e);
        }
    }

    private boolean queue(Thread me, Waiters w, QNode q, boolean interruptible, boolean timed, long deadline)
            throws InterruptedException {
        int n = Math.floorMod(currentQueue(), w.queueCount);
        q.prepare(w, n);
        boolean interrupted = false;
        try {
            QNode pred = w.swapTail(n, q);
            if (pred == null) {
                q.becomeCandidate(w, n);
                if (w.ownerQueue() < 0) {
                    w.wakeHeir(me);
                }
            } else {
                QNode.NEXT.setVolatile(pred, q);
                int outcome = awaitCandidacy(w, q, interruptible, timed, deadline);
                if (outcome == GAVE_UP) {
                    return false;
                }
                interrupted = outcome == INTERRUPTED_BUT_CONTINUE;
            }
            int outcome = competeAsCandidate(me, w, q, interruptible, timed, deadline, interrupted);
            if (outcome == GAVE_UP) {
                return false;
            }
            interrupted = outcome == INTERRUPTED_BUT_CONTINUE;
            return true;
        } finally {
            if (interrupted) {
                me.interrupt();
            }
        }
    }

    private static final int PROCEED = 0;
    private static final int INTERRUPTED_BUT_CONTINUE = 1;
    private static final int GAVE_UP = 2;

    /** Parks until the MCS predecessor passes the candidacy on, or the wait is cancelled. */
    private int awaitCandidacy(Waiters w, QNode q, boolean interruptible, boolean timed, long deadline)
            throws InterruptedException {
        boolean interrupted = false;
        while ((int) QNode.STATUS.getVolatile(q) == QNode.WAITING) {
            long nanos = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
            if (nanos <= 0L || (interrupted && interruptible)) {
                if (q.cancelWaiting()) {
                    w.unregister();
                    return giveUp(interruptible, interrupted);
                }
                break; // the candidacy arrived while we were giving up: take it
            }
            park(nanos);
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
        return interrupted ? INTERRUPTED_BUT_CONTINUE : PROCEED;
    }

    /**
     * The candidate's loop: parked until made heir (or handed the lock); as heir, spin
     * briefly, announce the park, re-check and park with a timeout.
     */
    private int competeAsCandidate(Thread me, Waiters w, QNode q, boolean interruptible, boolean timed,
                                   long deadline, boolean interrupted) throws InterruptedException {
        long heirPark = HEIR_PARK_MIN_NANOS;
        for (;;) {
            if ((int) QNode.STATUS.getVolatile(q) == QNode.HANDED) {
                awaitHandedOwnership(me);
                becomeOwner(w, q);
                return interrupted ? INTERRUPTED_BUT_CONTINUE : PROCEED;
            }
            long nanos = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
            boolean heir = w.heir() == q;
            if (heir) {
                if (spinForFlag(me)) {
                    becomeOwner(w, q);
                    return interrupted ? INTERRUPTED_BUT_CONTINUE : PROCEED;
                }
                QNode.PARKED.setVolatile(q, true);
                if (OWNER.getVolatile(this) == null && tryAcquireFree(me)) {
                    QNode.PARKED.setOpaque(q, false);
                    becomeOwner(w, q);
                    return interrupted ? INTERRUPTED_BUT_CONTINUE : PROCEED;
                }
            }
            if (nanos <= 0L || (interrupted && interruptible)) {
                QNode.PARKED.setOpaque(q, false);
                if (!q.cancelCandidate()) {
                    continue; // handed the lock while giving up: it is ours
                }
                leaveAsCandidate(me, w, q);
                return giveUp(interruptible, interrupted);
            }
            if (heir && w.ownerQueue() < 0) {
                // The owner may have read a stale "quiet" hint: park with the recovery timeout.
                park(Math.min(nanos, heirPark));
                heirPark = Math.min(heirPark << 1, HEIR_PARK_MAX_NANOS);
                QNode.PARKED.setOpaque(q, false);
            } else if (heir) {
                // A queued owner always releases through the fenced path and will see PARKED.
                park(nanos);
                QNode.PARKED.setOpaque(q, false);
            } else {
                park(nanos);
            }
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
    }

    private boolean spinForFlag(Thread me) {
        if (tryAcquireFree(me)) {
            return true;
        }
        for (int i = spinsFor(me); i > 0; i--) {
            Thread.onSpinWait();
            if (OWNER.getOpaque(this) == null && tryAcquireFree(me)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A handoff is two steps by the releaser: the CAS that makes the node HANDED (arbitrating
     * against the heir's cancellation), then the store of the new owner. The heir can see the
     * first before the second; it waits for the second, which follows within a few
     * instructions and no blocking call. (Storing the owner first would be wrong: a heir that
     * cancelled in the meantime and retried at once would see itself as owner and re-enter.)
     */
    private void awaitHandedOwnership(Thread me) {
        for (int spins = 0; (Thread) OWNER.getVolatile(this) != me; spins++) {
            pauseBriefly(spins);
        }
    }

    /**
     * One step of waiting for another thread that is running and a few instructions away from
     * the store we wait for: spin first, then yield so that the other thread, if it shares our
     * carrier or CPU, gets to run.
     */
    static void pauseBriefly(int spins) {
        if (spins < SPINS) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    /** Bookkeeping of a queued thread that now owns the flag (by its own CAS or by handoff). */
    private void becomeOwner(Waiters w, QNode q) {
        int n = q.queue;
        q.retire();
        w.clearHeir(q);
        w.recordQueuedOwner(n);
        w.passCandidacy(n, q);
    }

    /** A cancelling candidate gives its roles away so that no wake-up is lost. */
    private static void leaveAsCandidate(Thread me, Waiters w, QNode q) {
        w.passCandidacy(q.queue, q);
        w.clearHeir(q);
        w.unregister();
        w.wakeHeir(me);
    }

    /** Ends a cancelled wait: by timeout (false) or, for interruptible waits, by interrupt. */
    private static int giveUp(boolean interruptible, boolean interrupted) throws InterruptedException {
        if (interrupted && interruptible) {
            throw new InterruptedException();
        }
        return GAVE_UP;
    }

    private void releaseContended(Waiters w) {
        w.forgetQueuedOwner();
        w.streak++;
        QNode h = w.heir();
        if (h != null && ++h.overtakes >= HEIR_OVERTAKE_LIMIT && h.tryHandOff(w)) {
            OWNER.setVolatile(this, h.thread);
            LockSupport.unpark(h.thread);
            return;
        }
        OWNER.setVolatile(this, null);
        w.wakeHeir(Thread.currentThread());
    }

    // ------------------------------------------------------------------ helpers

    private void park(long nanos) {
        if (nanos == Long.MAX_VALUE) {
            LockSupport.park(this);
        } else {
            LockSupport.parkNanos(this, nanos);
        }
    }

    private int currentQueue() {
        return switch (mode) {
            case PER_NODE -> CurrentCpu.node();
            case PER_SOCKET -> CurrentCpu.socket();
            default -> placement.currentQueue();
        };
    }

    private static int spinsFor(Thread me) {
        return me.isVirtual() ? VIRTUAL_SPINS : PLATFORM_SPINS;
    }

    private static int virtualCarriers() {
        try {
            String p = System.getProperty("jdk.virtualThreadScheduler.parallelism");
            return p == null ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(p.trim());
        } catch (RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    private Waiters waitersOrInflate() {
        Waiters w = (Waiters) WAITERS.getAcquire(this);
        if (w != null) {
            return w;
        }
        Waiters fresh = new Waiters(queueCount());
        Waiters witness = (Waiters) WAITERS.compareAndExchange(this, (Waiters) null, fresh);
        return witness == null ? fresh : witness;
    }

    private IllegalMonitorStateException notOwner(String action) {
        Thread o = getOwner();
        return new IllegalMonitorStateException("cannot " + action + " " + this + ": current thread "
                + Thread.currentThread().getName() + (o == null ? " (lock not held)" : " is not the owner"));
    }

    private VnaCondition ownCondition(Condition condition) {
        Objects.requireNonNull(condition, "condition");
        if (!(condition instanceof VnaCondition c) || c.lock != this) {
            throw new IllegalArgumentException("not a condition of this lock: " + condition);
        }
        return c;
    }

    // ------------------------------------------------------------------ condition support

    /** Releases every hold of the owner; returns the hold count to restore. */
    int releaseFully(String action) {
        if ((Thread) OWNER.get(this) != Thread.currentThread()) {
            throw notOwner(action);
        }
        int saved = holds + 1;
        holds = 0;
        release();
        return saved;
    }

    /** Re-acquires after a condition wait, uninterruptibly, restoring {@code saved} holds. */
    void reacquire(int saved) {
        Thread me = Thread.currentThread();
        if (!tryAcquireFree(me)) {
            acquireUninterruptibly(me);
        }
        holds = saved - 1;
    }

    void checkOwner(String action) {
        if ((Thread) OWNER.get(this) != Thread.currentThread()) {
            throw notOwner(action);
        }
    }

    // ------------------------------------------------------------------ queue node

    /**
     * A waiting thread's entry in one MCS queue. One node per thread, cached and reused across
     * locks (a thread waits for one lock at a time, and a node is released as soon as its thread
     * owns the lock); a cancelled node is abandoned and never reused.
     *
     * <p>Status moves WAITING -> CANDIDATE (granted by the MCS predecessor, or at once on an
     * empty queue) -> HANDED (direct handoff) -> DONE, or from WAITING or CANDIDATE to CANCELLED.
     * {@code waiters} is the lock the node is queued in and is null once DONE, so "waiters == w
     * and status == CANDIDATE", read in that order, proves the node is a live candidate of w.
     */
    static final class QNode {
        static final int WAITING = 0;
        static final int CANDIDATE = 1;
        static final int HANDED = 2;
        static final int CANCELLED = 3;
        static final int DONE = 4;

        private static final ThreadLocal<QNode> CACHE = new ThreadLocal<>();

        final Thread thread;
        /** The queue index; written before the node is published by the tail swap. */
        int queue;
        /** Contended releases that passed this node by while it was heir; written by owners. */
        int overtakes;
        private QNode next;            // NEXT
        private int status;            // STATUS
        private boolean parked;        // PARKED
        private Waiters waiters;       // QUEUED_IN

        private QNode(Thread thread) {
            this.thread = thread;
        }

        static QNode forCurrentThread(Thread me) {
            QNode q = CACHE.get();
            if (q == null || q.status == CANCELLED) {
                q = new QNode(me);
                CACHE.set(q);
            }
            return q;
        }

        void prepare(Waiters w, int n) {
            queue = n;
            overtakes = 0;
            NEXT.set(this, null);
            PARKED.set(this, false);
            STATUS.set(this, WAITING);
            QUEUED_IN.setVolatile(this, w);
        }

        void becomeCandidate(Waiters w, int n) {
            STATUS.setVolatile(this, CANDIDATE);
            w.setCandidate(n, this);
        }

        boolean grantCandidacy() {
            return STATUS.compareAndSet(this, WAITING, CANDIDATE);
        }

        boolean cancelWaiting() {
            return STATUS.compareAndSet(this, WAITING, CANCELLED);
        }

        boolean cancelCandidate() {
            return STATUS.compareAndSet(this, CANDIDATE, CANCELLED);
        }

        /** Only the owner of w calls this; a live candidate of w cannot leave w meanwhile. */
        boolean tryHandOff(Waiters w) {
            return QUEUED_IN.getVolatile(this) == w && STATUS.compareAndSet(this, CANDIDATE, HANDED);
        }

        boolean isCandidateOf(Waiters w) {
            return QUEUED_IN.getVolatile(this) == w && (int) STATUS.getVolatile(this) == CANDIDATE;
        }

        void retire() {
            STATUS.setVolatile(this, DONE);
            QUEUED_IN.setVolatile(this, null);
        }

        QNode awaitSuccessor() {
            QNode s;
            for (int spins = 0; (s = (QNode) NEXT.getVolatile(this)) == null; spins++) {
                // The successor swapped the tail and is about to link itself: a few instructions.
                pauseBriefly(spins);
            }
            return s;
        }

        static final VarHandle NEXT;
        static final VarHandle STATUS;
        static final VarHandle PARKED;
        static final VarHandle QUEUED_IN;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                NEXT = l.findVarHandle(QNode.class, "next", QNode.class);
                STATUS = l.findVarHandle(QNode.class, "status", int.class);
                PARKED = l.findVarHandle(QNode.class, "parked", boolean.class);
                QUEUED_IN = l.findVarHandle(QNode.class, "waiters", Waiters.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    // ------------------------------------------------------------------ the inflated part

    /** 128 bytes of padding before the hot fields (class-hierarchy padding; see {@link Waiters}). */
    abstract static class WaitersPadBefore {
        long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
    }

    /** The fields every contended acquire and release touch, on a cache line of their own. */
    abstract static class WaitersHot extends WaitersPadBefore {
        /** The one candidate allowed to compete for the flag; null if none. */
        QNode heir;
        /** Threads in the slow path, plus one while a queued owner holds the lock. */
        int queued;
        /** Queue of the owner if it came through a queue, else -1; written under the lock. */
        int ownerQueue = -1;
        /** The queue whose turn it is, and the contended releases since its turn began. */
        int servingQueue;
        int streak;
    }

    /** 128 bytes of padding after the hot fields. */
    abstract static class WaitersPadAfter extends WaitersHot {
        long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
    }

    /**
     * Created on first contention: the per-queue MCS tails and candidates, in an array whose
     * queues are {@link #STRIDE} references apart (at least 128 bytes, two adjacent-line
     * prefetch pairs), and the hot fields, padded by the superclass chain. The JVM may reorder
     * fields within a class but keeps superclass fields before subclass fields.
     */
    static final class Waiters extends WaitersPadAfter {
        static final int STRIDE = 32;

        final int queueCount;
        private final Object[] slots;

        Waiters(int queueCount) {
            this.queueCount = Math.max(1, queueCount);
            this.slots = new Object[(this.queueCount + 2) * STRIDE];
        }

        private static int tailIndex(int n) {
            return (n + 1) * STRIDE;
        }

        private static int candidateIndex(int n) {
            return (n + 1) * STRIDE + 1;
        }

        boolean quiet() {
            return (int) QUEUED.getOpaque(this) == 0;
        }

        void register() {
            QUEUED.getAndAdd(this, 1);
        }

        void unregister() {
            QUEUED.getAndAdd(this, -1);
        }

        int waitingThreads() {
            int n = (int) QUEUED.getVolatile(this) - ((int) OWNER_QUEUE.getVolatile(this) >= 0 ? 1 : 0);
            return Math.max(0, n);
        }

        QNode heir() {
            return (QNode) HEIR.getVolatile(this);
        }

        void clearHeir(QNode q) {
            HEIR.compareAndSet(this, q, null);
        }

        int ownerQueue() {
            return (int) OWNER_QUEUE.getVolatile(this);
        }

        /** Called by a queued thread that now owns the lock; a new queue's turn starts. */
        void recordQueuedOwner(int n) {
            OWNER_QUEUE.setVolatile(this, n);
            if (n != servingQueue) {
                servingQueue = n;
                streak = 0;
            }
        }

        /** Called by the owner before it releases: a queued owner stops counting as queued. */
        void forgetQueuedOwner() {
            if (ownerQueue >= 0) {
                OWNER_QUEUE.setVolatile(this, -1);
                unregister();
            }
        }

        QNode swapTail(int n, QNode q) {
            return (QNode) SLOTS.getAndSet(slots, tailIndex(n), q);
        }

        void setCandidate(int n, QNode q) {
            SLOTS.setVolatile(slots, candidateIndex(n), q);
        }

        /**
         * The MCS release of queue n by its candidate q (which acquired the flag or gave up):
         * the first successor that is still waiting becomes the candidate; cancelled successors
         * are released on their behalf. The slot is written before the grant, so a candidate
         * never finds a stale slot written after its own departure.
         */
        void passCandidacy(int n, QNode q) {
            SLOTS.compareAndSet(slots, candidateIndex(n), q, null);
            for (QNode c = q;;) {
                QNode s = (QNode) QNode.NEXT.getVolatile(c);
                if (s == null) {
                    if (SLOTS.compareAndSet(slots, tailIndex(n), c, null)) {
                        SLOTS.compareAndSet(slots, candidateIndex(n), c, null); // a cancelled tail
                        return;
                    }
                    s = c.awaitSuccessor();
                }
                setCandidate(n, s);
                if (s.grantCandidacy()) {
                    return;
                }
                c = s;
            }
        }

        /**
         * Makes sure a candidate competes: unparks the heir if it announced a park, or, when
         * there is no heir, designates one (validated after the CAS) and unparks it.
         */
        void wakeHeir(Thread me) {
            for (;;) {
                QNode h = heir();
                if (h != null) {
                    if ((boolean) QNode.PARKED.getVolatile(h)) {
                        LockSupport.unpark(h.thread);
                    }
                    return;
                }
                QNode c = pickCandidate();
                if (c == null) {
                    return;
                }
                if (HEIR.compareAndSet(this, null, c)) {
                    if (c.isCandidateOf(this)) {
                        if (c.thread != me) {
                            LockSupport.unpark(c.thread);
                        }
                        return;
                    }
                    HEIR.compareAndSet(this, c, null);
                }
            }
        }

        /** The serving queue's candidate while its streak lasts, else the next queue's, round-robin. */
        private QNode pickCandidate() {
            int serving = servingQueue;
            if (streak < LOCAL_HANDOFF_LIMIT) {
                QNode c = candidateOf(serving);
                if (c != null) {
                    return c;
                }
            }
            for (int i = 1; i <= queueCount; i++) {
                int k = serving + i;
                QNode c = candidateOf(k >= queueCount ? k - queueCount : k);
                if (c != null) {
                    return c;
                }
            }
            return null;
        }

        private QNode candidateOf(int n) {
            QNode c = (QNode) SLOTS.getVolatile(slots, candidateIndex(n));
            return c != null && c.isCandidateOf(this) ? c : null;
        }

        private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Object[].class);
        static final VarHandle HEIR;
        static final VarHandle QUEUED;
        static final VarHandle OWNER_QUEUE;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                HEIR = l.findVarHandle(WaitersHot.class, "heir", QNode.class);
                QUEUED = l.findVarHandle(WaitersHot.class, "queued", int.class);
                OWNER_QUEUE = l.findVarHandle(WaitersHot.class, "ownerQueue", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    static final VarHandle OWNER;
    static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OWNER = l.findVarHandle(VnaLock.class, "owner", Thread.class);
            WAITERS = l.findVarHandle(VnaLock.class, "waiters", Waiters.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        // Load LockSupport early to avoid class loading in the middle of a handoff.
        Class<?> ensureLoaded = LockSupport.class;
    }
}
