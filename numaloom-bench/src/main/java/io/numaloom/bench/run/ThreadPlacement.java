package io.numaloom.bench.run;

import io.numaloom.scheduler.CpuAffinity;
import io.numaloom.scheduler.NumaScheduler;
import io.numaloom.topology.Topology;

import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the measured threads run: virtual threads (the default) or platform threads, optionally pinned.
 *
 * <ul>
 * <li><b>Virtual, unpinned</b>: the JDK's scheduler; its carrier count is the measured JVM's
 *     {@code -Djdk.virtualThreadScheduler.parallelism}, which the bench sets from {@code carriers}.</li>
 * <li><b>Virtual, pinned</b> ({@code pinCarriers}): a scheduler of our own, a {@link ForkJoinPool} of
 *     {@code carriers} worker threads in FIFO mode (like the JDK's), each pinned with
 *     {@code sched_setaffinity} to one CPU, taken in topology order (the CPUs of node 0, then of node 1, ...;
 *     carrier {@code i} gets the {@code i}-th, wrapping around). JDK 25 has no public API to give virtual
 *     threads a scheduler: the package-private constructor
 *     {@code java.lang.ThreadBuilders.VirtualThreadBuilder(Executor)} is called reflectively, which needs
 *     {@code --add-opens java.base/java.lang=ALL-UNNAMED} (the bench passes it to every measured JVM).
 *     Without it, or without FFM pinning, this degrades to the unpinned default scheduler and
 *     {@link #description()} says why.</li>
 * <li><b>Virtual, on a {@link NumaScheduler}</b> ({@code "scheduler": "numa"}): one carrier pool per node of the
 *     JVM's topology ({@code carriers / nodes} carriers per node, at least one), pinned to the node's CPUs; worker
 *     {@code i} is homed on node {@code i % nodes} and every mount of it runs on that node's carriers. It needs the
 *     same {@code --add-opens}; without it the point fails (a comparison of schedulers must not silently measure
 *     the JDK's).</li>
 * <li><b>Platform</b>: one daemon platform thread per worker; pinned, worker {@code i} pins itself to the
 *     {@code i}-th CPU in topology order.</li>
 * </ul>
 * Thread-safety: {@link #start} may be called from one thread at a time; the description may be read after.
 */
public final class ThreadPlacement implements AutoCloseable {
    /** The JDK system property of the default scheduler's carrier count. */
    public static final String PARALLELISM_PROPERTY = "jdk.virtualThreadScheduler.parallelism";

    private final boolean virtual;
    private final Thread.Builder builder;
    private final ForkJoinPool pinnedPool;
    /** The scheduler of {@code "scheduler": "numa"}, else null. */
    private final NumaScheduler numa;
    private final int[] cpuOrder;
    private final String description;
    /** Pinning failures of carriers or threads, added as they start. */
    private final Queue<String> pinFailures;

    private ThreadPlacement(boolean virtual, Thread.Builder builder, ForkJoinPool pinnedPool, int[] cpuOrder,
                            String description, Queue<String> pinFailures) {
        this(virtual, builder, pinnedPool, null, cpuOrder, description, pinFailures);
    }

    private ThreadPlacement(boolean virtual, Thread.Builder builder, ForkJoinPool pinnedPool, NumaScheduler numa,
                            int[] cpuOrder, String description, Queue<String> pinFailures) {
        this.virtual = virtual;
        this.numa = numa;
        this.pinFailures = pinFailures;
        this.builder = builder;
        this.pinnedPool = pinnedPool;
        this.cpuOrder = cpuOrder;
        this.description = description;
    }

    /**
     * @param threadType {@code "virtual"} or {@code "platform"}
     * @param carriers   the requested carrier count (virtual threads only; the default scheduler's count is
     *                   fixed when the JVM starts, so it is only reported here)
     * @param pin        whether to pin carriers (virtual) or the threads themselves (platform)
     */
    public static ThreadPlacement create(String threadType, int carriers, boolean pin) {
        return create(threadType, carriers, pin, "default");
    }

    /**
     * @param scheduler {@code "default"} (the JDK's, or the pinned pool of {@code pin}) or {@code "numa"} (a
     *                  {@link NumaScheduler}, always pinned where the JVM allows; virtual threads only)
     * @throws UnsupportedOperationException for {@code "numa"} without {@code --add-opens java.base/java.lang}
     */
    public static ThreadPlacement create(String threadType, int carriers, boolean pin, String scheduler) {
        if ("numa".equals(scheduler) || "numa-park".equals(scheduler)) {
            if ("platform".equals(threadType)) {
                throw new IllegalArgumentException("the numa scheduler schedules virtual threads, not platform threads");
            }
            int nodes = Topology.current().nodeCount();
            NumaScheduler numa = NumaScheduler.builder().carriersPerNode(Math.max(1, carriers / nodes)).name("bench")
                    .idleSpin("numa-park".equals(scheduler) ? java.time.Duration.ZERO : java.time.Duration.ofNanos(50_000)).build();
            return new ThreadPlacement(true, null, null, numa, null, "virtual threads on a NumaScheduler" + ("numa-park".equals(scheduler) ? " (no idle spin)" : "") + ", worker i homed on node i % "
                    + nodes + ": " + numa.placement(), new ConcurrentLinkedQueue<>());
        }
        boolean virtual = !"platform".equals(threadType);
        int[] order = pin ? cpuOrder() : new int[0];
        String unpinnable = pin ? CpuAffinity.unavailableReason().orElse(null) : null;
        if (!virtual) {
            boolean pinning = pin && unpinnable == null;
            String what = "platform threads" + (pinning ? ", each pinned to a CPU in topology order " + list(order)
                    : pin ? ", not pinned (" + unpinnable + ")" : "");
            return new ThreadPlacement(false, Thread.ofPlatform().daemon(true).name("bench-", 0),
                    null, pinning ? order : null, what, new ConcurrentLinkedQueue<>());
        }
        if (pin && unpinnable == null) {
            try {
                return pinnedVirtual(carriers, order);
            } catch (ReflectiveOperationException | RuntimeException e) {
                unpinnable = "no custom virtual-thread scheduler (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                        + "); it needs --add-opens java.base/java.lang=ALL-UNNAMED";
            }
        }
        String what = "virtual threads on the JDK scheduler, " + defaultCarriers() + " carriers"
                + (pin ? ", not pinned (" + unpinnable + ")" : "");
        return new ThreadPlacement(true, Thread.ofVirtual().name("bench-", 0), null, null, what, new ConcurrentLinkedQueue<>());
    }

    private static ThreadPlacement pinnedVirtual(int carriers, int[] order) throws ReflectiveOperationException {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger next = new AtomicInteger();
        ForkJoinPool pool = new ForkJoinPool(carriers, p -> {
            int n = next.getAndIncrement();
            return new PinnedCarrier(p, n, order[n % order.length], failures);
        }, null, true);
        Class<?> builderClass = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder");
        Constructor<?> constructor = builderClass.getDeclaredConstructor(Executor.class);
        constructor.setAccessible(true);
        Thread.Builder.OfVirtual builder = ((Thread.Builder.OfVirtual) constructor.newInstance(pool)).name("bench-", 0);
        int[] used = new int[Math.min(carriers, order.length)];
        System.arraycopy(order, 0, used, 0, used.length);
        String what = "virtual threads on " + carriers + " pinned carriers, CPUs " + list(used) + " in topology order";
        return new ThreadPlacement(true, builder, pool, order, what, failures);
    }

    /** A carrier of the pinned scheduler: pins itself when it starts. */
    private static final class PinnedCarrier extends ForkJoinWorkerThread {
        private final int cpu;
        private final Queue<String> failures;

        PinnedCarrier(ForkJoinPool pool, int index, int cpu, Queue<String> failures) {
            super(null, pool, true);
            this.cpu = cpu;
            this.failures = failures;
            setName("pinned-carrier-" + index + "@cpu" + cpu);
            setDaemon(true);
        }

        @Override
        protected void onStart() {
            super.onStart();
            try {
                CpuAffinity.pinCurrentThread(cpu);
            } catch (RuntimeException e) {
                failures.add(getName() + ": " + e.getMessage());
            }
        }
    }

    /** Starts a measured thread running {@code body}. */
    public Thread start(int index, Runnable body) {
        if (numa != null) {
            Thread t = numa.threadFactory(index % numa.nodes()).newThread(body);
            t.setName("bench-" + index);
            t.start();
            return t;
        }
        if (cpuOrder != null && !virtual) {
            int cpu = cpuOrder[index % cpuOrder.length];
            return builder.start(() -> {
                try {
                    CpuAffinity.pinCurrentThread(cpu);
                } catch (RuntimeException e) {
                    pinFailures.add("thread " + index + ": " + e.getMessage());
                }
                body.run();
            });
        }
        return builder.start(body);
    }

    /** Whether the threads are virtual. */
    public boolean isVirtual() {
        return virtual;
    }

    /** Whether the threads or carriers are pinned (possibly with failures, see {@link #description()}). */
    public boolean isPinned() {
        return cpuOrder != null || numa != null && numa.pinned();
    }

    /** How the threads were placed, in words, with any pinning failure. */
    public String description() {
        List<String> failures = List.copyOf(new LinkedHashSet<>(pinFailures));
        if (failures.isEmpty()) {
            return description;
        }
        String shown = String.join("; ", failures.subList(0, Math.min(3, failures.size())));
        return description + "; pinning failed: " + shown + (failures.size() > 3 ? "; and " + (failures.size() - 3) + " more" : "");
    }

    @Override
    public void close() {
        if (pinnedPool != null) {
            pinnedPool.shutdownNow();
        }
        if (numa != null) {
            // close() waits for the workers; after a failed round some may never finish, and the carriers are daemons:
            // give it a while, then let the JVM go without it.
            Thread closer = Thread.ofPlatform().daemon(true).name("bench-numa-close").start(numa::close);
            try {
                closer.join(java.time.Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The default scheduler's carrier count in this JVM. */
    static int defaultCarriers() {
        String value = System.getProperty(PARALLELISM_PROPERTY);
        try {
            return value == null ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /** The CPUs this process may use, node by node in topology order. */
    static int[] cpuOrder() {
        Topology topology = Topology.current();
        Set<Integer> allowed = new LinkedHashSet<>(CpuAffinity.allowedCpus());
        List<Integer> order = new ArrayList<>();
        for (int node = 0; node < topology.nodeCount(); node++) {
            for (int cpu : topology.cpusOfNode(node)) {
                if (allowed.isEmpty() || allowed.contains(cpu)) {
                    order.add(cpu);
                }
            }
        }
        if (order.isEmpty()) {
            for (int cpu : topology.cpus()) {
                order.add(cpu);
            }
        }
        return order.stream().mapToInt(Integer::intValue).toArray();
    }

    private static String list(int[] cpus) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cpus.length; i++) {
            sb.append(i == 0 ? "" : ",").append(cpus[i]);
        }
        return sb.toString();
    }
}
