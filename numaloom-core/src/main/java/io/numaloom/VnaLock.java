package io.numaloom;

import io.numaloom.topology.Topology;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * A reentrant mutual-exclusion {@link Lock} for virtual and platform threads, built for NUMA
 * machines: a drop-in replacement for {@link java.util.concurrent.locks.ReentrantLock} in its
 * default (non-fair) mode wherever the lock is typed as {@link Lock}. It is not a subclass of
 * {@code ReentrantLock} (it would carry that class's private queue, unused) and not
 * {@code Serializable} (keep it in a {@code transient} field and create a new one on reading, which is
 * what a deserialized {@code ReentrantLock} is: unlocked, without waiters); it has
 * {@code ReentrantLock}'s monitoring methods ({@link #getHoldCount()}, {@link #isLocked()},
 * {@link #isFair()}, {@link #hasQueuedThreads()}, {@link #hasQueuedThread(Thread)},
 * {@link #getQueueLength()}, {@link #getQueuedThreads()}, {@link #hasWaiters(Condition)}, ...).
 *
 * <pre>{@code
 * Lock lock = new VnaLock();          // one waiting queue per NUMA node
 * lock.lock();
 * try {
 *     // critical section
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <p><b>When to use it.</b> Where you would use {@code ReentrantLock}: the semantics are the
 * same (hold counts, owner checks, {@link #tryLock()}, timed and interruptible acquisition, a
 * {@link Condition} per {@link #newCondition()}). Over {@code ReentrantLock} it gives:
 * <ul>
 * <li>a cheaper uncontended path: one compare-and-set to lock and a plain release store to
 *     unlock, no allocation;
 * <li>a bound in time on how long a waiter can be overtaken by threads that barge in
 *     (unfair {@code ReentrantLock} has none), without the throughput cost of a fair lock;
 * <li>on machines with several NUMA nodes, waiters queue per node, and the lock prefers to pass
 *     from a waiter to another waiter of the same node for a bounded time, so the data it
 *     protects stays in one node's caches;
 * <li>waiting that suits virtual threads: while no waiting thread competes for the lock, a thread
 *     that finds it held polls it for about a microsecond before it queues; once one does, only
 *     that one (the heir) spins, briefly (a few microseconds), and every other waiter is parked
 *     and uses no CPU. With one carrier nobody spins.
 * </ul>
 *
 * <p><b>Guarantees.</b>
 * <ul>
 * <li><em>Bounded overtaking.</em> A thread at the head of its queue waits at most about
 *     {@code (queues - 1) * (TURN_NANOS + PATIENCE_NANOS) + PATIENCE_NANOS} (1 ms with one
 *     queue, 3 ms with two), plus the critical sections in progress and the time the scheduler
 *     takes to run it. Within a queue, threads are served in arrival order, and a thread behind
 *     others waits at most about {@link #STARVATION_NANOS} (4 ms) plus, for each thread ahead
 *     of it, one critical section and the time the scheduler takes to run that thread. See
 *     {@link #PATIENCE_NANOS}, {@link #STARVATION_NANOS} and {@link #TURN_NANOS}.
 * <li><em>No lock convoys.</em> The lock is never handed to a thread that is not running:
 *     a waiter that has been overtaken for too long <em>reserves</em> the lock (new arrivals
 *     then queue instead of barging) and takes it itself.
 * <li><em>Memory.</em> A fresh lock is 40 bytes (ReentrantLock: 48, JOL, compressed oops).
 *     Queues, padded against false sharing, are allocated on first contention and kept.
 * <li><em>No flags needed.</em> On a machine with one NUMA node and one socket the lock makes
 *     no native call. On a multi-node machine a waiter asks {@code sched_getcpu} through the FFM
 *     API which node it runs on, to pick its queue; see {@link io.numaloom.topology.CurrentCpu}
 *     for {@code --enable-native-access} and the fallback. A thread whose scheduler has told its
 *     home node through {@link io.numaloom.topology.HomeNode} (a virtual thread of
 *     numaloom-scheduler's {@code NumaScheduler}) is queued on that node's queue without the
 *     call: it will resume on that node after its park, so a handoff to it from a thread of the
 *     same node stays on the node (the locality the VNA lock's per-node queues are for).
 * <li><em>Fail fast.</em> A malformed {@code -Dnumaloom.topology} fails the constructor with an
 *     {@link IllegalArgumentException}; {@code lock()} and {@code unlock()} throw only what the
 *     {@link Lock} contract allows.
 * </ul>
 * {@link #tryLock()} acquires a free lock even when other threads wait, as {@code ReentrantLock}
 * does, except while a starving waiter has reserved it: then it fails, for at most
 * {@link #RESERVATION_GRACE_NANOS} (250 µs) of a reservation that its waiter does not take
 * because it is not running, after which {@code tryLock()} takes the lock.
 *
 * <p>The algorithm is the VNA lock of Kovalev, Koval et al., "NUMA-aware lock for Java
 * Lightweight Threads" (a global flag taken by compare-and-set plus one MCS queue per NUMA
 * node), with the wake-up discipline of D. Dice, "Implementing Fast Java Monitors with
 * Relaxed-Locks" (JVM '01), and a time-based fairness bound in the manner of the
 * compact NUMA-aware lock of D. Dice and A. Kogan, "Compact NUMA-aware Locks" (EuroSys '19)
 * as merged into Linux (its 1 ms {@code numa_spinlock_threshold_ns}), and of the stealing
 * switch of S. Kashyap et al., "Scalable and Practical Locking with Shuffling" (SOSP '19).
 */
public class VnaLock extends VnaLockWord implements Lock {

    /*
     * Implementation notes (for maintainers; the class Javadoc above is for users).
     *
     * <p><b>Map.</b> This file holds the API, the fast path, the release, the monitoring methods,
     * the condition glue and the driver of the slow path (acquireSlow, queue, awaitCandidacy). The
     * parts depend downwards only (docs/vna-mechanisms.md, "The layering"; VnaLayeringTest): this
     * class calls the mechanisms, a mechanism refers only to the shared state and to the mechanisms
     * before it, and the shared state to no mechanism. The shared state: {@link VnaLockWord} (the
     * word, the owner and the waiters' record, this class's superclass, with every CAS on the word),
     * {@link VnaWaiters}, {@link VnaQueueNode}, {@link VnaCarriers}, {@link VnaWaitOutcome},
     * {@link VnaConditionWaiter}, {@link SignalledWaiters} and {@link VnaSeams}. Each mechanism of the
     * contended path is a package-private file of its own, whose header gives its idea, the paper it
     * comes from, its properties and the measurement that keeps it (the history is in
     * docs/measurements.md):
     * <ul>
     * <li>{@link VnaWaiters}: the state inflated on first contention, its padded hot fields, and
     *     the per-node MCS queues (enqueue, candidacy passed on, queued threads);
     * <li>{@link VnaNewcomerPoll}: a newcomer's few polls of the held lock before it queues;
     * <li>{@link VnaPlacement}: which queue a waiting thread joins (its NUMA node's, its socket's,
     *     or a custom placement's);
     * <li>{@link VnaQueueNode}: a waiting thread's node, its status machine, deadline and
     *     incarnation, its park and park announcement, and cancellation;
     * <li>{@link VnaSuccession}: the successor policy: which candidate becomes heir, the turn of
     *     the queues, and how the heir is woken;
     * <li>{@link VnaHeirWait}: the heir's competition with newcomers (spin, nap, park), its
     *     recovery from the benign race below, and how it becomes owner or gives up;
     * <li>{@link VnaReservation}: the time bound: reservation, its lapse for {@code tryLock()},
     *     and the fairness bound;
     * <li>{@link VnaConditionWakes}: a signalled condition waiter counted as queued from the
     *     signal, one signalled waiter in transit per condition;
     * <li>{@link VnaSignalPoll}: a platform condition waiter's poll for its wake-up before it
     *     parks;
     * <li>{@link VnaSeams}: the test seams.
     * </ul>
     *
     * <p><b>State.</b> {@code state} is the lock word: bit {@link #LOCKED} while held, bit
     * {@link #RESERVED} while the heir (below) forbids barging. Acquiring is a CAS on it, releasing
     * a store. {@code owner} is the holding thread, written by the new owner right after its CAS and
     * cleared before the release store; {@code holds} counts re-entries beyond the first. Both are
     * plain fields touched only by the owner (a thread reading {@code owner} sees its own last write
     * or a racing one, never its own stale {@code me}: that is all the owner checks need).
     * Everything else lives in a {@link VnaWaiters} record, created by the first thread that has to
     * wait: per queue an MCS tail and the queue's <em>candidate</em>; for the whole lock the
     * <em>heir</em>, the count {@code queued} and the turn of the queues.
     *
     * <p><b>Roles of a waiting thread.</b> A thread that fails the fast path registers in
     * {@code queued}, tries the lock once more and appends its node to the MCS queue of its NUMA
     * node (or socket). MCS order gives each queue one candidate, its head. At most one candidate,
     * the heir, is awake and competes for the lock; every other waiter is parked without a timeout.
     * When the heir takes the lock it leaves its queue at once, passing the candidacy to its MCS
     * successor (so one node per thread serves every lock), clears the heir slot and records its
     * queue in {@code ownerQueue}. (The paper holds the MCS lock through the critical section; this
     * keeps its property that one thread per node contends, here one thread overall.)
     *
     * <p><b>Yielding to an overdue heir.</b> A heir can only reserve when it runs. A virtual heir
     * woken by a running owner is queued on the owner's carrier; it runs there only when the owner's
     * virtual thread parks or yields, which an owner that barges never does, and elsewhere only if
     * another carrier is free and its CPU is not taken by the operating system. So every
     * {@link #OVERDUE_CHECK_INTERVAL}th contended release by a virtual thread looks at the heir's
     * deadline, and a releasing virtual thread that finds the heir overdue and the lock not reserved
     * yields (after its release, never holding the lock): the heir gets the carrier it may have been
     * waiting for, finds the lock free and takes it. Without this, on 8 virtual threads on 2 cores, an
     * owner often kept the lock for its whole share of the work while the heir it had woken never ran.
     * A platform thread does not make this check: the kernel preempts a running owner and runs a
     * woken heir within its own time slice, and {@code sched_yield} hands the CPU to any runnable
     * thread, not to the heir (the platform yield measured and not kept: docs/measurements.md,
     * entry 22). On virtual threads the yield is for the time bound, not for throughput: without it
     * the longest wait of a round is 1.35 [1.14, 1.71], 1.43 [1.24, 1.60] and 2.25 [1.97, 2.73] times
     * as long, on consumeCpu at 8 and 32 virtual threads and RandBash at 8 (docs/measurements.md M25,
     * waits paired by round); its cost is 2% of throughput in geometric mean over eight short-section
     * points (1.02 [1.01, 1.04] without it, M15; tied at M25's three points).
     *
     * <p><b>Unlock and the benign race.</b> {@code unlock} of a lock whose {@code VnaWaiters} is
     * absent, or whose {@code queued} is zero, stores 0 into {@code state} with release semantics:
     * no atomic instruction, no fence. The hint is read before the store, so a thread that
     * registers concurrently can be missed: it becomes heir, fails its CAS because the store is
     * not yet visible to it, and parks while nobody will wake it (the store may also erase a
     * reservation set in that window; the heir sets it again). The heir recovers from this, at no
     * cost to the uncontended path: it spins before it parks, and it alone may park with a timeout
     * (see "The benign race" in {@link VnaHeirWait}). The volatile loads of the hint, on which the
     * heir's untimed park relies, cost nothing over plain loads on x86.
     *
     * <p>Every other wake-up is exact. When {@code queued} is non-zero, unlock takes the contended
     * path: it clears {@link #LOCKED} with an atomic add (a full fence) and then reads the heir
     * state. The heir announces {@code parked} with a volatile store and then re-reads
     * {@code state} with a volatile load. By sequential consistency of synchronization actions
     * (JLS 17.4.4) either the unlocker sees {@code parked} and unparks the heir, or the heir sees
     * the lock free. Non-heir waiters are woken only by designation (a CAS, then an unpark whose
     * permit is not lost if it precedes the park), so they park without a timeout.
     *
     * <p><b>Hot paths warm up.</b> The accesses every acquisition and release make, uncontended
     * or contended, go through field updaters (the word's in {@link VnaLockWord}, and the heir slot, the
     * count {@code queued} and a node's status in {@link VnaWaiters} and {@link VnaQueueNode}) and
     * through plain Java reads and writes of volatile fields, instead of through VarHandles with the
     * same modes: a VarHandle's {@code getVolatile} is a volatile field read, {@code setRelease} is
     * the updater's {@code lazySet}, a CAS is a CAS. Compiled, both inline to the same accesses, the
     * updater's with a check of the receiver's class. Interpreted, which is how a fresh JVM runs its
     * first thousands of acquisitions, a VarHandle call passes through several generic frames (its
     * invoker, the access mode's guard, the field's implementation) where an updater is one call
     * that checks the receiver's class and calls an intrinsic, and a volatile field read is one
     * bytecode (docs/measurements.md, entry 24). The pollers that spin on {@code state} (a
     * newcomer, the heir) read it volatile where a VarHandle read it opaque or volatile: on x86 the
     * same load. The rest keeps VarHandles and their explicit modes: a VarHandle ignores a field's
     * {@code volatile}, which an updater requires.
     *
     * <p><b>Exceptions in the slow path.</b> The queue placement (user code for
     * {@link #withPlacement}) is asked before the thread registers, so a placement that throws
     * leaves the lock as it was; a condition waiter's re-acquisition, which cannot give up, takes
     * queue 0 instead of any failure ({@link VnaPlacement}). No call that can grow the stack comes between the swap of an MCS
     * tail and the link from the predecessor (see {@link VnaWaiters}).
     *
     * <p><b>Memory ordering.</b> Acquisition is a CAS with acquire semantics; the uncontended
     * release is a release store, and the contended one an atomic add: that is exactly the
     * happens-before edge {@link Lock} promises. Queue links and roles ({@code next},
     * {@code status}, {@code parked}, {@code heir}, candidate slots) are accessed with volatile
     * semantics, because each takes part in one of the store-then-load handshakes above.
     */

    /**
     * How long a heir lets newcomers barge before it reserves the lock for itself: 1 ms, the
     * default of the Linux kernel's compact NUMA-aware lock ({@code numa_spinlock_threshold_ns}).
     * Barging keeps running threads running; this bounds what it costs the waiter it overtakes.
     */
    public static final long PATIENCE_NANOS = VnaSuccession.PATIENCE_NANOS;

    /**
     * How long a queued thread waits, in all, before it stops letting newcomers barge: a thread
     * that has waited 4 ms since it queued reserves the lock as soon as it is heir, without
     * waiting out {@link #PATIENCE_NANOS}. This bounds the wait of every queued thread, not only
     * of the heir: threads queued behind one another would otherwise each let newcomers barge
     * for a full patience interval in turn. Each such reservation moves the lock to a waiter, so
     * the bound trades throughput for latency.
     */
    public static final long STARVATION_NANOS = VnaSuccession.STARVATION_NANOS;

    /**
     * How long a lock that no thread holds may stay reserved for a heir that does not take it
     * before {@link #tryLock()} takes it anyway: 250 microseconds. A heir that reserved is running
     * or has just been woken by the release, and takes the free lock within a wake-up; one that
     * has not taken it by then is not running (its carrier or CPU is busy, perhaps with the very
     * thread that calls {@code tryLock}), and {@code tryLock()} must not fail for long on a lock
     * that nobody holds. The heir reserves again when it runs, so the bound on its wait loses
     * only what it already excludes: the time the scheduler takes to run it.
     */
    public static final long RESERVATION_GRACE_NANOS = VnaReservation.RESERVATION_GRACE_NANOS;

    /** Contended releases between two looks of the owner at the heir's deadline (a power of two). */
    static final int OVERDUE_CHECK_INTERVAL = 32;

    /**
     * How long one queue (NUMA node) may keep the heir role before the next queue with a
     * waiter, round-robin, gets its turn.
     */
    public static final long TURN_NANOS = VnaSuccession.TURN_NANOS;

    /** Re-entries beyond the first; written and read by the owner only. */
    private int holds;
    /**
     * Contended releases, counted so that one in {@link #OVERDUE_CHECK_INTERVAL} looks at the
     * heir; written and read by the owner only, on the line the owner's CAS already holds (and in
     * the space object alignment leaves free: the lock stays 40 bytes).
     */
    private int contendedReleases;
    /** Non-null only for {@link VnaPlacement#CUSTOM} placement. */
    private final QueuePlacement placement;
    private final byte mode;

    /**
     * Creates a lock with one waiting queue per NUMA node of {@link Topology#current()}.
     *
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed (the message
     *         quotes it and names the problem)
     */
    public VnaLock() {
        this(VnaPlacement.PER_NODE, null);
    }

    /**
     * Creates a lock like {@link #VnaLock()} with a name that numaloom's JFR events carry, so that
     * the contention summary ({@code numaloom-tools}) and JDK Mission Control show {@code orders}
     * rather than {@code VnaLock@} and an identity hash.
     *
     * @param name the name, not null
     * @return a new lock, one waiting queue per NUMA node
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
     */
    public static VnaLock named(String name) {
        return new Named(name);
    }

    /*
     * A named lock is a subclass, so that the name costs an unnamed lock nothing: a VnaLock is 40
     * bytes (JOL, compressed oops), and a name field would make it 48. The name is read only when a
     * JFR event is begun, under contention with a recording on (LockEvent.begin).
     */
    static final class Named extends VnaLock {
        final String name;

        Named(String name) {
            super(VnaPlacement.PER_NODE, null);
            this.name = Objects.requireNonNull(name, "name");
        }
    }

    /** For {@link KeyedLock}'s per-key records: {@code mode} is one of the placement modes above. */
    VnaLock(byte mode, QueuePlacement placement) {
        this.mode = mode;
        this.placement = placement;
        queueCount(); // resolves the topology now: a bad spec fails here, never inside lock()
    }

    /**
     * Creates a lock with one waiting queue per socket (the paper's VNA_2_Q).
     *
     * @return a new lock
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
     */
    public static VnaLock perSocket() {
        return new VnaLock(VnaPlacement.PER_SOCKET, null);
    }

    /**
     * Creates a lock whose waiting queues are chosen by {@code placement}, for applications that
     * know where their threads run better than {@code sched_getcpu} does, and for tests. An
     * exception thrown by {@link QueuePlacement#currentQueue()} propagates out of the acquiring
     * call and leaves the lock as it was; the re-acquisition at the end of a
     * {@link Condition#await() condition wait}, which must return holding the lock, absorbs any
     * failure of the placement and waits on queue 0.
     *
     * @param placement chooses the queue of each waiting thread
     * @return a new lock
     */
    public static VnaLock withPlacement(QueuePlacement placement) {
        return new VnaLock(VnaPlacement.CUSTOM, checkPlacement(placement));
    }

    static QueuePlacement checkPlacement(QueuePlacement placement) {
        Objects.requireNonNull(placement, "placement");
        if (placement.queueCount() < 1) {
            throw new IllegalArgumentException("placement.queueCount() must be >= 1, got " + placement.queueCount());
        }
        return placement;
    }

    /** Whether this lock was made with this placement mode and custom placement. */
    final boolean placedBy(byte mode, QueuePlacement placement) {
        return this.mode == mode && this.placement == placement;
    }

    /**
     * Shorthand for {@link #withPlacement(QueuePlacement)} from a count and a supplier.
     *
     * @param queueCount the number of queues, at least 1
     * @param currentQueue the queue the calling thread should join, in {@code [0, queueCount)}
     * @return a new lock
     */
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
        if (!tryAcquireFree()) {
            acquireUninterruptibly(Thread.currentThread(), true);
        } else {
            owner = Thread.currentThread();
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (tryAcquireFree()) {
            owner = Thread.currentThread();
        } else {
            acquireSlow(Thread.currentThread(), true, false, 0L, true);
        }
    }

    /**
     * Acquires the lock if no thread holds it, or if the current thread does (its hold count
     * grows by one), and returns at once in any case. Like {@code ReentrantLock.tryLock()} it
     * barges: it takes a free lock even when other threads wait. One exception bounds how long
     * they can be overtaken: while a waiter that was overtaken for too long has reserved the
     * lock, {@code tryLock()} on the free lock fails, so that the waiter takes it. A waiter that
     * does not take it within {@link #RESERVATION_GRACE_NANOS} of the first {@code tryLock()}
     * that found it so is not running, and the lock goes to the next {@code tryLock()}: a lock
     * that no thread holds is never refused for longer than that, at any parallelism.
     *
     * @return whether the lock is now held by the current thread
     */
    @Override
    public boolean tryLock() {
        Thread me = Thread.currentThread();
        if (tryAcquireFree()) {
            owner = me;
            return true;
        }
        return reenter(me) || VnaReservation.takeLapsedReservation(this, me);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(time);
        Thread me = Thread.currentThread();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (tryAcquireFree()) {
            owner = me;
            return true;
        }
        if (nanos <= 0L) {
            return reenter(me);
        }
        return acquireSlow(me, true, true, System.nanoTime() + nanos, true);
    }

    @Override
    public void unlock() {
        if (owner != Thread.currentThread()) {
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
        owner = null;
        VnaWaiters w = waiters;
        if (w == null || w.quiet()) {
            releaseUncontended();
        } else {
            releaseContended(w);
        }
    }

    /** Reports a signalled condition waiter as queued for this lock (see {@link VnaConditionWakes}); called holding it. */
    @Override
    void queueSignalled(VnaConditionWaiter waiter) {
        VnaConditionWakes.signalled(waitersOrInflate(), waiter);
    }

    @Override
    public Condition newCondition() {
        return new VnaCondition(this);
    }

    // ------------------------------------------------------------------ inspection

    /** {@return the number of holds on this lock by the current thread, or zero} */
    public int getHoldCount() {
        return isHeldByCurrentThread() ? holds + 1 : 0;
    }

    /** {@return whether the current thread holds this lock} */
    public boolean isHeldByCurrentThread() {
        return owner == Thread.currentThread();
    }

    /** {@return whether any thread holds this lock; for monitoring, not for synchronization} */
    public boolean isLocked() {
        return (word() & LOCKED) != 0;
    }

    /** {@return the owner, or null; a snapshot for monitoring} */
    protected Thread getOwner() {
        return isLocked() ? owner : null;
    }

    /** {@return whether some thread may be waiting to acquire this lock; a snapshot for monitoring} */
    public boolean hasQueuedThreads() {
        return getQueueLength() > 0;
    }

    /**
     * Whether {@code thread} is waiting to acquire this lock; a snapshot for monitoring, not for
     * synchronization. A thread blocked in {@code lock()}, {@code lockInterruptibly()} or a timed
     * {@code tryLock} is reported once it has queued (within about a microsecond of finding the lock
     * held); one that acquired the lock, timed out or was interrupted is not. As with
     * {@code ReentrantLock}, the answer may be out of date as soon as it is returned.
     *
     * @param thread the thread to look for
     * @return whether {@code thread} is queued for this lock
     * @throws NullPointerException if {@code thread} is null
     */
    public final boolean hasQueuedThread(Thread thread) {
        Objects.requireNonNull(thread, "thread");
        VnaWaiters w = waitersVolatile();
        return w != null && (w.signalled.contains(thread) || w.queuedThreads().contains(thread));
    }

    /**
     * The threads waiting to acquire this lock, queue by queue, each in its queue's order; a snapshot for
     * monitoring (which threads are reported: see {@link #hasQueuedThread(Thread)}). It may miss a thread
     * that is just queuing or being handed the front of its queue, as {@code ReentrantLock}'s does.
     *
     * @return the queued threads, possibly empty
     */
    protected Collection<Thread> getQueuedThreads() {
        VnaWaiters w = waitersVolatile();
        if (w == null) {
            return List.of();
        }
        List<Thread> threads = w.queuedThreads();
        w.signalled.addThreadsTo(threads);
        return threads;
    }

    /**
     * {@return always false: this lock lets newcomers barge, as a non-fair {@code ReentrantLock} does,
     * within a bound in time}
     */
    public final boolean isFair() {
        return false;
    }

    /**
     * {@return an estimate of the number of threads waiting to acquire this lock (threads between the
     * failed fast path and acquisition, cancellation or timeout); for monitoring}
     */
    public int getQueueLength() {
        VnaWaiters w = waitersVolatile();
        return w == null ? 0 : w.waitingThreads();
    }

    /** {@return the number of queues waiters are spread over: NUMA nodes, sockets or the custom count} */
    public int queueCount() {
        return switch (mode) {
            case VnaPlacement.PER_NODE -> Topology.current().nodeCount();
            case VnaPlacement.PER_SOCKET -> Topology.current().socketCount();
            default -> placement.queueCount();
        };
    }

    /**
     * {@return whether threads are waiting on {@code condition}, which must belong to this lock}
     *
     * @param condition a condition of this lock
     */
    public boolean hasWaiters(Condition condition) {
        return ownCondition(condition).hasWaiters();
    }

    /**
     * {@return an estimate of the threads waiting on {@code condition}, which must belong to this lock}
     *
     * @param condition a condition of this lock
     */
    public int getWaitQueueLength(Condition condition) {
        return ownCondition(condition).waitQueueLength();
    }

    /**
     * The threads that may be waiting on {@code condition}, which must belong to this lock; a snapshot for monitoring,
     * as {@code ReentrantLock.getWaitingThreads} gives it. A thread that was signalled is no longer among them: it
     * waits for the lock ({@link #getQueuedThreads()}).
     *
     * @param condition a condition of this lock
     * @return the waiting threads, possibly empty
     * @throws IllegalMonitorStateException if the current thread does not hold this lock
     * @throws IllegalArgumentException if {@code condition} is not a condition of this lock
     * @throws NullPointerException if {@code condition} is null
     */
    protected Collection<Thread> getWaitingThreads(Condition condition) {
        return ownCondition(condition).waitingThreads();
    }

    @Override
    public String toString() {
        Thread o = getOwner();
        return super.toString() + (o == null ? "[Unlocked]" : "[Locked by thread " + threadName(o) + "]");
    }

    /**
     * A thread as the exception messages of numaloom's locks name it: its name in quotes, if it has one, then
     * {@code #} and its id, and whether it is virtual: {@code "main" #1}, {@code #27 (virtual)}. Virtual threads have
     * no name unless given one, and a name need not be unique.
     */
    static String threadIdentity(Thread t) {
        String name = t.getName();
        return (name.isEmpty() ? "" : "\"" + name + "\" ") + "#" + t.threadId() + (t.isVirtual() ? " (virtual)" : "");
    }

    /**
     * A thread as {@code toString} names an owner: its name, as {@code ReentrantLock} does, or, for a thread without
     * one, its {@link #threadIdentity identity}.
     */
    static String threadName(Thread t) {
        String name = t.getName();
        return name.isEmpty() ? threadIdentity(t) : name;
    }

    // ------------------------------------------------------------------ acquisition

    /** {@link KeyedLock}'s fast path without a spin ({@code tryLock(key)}): the fast path of {@link #lock()} alone. */
    final boolean tryLockUnqueued() {
        if (tryAcquireFree()) {
            owner = Thread.currentThread();
            return true;
        }
        return false;
    }

    /**
     * {@link KeyedLock}'s fast path: the fast path of {@link #lock()}, then, while no heir competes,
     * its newcomer's poll ({@link VnaNewcomerPoll}): a short critical section ends within it,
     * and the key's record need not be pinned. No queueing, no re-entry.
     */
    final boolean tryLockBriefly() {
        Thread me = Thread.currentThread();
        if (tryAcquireFree()) {
            owner = me;
            return true;
        }
        if (owner == me) {
            return false; // a re-entry: the caller's slow path counts it
        }
        VnaWaiters w = waitersAcquire();
        return (w == null || w.heir() == null) && VnaNewcomerPoll.poll(this, me);
    }

    /**
     * {@link KeyedLock}'s blocking acquisition after {@link #tryLockBriefly}: {@link #lock()} without
     * a second newcomer's spin.
     */
    final void lockAfterSpin() {
        if (tryAcquireFree()) {
            owner = Thread.currentThread();
        } else {
            acquireUninterruptibly(Thread.currentThread(), false);
        }
    }

    /**
     * {@link KeyedLock}'s acquisition by a thread that pinned the record: also takes a lock that a
     * deflater claimed ({@link #DEFLATED}), since the pin makes that deflation back out. A CAS lost
     * to a deflater's claim ({@code 0 -> DEFLATED}) or back-out ({@code DEFLATED -> 0}) is retried:
     * nobody holds the lock then, and a deflater that read the pins before ours claims at most once.
     */
    final boolean tryLockPinned() {
        for (;;) {
            int s = word();
            if (s != 0 && s != DEFLATED) {
                return false;
            }
            if (casWord(s, LOCKED)) { // RACE: a pinned thread against newcomers and the deflater's claim or back-out
                owner = Thread.currentThread();
                if (s == DEFLATED) {
                    acquiredDeflated();
                }
                return true;
            }
        }
    }

    /** {@link KeyedLock}'s deflater claims a free, unreserved lock that nobody holds: CAS 0 -> DEFLATED. */
    final boolean tryClaimForDeflation() {
        return casWord(0, DEFLATED); // RACE: the deflater's claim against the fast path
    }

    /**
     * The deflater backs out (a pinned thread wants the record): DEFLATED -> 0, unless a pinned
     * thread took the lock from DEFLATED meanwhile. Returns false in that case: that thread left
     * the deflater a pin to drop ({@link #acquiredDeflated()}).
     */
    final boolean abandonDeflation() {
        return casWord(DEFLATED, 0); // RACE: the back-out against a pinned thread's acquisition
    }

    /** A deflated record bound to a new key becomes a free lock: its binder publishes the binding with this store. */
    final void revive() {
        setWordRelease(0); // release, as unlock's store: the CAS that reads it sees the binding
    }

    /**
     * A deflated record bound to a key that {@code holder} holds thin (see {@code KeyedLock}) becomes
     * a lock held once by {@code holder}: written by the inflating thread before the record is
     * published, as a constructor writes, so {@code owner} is still only ever written while no other
     * thread can see the lock, or by its owner. The word goes from DEFLATED to LOCKED without passing 0.
     */
    final void reviveHeldBy(Thread holder) {
        owner = holder;
        holds = 0;
        setWordRelease(LOCKED);
    }

    private boolean reenter(Thread me) {
        if (owner != me) {
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
    private boolean acquireSlow(Thread me, boolean interruptible, boolean timed, long deadline, boolean newcomerSpin)
            throws InterruptedException {
        return acquireSlow(me, interruptible, timed, deadline, newcomerSpin, false, false);
    }

    /**
     * The slow path. {@code reacquiring}: a condition waiter re-acquires at the end of its wait
     * (uninterruptibly, untimed), which must not fail; {@code registered}: it was signalled, and so
     * is already counted in {@code queued} by its signal.
     */
    private boolean acquireSlow(Thread me, boolean interruptible, boolean timed, long deadline, boolean newcomerSpin,
                                boolean reacquiring, boolean registered) throws InterruptedException {
        if (!registered && reenter(me)) {
            return true;
        }
        LockDiagnostics.slowPath();
        VnaWaiters w = waitersOrInflate();
        // Ask the placement (user code, which may throw) before anything changes.
        int n = w.queueCount == 1 ? 0 : VnaPlacement.placedQueue(mode, placement, w.queueCount, reacquiring);
        LockContendedEvent event = JfrGate.recorderStarted()
                ? LockContendedEvent.beginIfEnabled(this, owner, n, w) : null; // no JFR yet: leave the event class alone
        if (newcomerSpin && w.heir() == null && VnaNewcomerPoll.poll(this, me)) {
            if (registered) {
                w.unregister();
            }
            acquiredUnqueued(event);
            return true;
        }
        if (!registered) {
            w.register();
        }
        if (tryAcquireFree()) {
            owner = me;
            w.unregister();
            acquiredUnqueued(event);
            return true;
        }
        VnaQueueNode q = VnaQueueNode.forCurrentThread(me);
        boolean acquired = queue(me, w, n, q, interruptible, timed, deadline);
        if (acquired && event != null) {
            event.acquired(true, q.parks, q.reserved);
        }
        return acquired;
    }

    private static void acquiredUnqueued(LockContendedEvent event) {
        if (event != null) {
            event.acquired(false, 0, false);
        }
    }

    private void acquireUninterruptibly(Thread me, boolean newcomerSpin) {
        try {
            acquireSlow(me, false, false, 0L, newcomerSpin);
        } catch (InterruptedException e) {
            throw new AssertionError("uninterruptible acquisition was interrupted", e);
        }
    }

    private boolean queue(Thread me, VnaWaiters w, int n, VnaQueueNode q, boolean interruptible, boolean timed,
                          long deadline) throws InterruptedException {
        q.prepare(w, n);
        boolean interrupted = false;
        try {
            VnaQueueNode pred = w.enqueue(n, q);
            if (pred == null) {
                q.becomeCandidate(w, n);
                if (w.ownerQueue() < 0) {
                    // A barger's release may have read a stale hint. A queued owner designates at its release.
                    VnaSuccession.wakeHeir(w, me);
                }
            } else {
                int outcome = awaitCandidacy(w, q, interruptible, timed, deadline);
                if (outcome == VnaWaitOutcome.GAVE_UP) {
                    return false;
                }
                interrupted = outcome == VnaWaitOutcome.INTERRUPTED_BUT_CONTINUE;
            }
            int outcome = VnaHeirWait.competeAsCandidate(this, me, w, q, interruptible, timed, deadline, interrupted);
            if (outcome == VnaWaitOutcome.GAVE_UP) {
                return false;
            }
            interrupted = outcome == VnaWaitOutcome.INTERRUPTED_BUT_CONTINUE;
            return true;
        } finally {
            if (interrupted) {
                me.interrupt();
            }
        }
    }

    /** Parks until the MCS predecessor passes the candidacy on, or the wait is cancelled. */
    private int awaitCandidacy(VnaWaiters w, VnaQueueNode q, boolean interruptible, boolean timed, long deadline)
            throws InterruptedException {
        boolean interrupted = false;
        while (q.awaitsCandidacy()) {
            long nanos = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
            if (nanos <= 0L || (interrupted && interruptible)) {
                if (q.cancelWaiting()) {
                    w.unregister();
                    return VnaWaitOutcome.giveUp(interruptible, interrupted);
                }
                break; // the candidacy arrived while we were giving up: take it
            }
            q.park(this, nanos);
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
        return VnaWaitOutcome.proceed(interrupted);
    }

    /**
     * The fenced release: clears LOCKED (keeping a reservation), then makes sure a heir competes.
     * The releasing thread yields its carrier (or CPU), after the release, to a heir that may be
     * waiting for it: at once when the lock is reserved and the release woke the heir (it
     * reserved, then parked; woken by a virtual owner it is queued on the owner's carrier, which
     * a caller that goes on to retry {@code tryLock()} would keep busy); and, now and then, when
     * the releasing thread is virtual and the heir is overdue and has not reserved, so has not run
     * since its deadline (see "Yielding to an overdue heir" above).
     */
    private void releaseContended(VnaWaiters w) {
        w.forgetQueuedOwner();
        boolean look = Thread.currentThread().isVirtual() && timeToLookAtHeir();
        int s = releaseContended();
        boolean woke = VnaSuccession.wakeHeir(w, null);
        if ((s & RESERVED) != 0 ? woke : look && w.heirOverdue()) {
            LockDiagnostics.yieldToHeir();
            Thread.yield();
        }
    }

    /**
     * Counts a contended release; true every {@link #OVERDUE_CHECK_INTERVAL}th, when the
     * releasing thread looks at the heir's deadline. Called by the owner before it releases.
     */
    private boolean timeToLookAtHeir() {
        int n = contendedReleases + 1;
        contendedReleases = n;
        return (n & (OVERDUE_CHECK_INTERVAL - 1)) == 0;
    }

    // ------------------------------------------------------------------ helpers

    private VnaWaiters waitersOrInflate() {
        VnaWaiters w = waitersAcquire();
        return w != null ? w : installWaiters(new VnaWaiters(queueCount()));
    }

    private IllegalMonitorStateException notOwner(String action) {
        Thread o = getOwner();
        return new IllegalMonitorStateException("cannot " + action + " " + this + ": current thread "
                + threadIdentity(Thread.currentThread()) + (o == null ? " does not hold it (the lock is not held)" : " is not the owner"));
    }

    private VnaCondition ownCondition(Condition condition) {
        Objects.requireNonNull(condition, "condition");
        if (!(condition instanceof VnaCondition c) || c.lock != this) {
            throw new IllegalArgumentException("not a condition of this lock: " + condition);
        }
        return c;
    }

    // ------------------------------------------------------------------ condition support

    @Override
    int releaseFully(String action, VnaConditionWaiter waiter) {
        if (owner != Thread.currentThread()) {
            throw notOwner(action);
        }
        int saved = holds + 1;
        holds = 0;
        release();
        return saved;
    }

    @Override
    void reacquire(int saved, VnaConditionWaiter waiter) {
        Thread me = Thread.currentThread();
        waiter.awaitSignalComplete();
        boolean signalled = waiter.inTransit; // then its signal counted it in queued (see queueSignalled)
        if (tryAcquireFree()) {
            owner = me;
            if (signalled) {
                waiters.unregister();
            }
        } else {
            try {
                acquireSlow(me, false, false, 0L, true, true, signalled);
            } catch (InterruptedException e) {
                throw new AssertionError("uninterruptible acquisition was interrupted", e);
            }
        }
        holds = saved - 1;
        if (signalled) {
            waiters.signalled.remove(waiter);
        }
    }

    @Override
    void checkOwner(String action) {
        if (owner != Thread.currentThread()) {
            throw notOwner(action);
        }
    }

    static {
        // Load LockSupport early to avoid class loading in the middle of a wake-up.
        Class<?> ensureLoaded = LockSupport.class;
    }
}
