package io.numaloom.scheduler;

import io.numaloom.topology.HomeNode;
import io.numaloom.topology.Topology;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A scheduler of virtual threads that keeps each thread on its NUMA node: every virtual thread it creates has a
 * <em>home node</em>, and every mount of that thread (its start and each resumption after a park, sleep, yield,
 * lock or condition wait, {@code Object.wait} or blocked {@code synchronized} entry) runs on a carrier of that
 * node, whoever wakes it. With the JDK's scheduler a virtual thread resumes wherever the work-stealing pool puts
 * it, so a NUMA-aware lock's idea of where a waiter runs goes stale across a park; here it stays true.
 *
 * <pre>{@code
 * try (NumaScheduler scheduler = NumaScheduler.create();                 // needs --add-opens, see below
 *      ExecutorService executor = scheduler.newThreadPerTaskExecutor()) { // home nodes round-robin
 *     executor.submit(task);
 * }
 * Thread t = scheduler.threadFactory(1).newThread(task);                  // homed on node 1
 * }</pre>
 *
 * <h2>How it works</h2>
 * One carrier pool per node of the topology ({@link Topology#current()} unless the builder is given another;
 * the virtual topology of {@code -Dnumaloom.topology} included). A pool is a FIFO queue and
 * {@link Builder#carriersPerNode(int) carriersPerNode} daemon platform threads, the carriers, each pinned with
 * Linux's {@code sched_setaffinity} (through FFM) to its node's CPUs. A virtual thread is built, through the JDK's
 * non-public {@code java.lang.ThreadBuilders$VirtualThreadBuilder(Executor)}, with its node's pool as its
 * scheduler; the JDK then hands each of its mounts to that pool's {@code execute}, which appends to the queue and
 * wakes an idle carrier of the node. So the node a thread runs on is decided by the thread, not by who woke it.
 * A carrier that finds its queue empty polls it for {@link Builder#idleSpin(Duration) idleSpin} (50 µs by default)
 * before it parks: a mount that arrives meanwhile costs neither an unpark nor a wake-up from a park, which on a
 * virtual machine can take tens of microseconds (one run of JMH {@code SchedulerPingPong} in numaloom-bench,
 * commit 419a2fe, not re-measured since: a park/unpark round trip of two virtual threads on two nodes took about
 * 95 µs with carriers that park at once, about 3 µs with the spin; 2 cores shared with other work; see
 * docs/measurements.md, entry 42).
 *
 * <h2>Cooperation with numaloom's locks</h2>
 * A scheduler whose nodes are those of {@link Topology#current()} installs (once per JVM) a
 * {@link HomeNode.Resolver} in numaloom-core: a per-node {@code VnaLock} or {@code KeyedLock} then queues a waiting
 * thread of any {@code NumaScheduler} on its home node's queue, read from the thread's scheduler (a field load, no
 * {@code sched_getcpu}, no thread-local), and since the thread resumes on that node after its park, a handoff
 * within a node really stays within it: the locality the per-node queues of the VNA lock (Kovalev, Koval et al.,
 * "NUMA-aware lock for Java Lightweight Threads") are for, which the JDK's scheduler cannot keep because a thread
 * may resume anywhere. {@link #homeNodeForLocks()} tells whether it applies. numaloom-core does not depend on this
 * module and needs no flag; without a scheduler, or for other threads, locks ask for the current CPU as before.
 *
 * <h2>What it promises</h2>
 * <ul>
 * <li>Home: a virtual thread of {@link #threadFactory(int) threadFactory(node)} mounts only on carriers of
 *     {@code node}; one of {@link #threadFactory()} or {@link #newThreadPerTaskExecutor()} likewise, the nodes
 *     taken round-robin. {@link #homeNode(Thread)} tells a thread's node. The one exception is opt-in
 *     {@link Builder#crossNodeStealing(Duration) cross-node stealing}: a carrier idle for the given time may run
 *     another node's queued mount; that thread's next mount goes home again.
 * <li>Inheritance: a virtual thread created inside one of these threads with the JDK's own builders
 *     ({@code Thread.ofVirtual()}, {@code Executors.newVirtualThreadPerTaskExecutor()}) inherits its creator's
 *     pool (JDK behaviour), so it runs on the same node. {@link #close()} does not wait for such threads.
 * <li>Placement: when pinning works, a carrier runs only on its node's CPUs (those of them the creating thread may
 *     use), so {@code io.numaloom.topology.CurrentCpu.node()} in a virtual thread returns its home node. When it
 *     cannot pin (native access denied with {@code --illegal-native-access=deny}, not Linux, the kernel refuses),
 *     carriers run unpinned and the home guarantee above still holds: the thread stays on its node's carriers,
 *     but those float over every CPU. {@link #placement()} says which, per node. On a virtual topology the nodes
 *     are groups of the real CPUs, so pinning is real; only the memory is not split.
 * </ul>
 *
 * <h2>Invariants</h2>
 * <ul>
 * <li>Every mount of a thread built for node {@code k} is a call of node {@code k}'s {@code execute}; the task it
 *     appends is run by a carrier of node {@code k}, regular or spare (or, with stealing, by a carrier of another
 *     node that was idle for the stealing time), exactly once, or, after {@link #close()}, by a temporary
 *     platform thread.
 * <li>{@code execute} never blocks: a lock-free append, then at most one unpark of a carrier it claimed by CAS.
 * <li>A regular carrier exits only after its node is terminated and its queue is empty; a spare also when it has
 *     been idle for its idle time, after it unregistered and drained the queue once more.
 * </ul>
 *
 * <h2>The flag it needs</h2>
 * JDK 25 has no public API to give virtual threads a scheduler. {@link #create()} therefore needs
 * {@code --add-opens java.base/java.lang=ALL-UNNAMED} (on the module path, {@code =io.numaloom.scheduler}); without
 * it, it throws an {@link UnsupportedOperationException} that names the flag. For pinning without the JDK's
 * warning add {@code --enable-native-access=ALL-UNNAMED} (the jar's manifest already asks for it when it is the
 * application jar). numaloom-core never touches any of this and keeps needing no flag.
 *
 * <h2>What it cannot do on JDK 25</h2>
 * The JDK's own scheduler adds a carrier for the time one is blocked in an operation it knows about (most file
 * I/O, {@code Object.wait} when pinned); it does so only for its own pool. Here a carrier that blocks (in those,
 * or in what the JDK does not compensate either: a park pinned by a native frame or a class initializer, a
 * blocking native call) stays blocked, and the other threads homed on its node wait for it if it was the node's
 * only carrier. To see it happen, build with {@link Builder#stallDetection(Duration) stall detection}: a carrier
 * that has run one mount past the threshold while others wait on its node is counted ({@link #stalls()}) and
 * recorded as the JFR event {@code io.numaloom.CarrierStall}, whatever the cause. The JDK's
 * {@code jdk.VirtualThreadPinned} JFR event also reports pinned parks of these threads (checked by
 * {@code PinnedEventTest}); file I/O shows in {@code jdk.FileRead} and {@code jdk.FileWrite}.
 * Remedies: {@link Builder#spareCarriers(boolean) spare carriers} (with stall detection on, a node whose carriers
 * are all stalled gets a spare carrier, the JDK's compensation done here, at most one per node at a time), more
 * {@link Builder#carriersPerNode(int) carriers per node},
 * {@link Builder#crossNodeStealing(Duration) cross-node stealing} (an idle carrier of another node takes the
 * waiting mounts), or blocking file I/O on platform threads. Since JDK 24 {@code synchronized} and
 * {@code Object.wait} release the carrier, so they are not such a case. Each node has one queue shared by its
 * carriers;
 * there is no work-stealing between carriers of a node beyond that shared queue.
 *
 * <p>Thread-safety: every method may be called from any thread.
 */
public final class NumaScheduler implements AutoCloseable {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /** The default of {@link Builder#idleSpin(Duration)}: 50 µs. */
    static final long DEFAULT_IDLE_SPIN_NANOS = 50_000;
    /** The longest idle spin {@link Builder#idleSpin(Duration)} accepts: 1 ms. */
    static final long MAX_IDLE_SPIN_NANOS = 1_000_000;

    private final String name;
    private final NodeExecutor[] nodes;
    private final ThreadFactory[] nodeFactories;
    private final AtomicInteger nextHome = new AtomicInteger();
    /**
     * The threads of our factories, from their creation to the end of their task or their refusal by
     * {@link #close()}, keyed by their admission. Held weakly: a thread that is never started is collected like any
     * other object, and its registration is dropped, from {@code collected}, by the next factory call or close().
     */
    private final ConcurrentHashMap<Admission, Registration> threads = new ConcurrentHashMap<>();
    private final ReferenceQueue<Thread> collected = new ReferenceQueue<>();
    private final Object closeLock = new Object();
    private volatile boolean closing;
    private volatile boolean closed;
    /** The stall watcher, or null when stall detection is off; it stops once {@code watcherStop}. */
    private final Thread watcher;
    private volatile boolean watcherStop;
    private final LongAdder stalls = new LongAdder();
    /** Whether the watcher starts spare carriers, and how long a spare may idle before it retires. */
    private final boolean spares;
    private final long spareIdleNanos;
    private final Set<Carrier> liveSpares = ConcurrentHashMap.newKeySet();
    private final LongAdder sparesStarted = new LongAdder();
    private final AtomicInteger spareSequence = new AtomicInteger();
    /**
     * Whether this scheduler's nodes are those of {@link Topology#current()}, so that its home nodes mean the same
     * to numaloom's locks (see {@link #homeNodeForLocks()}).
     */
    private final boolean sameNodesAsLocks;

    /** How long a carrier that found its queue empty polls it (spinning) before it parks; 0: it parks at once. */
    final long idleSpinNanos;

    private NumaScheduler(Builder b) {
        Topology topology = b.topology != null ? b.topology : Topology.current();
        this.name = b.name != null ? b.name : "numa-scheduler-" + SEQUENCE.incrementAndGet();
        int count = topology.nodeCount();
        List<Integer> allowedCpus = CpuAffinity.allowedCpus();
        int[] allowed = allowedCpus.isEmpty() ? null : allowedCpus.stream().mapToInt(Integer::intValue).toArray();
        long stealNanos = b.stealAfter == null ? -1 : nanos(b.stealAfter);
        boolean watched = b.stallThreshold != null;
        this.spares = b.spareCarriers;
        this.idleSpinNanos = b.idleSpin == null ? DEFAULT_IDLE_SPIN_NANOS : b.idleSpin.toNanos();
        this.spareIdleNanos = watched ? Math.max(nanos(b.stallThreshold), 10_000_000L) : -1;
        this.nodes = new NodeExecutor[count];
        this.nodeFactories = new ThreadFactory[count];
        int[][] cpusOfNode = new int[count][];
        int[] carriersOfNode = new int[count];
        int total = 0;
        for (int node = 0; node < count; node++) {
            cpusOfNode[node] = usable(topology.cpusOfNode(node), allowed);
            carriersOfNode[node] = b.carriersPerNode > 0 ? b.carriersPerNode : cpusOfNode[node].length;
            total += carriersOfNode[node];
        }
        List<Carrier> all = new ArrayList<>(total);
        CountDownLatch started = new CountDownLatch(total);
        for (int node = 0; node < count; node++) {
            NodeExecutor executor = new NodeExecutor(this, node, carriersOfNode[node], cpusOfNode[node], stealNanos, watched,
                    started);
            all.addAll(Arrays.asList(executor.carriers));
            nodes[node] = executor;
            ThreadFactory factory = JdkAccess.builder(executor).name(name + "-node" + node + "-", 0).factory();
            nodeFactories[node] = task -> {
                if (closing) {
                    return null;
                }
                Admission admission = new Admission();
                Thread thread = factory.newThread(tracked(task, admission));
                Registration registration = new Registration(thread, admission, collected);
                threads.put(admission, registration);
                // Registered, then closing read; close() writes closing, then reads the registry: one of the two
                // sees the other, so close() decides about every thread this returns.
                if (closing) {
                    threads.remove(admission);
                    return null;
                }
                dropCollected();
                return thread;
            };
        }
        this.sameNodesAsLocks = sameNodes(topology);
        if (sameNodesAsLocks) {
            HomeNode.install(LOCKS_RESOLVER); // once per JVM; false (and locks ask the CPU) if another is installed
        }
        for (Carrier c : all) {
            c.start();
        }
        if (watched) {
            long threshold = nanos(b.stallThreshold);
            watcher = Thread.ofPlatform().daemon(true).name(name + "-stall-watcher").start(() -> watch(threshold));
        } else {
            watcher = null;
        }
        boolean interrupted = false;
        for (;;) {
            try {
                started.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether {@code topology} has the nodes of {@link Topology#current()}: as many, each with the same CPUs. */
    private static boolean sameNodes(Topology topology) {
        Topology current;
        try {
            current = Topology.current();
        } catch (RuntimeException e) {
            return false;
        }
        if (current == topology) {
            return true;
        }
        if (current.nodeCount() != topology.nodeCount()) {
            return false;
        }
        for (int node = 0; node < current.nodeCount(); node++) {
            if (!Arrays.equals(current.cpusOfNode(node), topology.cpusOfNode(node))) {
                return false;
            }
        }
        return true;
    }

    /** {@code d} in nanoseconds, at least 1, saturated at {@code Long.MAX_VALUE}. */
    private static long nanos(Duration d) {
        try {
            return Math.max(1, d.toNanos());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** The node's CPUs that the creating thread may use; all of the node's CPUs where that leaves none. */
    private static int[] usable(int[] nodeCpus, int[] allowed) {
        if (allowed == null) {
            return nodeCpus;
        }
        int[] both = Arrays.stream(nodeCpus).filter(cpu -> Arrays.binarySearch(allowed, cpu) >= 0).toArray();
        return both.length > 0 ? both : nodeCpus;
    }

    /**
     * Creates a scheduler with one carrier per CPU of each node of {@link Topology#current()}, cross-node stealing
     * off. Equivalent to {@code builder().build()}.
     *
     * @throws UnsupportedOperationException if {@code java.lang} is not opened to this library: the message names
     *         the flag, {@code --add-opens java.base/java.lang=ALL-UNNAMED} on the class path
     * @throws IllegalArgumentException if the {@code numaloom.topology} property holds a bad spec
     */
    public static NumaScheduler create() {
        return builder().build();
    }

    /** Returns a builder of schedulers with options. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options of a {@link NumaScheduler}. Not thread-safe; {@link #build()} may be called more than once. */
    public static final class Builder {
        private int carriersPerNode;
        private Duration stealAfter;
        private Duration stallThreshold;
        private boolean spareCarriers;
        private String name;
        private Topology topology;
        private Duration idleSpin;

        private Builder() {}

        /**
         * Sets how long a carrier that has found its node's queue empty keeps polling it, spinning with
         * {@link Thread#onSpinWait()}, before it parks; 50 µs by default, at most 1 ms, zero to park at once.
         * A carrier that is spinning is not idle, so a mount submitted meanwhile costs its submitter no unpark
         * and the carrier no wake-up from a park (a futex wake and a context switch, several microseconds):
         * the lock handoffs between virtual threads of one node, each of which is a park of the releaser or the
         * heir and an {@code execute}, then cost a queue append and a poll. The price is CPU: an idle node burns
         * its carriers' CPUs for that long after its last mount, never longer.
         *
         * @param spin how long to spin, from zero to 1 ms
         * @return this builder
         * @throws IllegalArgumentException if {@code spin} is negative or longer than 1 ms
         */
        public Builder idleSpin(Duration spin) {
            Objects.requireNonNull(spin, "spin");
            if (spin.isNegative() || spin.toNanos() > MAX_IDLE_SPIN_NANOS) {
                throw new IllegalArgumentException("the idle spin must be from 0 to 1 ms: " + spin);
            }
            this.idleSpin = spin;
            return this;
        }

        /**
         * Sets the number of carriers of every node; by default, the number of CPUs of the node. More carriers than
         * CPUs keep a node live while some carriers are blocked (see the class comment).
         *
         * @throws IllegalArgumentException if {@code carriers < 1}
         */
        public Builder carriersPerNode(int carriers) {
            if (carriers < 1) {
                throw new IllegalArgumentException("carriersPerNode must be at least 1, got " + carriers);
            }
            this.carriersPerNode = carriers;
            return this;
        }

        /**
         * Lets a carrier that has found its own node's queue empty for {@code idle} run mounts queued on other
         * nodes. Off by default: a virtual thread then never runs off its home node. While stealing is on, an idle
         * carrier wakes every {@code idle} to look.
         *
         * @throws IllegalArgumentException if {@code idle} is not positive
         */
        public Builder crossNodeStealing(Duration idle) {
            Objects.requireNonNull(idle, "idle");
            if (idle.isNegative() || idle.isZero()) {
                throw new IllegalArgumentException("the idle time before stealing must be positive: " + idle);
            }
            this.stealAfter = idle;
            return this;
        }

        /**
         * Watches the carriers for stalls: a carrier that has run one mount for at least {@code threshold} while
         * other mounts wait in its node's queue (blocked in file I/O, a pinned park or a native call, or computing
         * without yielding; see the class comment). Each stall is counted ({@link NumaScheduler#stalls()}) and
         * recorded as the JFR event {@code io.numaloom.CarrierStall}. Off by default; when on, a watcher thread wakes
         * every {@code threshold / 2} (at least every millisecond) and each mount costs two clock reads and three
         * volatile writes.
         *
         * @throws IllegalArgumentException if {@code threshold} is not positive
         */
        public Builder stallDetection(Duration threshold) {
            Objects.requireNonNull(threshold, "threshold");
            if (threshold.isNegative() || threshold.isZero()) {
                throw new IllegalArgumentException("the stall threshold must be positive: " + threshold);
            }
            this.stallThreshold = threshold;
            return this;
        }

        /**
         * With {@link #stallDetection(Duration) stall detection} on, lets the watcher start a spare carrier for a node
         * whose carriers are all stalled while mounts wait: the JDK's compensation for blocked carriers, done here.
         * A spare is pinned like the node's carriers, serves the node's queue, and retires once it has found nothing
         * to do for the stall threshold or 10 ms, whichever is longer. At most one spare per node runs at a time;
         * {@link NumaScheduler#sparesStarted()} counts them. Off by default.
         */
        public Builder spareCarriers(boolean spareCarriers) {
            this.spareCarriers = spareCarriers;
            return this;
        }

        /** Sets the name, the prefix of the carriers' and virtual threads' names; by default {@code numa-scheduler-N}. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Sets the topology whose nodes get carrier pools; by default {@link Topology#current()}. */
        public Builder topology(Topology topology) {
            this.topology = Objects.requireNonNull(topology, "topology");
            return this;
        }

        /**
         * Creates the scheduler and starts its carriers (it returns once they are started and pinned).
         *
         * @throws UnsupportedOperationException if {@code java.lang} is not opened to this library (see
         *         {@link NumaScheduler#create()})
         */
        public NumaScheduler build() {
            if (spareCarriers && stallThreshold == null) {
                throw new IllegalStateException("spareCarriers(true) needs stallDetection(threshold): spares are started by the stall watcher");
            }
            if (JdkAccess.failure() != null) {
                throw JdkAccess.unsupported();
            }
            return new NumaScheduler(this);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Threads

    /**
     * Whether a thread of our factories runs its task. It is decided once, by one CAS from {@code NEW}, the
     * admission CAS: the thread's first mount sets {@code RUNNING} (the wrapper of {@link #tracked}), or
     * {@link #close()} sets {@code REFUSED} for a thread it found unstarted ({@link #decideAll}). Since close() tries
     * only after it has seen {@code Thread.isAlive()} false, a thread started before close() began can only be
     * admitted; one that close() refused runs nothing, whenever it is started.
     */
    private static final class Admission {
        static final int NEW = 0;
        static final int RUNNING = 1;
        static final int REFUSED = 2;
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Admission.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused") // through STATE
        private volatile int state;

        /** The admission CAS: {@code NEW} to {@code decision}; false if the other side decided first. */
        boolean decide(int decision) {
            return STATE.compareAndSet(this, NEW, decision);
        }
    }

    /**
     * The registry's weak hold on a thread of our factories. It keeps the thread's admission but not its task, so
     * that a thread never started is collectable even when its task refers to it.
     */
    private static final class Registration extends WeakReference<Thread> {
        final Admission admission;

        Registration(Thread thread, Admission admission, ReferenceQueue<Thread> collected) {
            super(thread, collected);
            this.admission = admission;
        }
    }

    /**
     * The task of a thread of our factories: at its first mount it takes its admission; admitted, it runs
     * {@code task} and then leaves the registry; refused, it throws, after it has cancelled {@code task} if that
     * is a {@link Future} (see {@link #refuse}).
     */
    private Runnable tracked(Runnable task, Admission admission) {
        Objects.requireNonNull(task, "task");
        return () -> {
            if (!admission.decide(Admission.RUNNING)) {
                throw refuse(task);
            }
            try {
                task.run();
            } finally {
                threads.remove(admission);
            }
        };
    }

    /**
     * The refusal of a thread whose task is {@code task}: a {@link Future} task is cancelled, so that its
     * {@code get()} throws {@link java.util.concurrent.CancellationException}; a cancelled {@link RunnableFuture}
     * is then run, which by that interface's contract computes nothing, so that its wrapper sees it end (the JDK's
     * thread-per-task executor counts a task as running until its {@code run()} returns, and would never
     * terminate).
     */
    private RejectedExecutionException refuse(Runnable task) {
        boolean cancelled = task instanceof Future<?> future && future.cancel(false);
        RejectedExecutionException refused = new RejectedExecutionException(name + " is closed: this thread was not"
                + " started before close() began, so it does not run its task" + (cancelled ? " (its Future is cancelled)" : ""));
        if (task instanceof RunnableFuture<?> future && future.isCancelled()) {
            try {
                future.run();
            } catch (RuntimeException | Error e) {
                refused.addSuppressed(e);
            }
        }
        return refused;
    }

    /** Drops the registrations of threads that were collected (never started, or never to run again). */
    private void dropCollected() {
        for (Reference<? extends Thread> cleared; (cleared = collected.poll()) != null; ) {
            Registration registration = (Registration) cleared;
            threads.remove(registration.admission, registration);
        }
    }

    /**
     * close()'s decision about every registered thread: one not yet started is refused (the admission CAS, from
     * close()'s side) and dropped from the registry; one that has started, or whose first mount won the CAS, is
     * returned, to be waited for. Registrations of collected threads are dropped.
     */
    private List<Thread> decideAll() {
        dropCollected();
        List<Thread> admitted = new ArrayList<>();
        for (Registration registration : threads.values()) {
            Thread thread = registration.get();
            if (thread == null || (!thread.isAlive() && registration.admission.decide(Admission.REFUSED))) {
                threads.remove(registration.admission, registration);
            } else {
                admitted.add(thread);
            }
        }
        return admitted;
    }

    /** The threads of our factories registered now (collected ones dropped first), for tests. */
    int registeredThreads() {
        dropCollected();
        return threads.size();
    }

    /** Returns the number of nodes, each with its carriers; home nodes are {@code 0..nodes()-1}. */
    public int nodes() {
        return nodes.length;
    }

    /** Returns this scheduler's name. */
    public String name() {
        return name;
    }

    /**
     * Returns a factory of unstarted virtual threads whose home nodes are assigned round-robin over the nodes.
     * Once {@link #close()} has begun, it returns null (it rejects the request, as {@link ThreadFactory} allows).
     * A thread it returns that is started before {@code close()} begins runs its task, and {@code close()} waits
     * for it; one started later is refused: it terminates without running its task, its uncaught-exception handler
     * receives a {@link RejectedExecutionException}, and a task that is a {@link Future} is cancelled (see
     * {@link #close()}). Until its task ends, the scheduler holds the thread only weakly: a thread that is never
     * started is collected like any other object.
     */
    public ThreadFactory threadFactory() {
        return task -> nodeFactories[Math.floorMod(nextHome.getAndIncrement(), nodeFactories.length)].newThread(task);
    }

    /**
     * Returns a factory of unstarted virtual threads homed on {@code node}. Once {@link #close()} has begun, it
     * returns null. Its threads run or are refused as those of {@link #threadFactory()}: by whether they were
     * started before {@code close()} began.
     *
     * <p>Code that must run on any machine picks a node that exists, e.g. {@code threadFactory(nodes() - 1)}: on
     * a machine with one node there is only node 0 ({@code -Dnumaloom.topology=nodes=2} gives it two virtual ones).
     *
     * @param node the home node of the threads, in {@code [0, nodes())}
     * @throws IllegalArgumentException if {@code node} is not in {@code [0, nodes())}; the message names this
     *         scheduler's node count
     */
    public ThreadFactory threadFactory(int node) {
        if (node < 0 || node >= nodeFactories.length) {
            throw new IllegalArgumentException(noSuchNode(node, nodeFactories.length));
        }
        return nodeFactories[node];
    }

    /**
     * The message for a node index that is not one of {@code count} nodes: what there is, and how to get more on a
     * machine with fewer.
     */
    static String noSuchNode(int node, int count) {
        return "node " + node + " is not a node of this scheduler, which has " + count
                + (count == 1 ? " node (0)" : " nodes (0 to " + (count - 1) + ")") + ": pick a node below nodes(), or run with -D"
                + Topology.PROPERTY + "=nodes=2 (or more) to split this machine's CPUs into virtual nodes";
    }

    /**
     * Returns an executor that starts a virtual thread of {@link #threadFactory()} per task (home nodes
     * round-robin), as {@link Executors#newThreadPerTaskExecutor(ThreadFactory)} does. Once this scheduler's
     * {@link #close()} has begun, it rejects tasks.
     *
     * <p>Close the executor before the scheduler. If the scheduler is closed first, every task submitted before
     * its {@code close()} began runs to completion, {@code close()} waits for it, and its {@code Future} completes
     * as usual. A task submitted after {@code close()} began is rejected with a {@link RejectedExecutionException};
     * one whose thread was created just as {@code close()} began may instead get a thread that is refused (see
     * {@link #close()}): the {@code Future} of a {@code submit} is then cancelled, so {@code get()} throws
     * {@link java.util.concurrent.CancellationException}, and the executor can still terminate; but a task of
     * {@code execute} is dropped, and the executor, which counts it as running, never terminates.
     */
    public ExecutorService newThreadPerTaskExecutor() {
        return Executors.newThreadPerTaskExecutor(threadFactory());
    }

    /**
     * Returns the home node of {@code thread}: the node whose carriers run it, if it is a virtual thread of a
     * {@code NumaScheduler} (made by its factories, or created inside one of those with the JDK's builders);
     * otherwise -1 (platform threads, carriers included, and virtual threads of other schedulers). Never throws.
     */
    public static int homeNode(Thread thread) {
        return thread != null && JdkAccess.schedulerOf(thread) instanceof NodeExecutor executor ? executor.node : -1;
    }

    /**
     * The answer numaloom's locks get through {@link HomeNode}: the thread's home node if it is a virtual thread
     * of a {@code NumaScheduler} whose nodes are those of {@link Topology#current()}, else -1 (then the lock asks
     * for the current CPU, as for any other thread). One class check and two field loads; no allocation.
     */
    private static int homeNodeForLocks(Thread thread) {
        return JdkAccess.schedulerOf(thread) instanceof NodeExecutor executor && executor.scheduler.sameNodesAsLocks
                ? executor.node : -1;
    }

    private static final HomeNode.Resolver LOCKS_RESOLVER = NumaScheduler::homeNodeForLocks;

    /**
     * Whether numaloom's per-node locks ({@code new VnaLock()}, {@code new KeyedLock<>()}) queue this scheduler's
     * threads on their home node without asking which CPU they run on: true when its nodes are those of
     * {@link Topology#current()} (it was built without {@link Builder#topology(Topology)} or with the same nodes)
     * and no other resolver had been installed in {@link HomeNode} before the first such scheduler was built.
     * Then a waiter queues on its home node's queue, where it will also resume after its park, so a handoff
     * within a node stays within it.
     *
     * @return whether locks see this scheduler's home nodes
     */
    public boolean homeNodeForLocks() {
        return sameNodesAsLocks && HomeNode.installed() == LOCKS_RESOLVER;
    }

    /**
     * Returns the node of the {@code NumaScheduler} carrier that the calling thread is running on, or -1 if it is
     * not running on one. Equal to {@code homeNode(Thread.currentThread())} in a thread of a scheduler without
     * cross-node stealing.
     */
    public static int currentCarrierNode() {
        return JdkAccess.currentCarrier() instanceof Carrier carrier ? carrier.home.node : -1;
    }

    /**
     * Describes where the carriers run, node by node: the CPUs each node's carriers are pinned to, or why they run
     * unpinned.
     */
    public String placement() {
        StringBuilder sb = new StringBuilder();
        for (NodeExecutor executor : nodes) {
            Carrier[] carriers = executor.carriers;
            String failure = null;
            for (Carrier c : carriers) {
                failure = failure != null ? failure : c.pinFailure();
            }
            sb.append(sb.isEmpty() ? "" : "; ").append("node ").append(executor.node).append(": ")
                    .append(carriers.length).append(carriers.length == 1 ? " carrier" : " carriers")
                    .append(failure == null ? " pinned to cpus " + Arrays.toString(carriers[0].cpus())
                            : " on cpus " + Arrays.toString(carriers[0].cpus()) + ", not pinned (" + failure + ")");
        }
        return sb.toString();
    }

    /** Whether every carrier is pinned to its node's CPUs (see {@link #placement()} for why not). */
    public boolean pinned() {
        for (NodeExecutor executor : nodes) {
            for (Carrier c : executor.carriers) {
                if (c.pinFailure() != null) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Returns the number of carrier stalls seen so far, if the scheduler was built with
     * {@link Builder#stallDetection(Duration) stall detection}; otherwise 0.
     */
    public long stalls() {
        return stalls.sum();
    }

    /** Returns the number of spare carriers started so far ({@link Builder#spareCarriers(boolean)}). */
    public long sparesStarted() {
        return sparesStarted.sum();
    }

    /** The spare carriers running now, for tests. */
    int liveSpares() {
        return liveSpares.size();
    }

    /** A spare's thread is ending. */
    void spareExited(Carrier spare) {
        liveSpares.remove(spare);
    }

    private void startSpare(NodeExecutor executor) {
        Carrier spare = new Carrier(executor, name + "-node" + executor.node + "-spare" + spareSequence.incrementAndGet(),
                executor.carriers[0].cpus(), -1, true, spareIdleNanos, null);
        if (executor.addSpare(spare)) {
            liveSpares.add(spare);
            sparesStarted.increment();
            spare.start();
        }
    }

    /** The watcher's loop: reports each mount that has held its carrier past the threshold while others wait. */
    private void watch(long thresholdNanos) {
        long period = Math.max(1_000_000L, thresholdNanos / 2);
        while (!watcherStop) {
            LockSupport.parkNanos(this, period);
            long now = System.nanoTime();
            for (NodeExecutor executor : nodes) {
                if (executor.queue.isEmpty()) {
                    continue;
                }
                boolean allStalled = true;
                for (Carrier c : executor.carriers) {
                    long mount = c.mounts();
                    long start = c.mountStart();
                    if (start == 0 || now - start < thresholdNanos || mount != c.mounts()) {
                        allStalled = false;
                        continue;
                    }
                    if (mount == c.reportedMount) {
                        continue;
                    }
                    c.reportedMount = mount;
                    stalls.increment();
                    CarrierStallEvent event = new CarrierStallEvent();
                    if (event.isEnabled()) {
                        event.scheduler = name;
                        event.carrier = c;
                        event.node = executor.node;
                        event.heldFor = now - start;
                        event.queued = executor.queue.size();
                        event.commit();
                    }
                }
                if (spares && allStalled && executor.spare == null && !executor.terminated) {
                    startSpare(executor);
                }
            }
        }
    }

    /** The carriers of {@code node}, for tests. */
    List<Thread> carriers(int node) {
        return List.of(nodes[node].carriers);
    }

    /** A mount task of another node for an idle carrier of {@code thief}'s node, or null. */
    Runnable steal(NodeExecutor thief) {
        for (int i = 1; i < nodes.length; i++) {
            Runnable task = nodes[(thief.node + i) % nodes.length].queue.poll();
            if (task != null) {
                return task;
            }
        }
        return null;
    }

    /**
     * Runs a mount that arrives after the carriers have stopped: that of a thread created inside one of ours with
     * the JDK's builders and still alive after {@link #close()}, or the first mount, refused, of a thread started
     * after it.
     * It runs on a temporary platform thread, unpinned, so that no waker ever gets an exception from
     * {@code execute} (one would escape from {@code LockSupport.unpark}, for example in a lock's release).
     */
    void runAfterTermination(Runnable task) {
        Thread.ofPlatform().daemon(true).name(name + "-after-close").start(task);
    }

    // ---------------------------------------------------------------------------------------------
    // Shutdown

    /**
     * Shuts the scheduler down and waits until it has:
     * <ol>
     * <li>From now on the factories return null and {@link #newThreadPerTaskExecutor()}'s executors reject tasks.
     * <li>Before it waits for anything, it refuses every thread of the factories that has not been started yet.
     *     Such a thread, whenever it is started, does not run its task: it terminates at once, and its
     *     uncaught-exception handler receives a {@link RejectedExecutionException}. If its task is a
     *     {@link Future} (the JDK's thread-per-task executors give their threads the task's {@code Future} as
     *     the task), that {@code Future} is cancelled, so its {@code get()} throws
     *     {@link java.util.concurrent.CancellationException} instead of waiting forever; a cancelled
     *     {@link RunnableFuture} is then run, which by that interface's contract computes nothing but lets a
     *     wrapper see the task end (a thread-per-task executor so counts it finished and can terminate).
     * <li>It waits for every other thread of the factories, every one that had been started, whether or not it has
     *     had its first mount yet: each runs its task to completion on its carriers; running, parked or sleeping
     *     threads are neither interrupted nor abandoned. If the thread calling {@code close()} is interrupted while
     *     waiting, every such thread is interrupted (once) and the wait goes on; the caller's interrupt status is
     *     set again on return.
     * <li>It stops the carriers: each finishes its queue and exits, and {@code close()} waits for them.
     * </ol>
     * So a thread whose {@code start()} returned before {@code close()} began always runs its task (and a
     * {@code Future} of its executor submitted before then completes), and a thread started after {@code close()}
     * returned never does. A thread started after {@code close()} began is refused too, unless it is started in
     * the moment between the beginning of {@code close()} and its decision about that thread (one compare-and-set
     * per thread decides which comes first); then it runs, and {@code close()} waits for it.
     *
     * <p>Virtual threads created inside ours with the JDK's builders are not waited for; a mount of one that comes
     * after the carriers stopped runs on a temporary, unpinned platform thread. Calling {@code close()} again, or
     * from another thread at the same time, waits for the same shutdown and returns.
     *
     * @throws IllegalStateException if called from a thread running on this scheduler's carriers, which would wait
     *         for itself
     */
    @Override
    public void close() {
        if (JdkAccess.currentCarrier() instanceof Carrier c && c.home.scheduler == this) {
            throw new IllegalStateException("close() called from a thread running on " + name + "'s carriers would wait for itself");
        }
        boolean interrupted = false;
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closing = true;
            // closing written, then the registry read (see the factories). The registry's reads are acquire reads,
            // which a volatile write does not keep behind it: the fence does. The first decideAll() comes before any
            // wait, so every thread created and not yet started by then is refused.
            VarHandle.fullFence();
            boolean interruptedThreads = false;
            while (!threads.isEmpty()) {
                List<Thread> admitted = decideAll();
                for (Thread t : admitted) {
                    try {
                        t.join();
                    } catch (InterruptedException e) {
                        interrupted = true;
                        if (!interruptedThreads) {
                            interruptedThreads = true;
                            for (Thread u : admitted) {
                                u.interrupt();
                            }
                        }
                    }
                }
            }
            for (NodeExecutor executor : nodes) {
                executor.terminate();
            }
            for (NodeExecutor executor : nodes) {
                for (Carrier c : executor.carriers) {
                    for (;;) {
                        try {
                            c.join();
                            break;
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                }
            }
            if (watcher != null) {
                watcherStop = true;
                LockSupport.unpark(watcher);
                interrupted |= joinUninterruptibly(watcher);
            }
            // No spare starts from now on; each one left drains its terminated node and exits.
            while (!liveSpares.isEmpty()) {
                for (Carrier spare : liveSpares) {
                    spare.wake();
                    interrupted |= joinUninterruptibly(spare);
                }
            }
            closed = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Joins {@code t}; returns whether the caller was interrupted meanwhile (its status is left clear). */
    private static boolean joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        for (;;) {
            try {
                t.join();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }

    /** Whether {@link #close()} has completed. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return name + "[" + nodes.length + " nodes, " + placement() + (closed ? ", closed" : closing ? ", closing" : "") + "]";
    }
}
