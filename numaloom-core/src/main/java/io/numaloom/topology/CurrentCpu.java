package io.numaloom.topology;

import java.lang.invoke.MethodHandle;

/**
 * The CPU, NUMA node and socket the calling thread is running on, for choosing a per-node structure on a
 * hot path. Each call asks again: nothing is cached, because a virtual thread may resume on another
 * carrier, and a carrier on another CPU, after any park or yield. The answer is a hint that may be stale
 * as soon as it is returned; it must only steer locality, never correctness.
 *
 * <h2>Sources</h2>
 * The source is chosen once, when this class is initialized, and reported by {@link #source()} and
 * {@link #sourceReason()} and logged once through {@link System.Logger} (logger
 * {@code io.numaloom.topology.CurrentCpu}), at {@code DEBUG}, except a fallback to the spread on a
 * topology with more than one node or socket, where the spread costs locality, and an unknown
 * {@code numaloom.currentCpu} value: those are logged as a {@code WARNING}. The library prints nothing
 * else.
 * <ul>
 * <li>{@link Source#SCHED_GETCPU}: a call of the C library's {@code sched_getcpu()} through the FFM API
 *     ({@link java.lang.foreign.Linker#nativeLinker()}), linked as a critical downcall (no thread-state transition; no
 *     allocation; a virtual thread is not pinned).
 * <li>{@link Source#THREAD_SPREAD}: a fixed CPU per thread, picked from the detected online CPUs by a
 *     Fibonacci hash of {@link Thread#threadId()}, so that consecutive threads, virtual ones included,
 *     spread evenly over the CPUs and hence over the nodes in proportion to their size. It is not where
 *     the thread runs, but it keeps per-node structures evenly used.
 * </ul>
 * The spread is used when native access is denied ({@code --illegal-native-access=deny} makes linking
 * throw {@link IllegalCallerException}), when the C library has no {@code sched_getcpu} (not Linux), when
 * the FFM linker does not support the platform, when the first call returns {@code -1}, or when the
 * {@code numaloom.currentCpu} property asks for it. Should a later call return {@code -1}, that one call
 * answers with the spread CPU; {@link #cpu()} never throws.
 *
 * <h2>Native access and the JDK's warning</h2>
 * Linking a downcall is a restricted method. JDK 25 by default ({@code --illegal-native-access=warn})
 * allows it and prints a one-time warning on the standard error when the calling module has not been
 * granted native access. numaloom needs no JVM flag, so by default it uses {@code sched_getcpu} and
 * accepts that warning: the real CPU is what makes NUMA-aware locks NUMA-aware, and a silent degradation
 * to the spread would hide that. The System.Logger message then says how to silence the warning: grant
 * access with {@code --enable-native-access=io.numaloom} (module path) or
 * {@code --enable-native-access=ALL-UNNAMED} (class path; or {@code Enable-Native-Access: ALL-UNNAMED}
 * in the manifest of the application's executable jar). The system property {@code numaloom.currentCpu}
 * chooses the policy:
 * <pre>{@code
 * numaloom.currentCpu=auto    (default) sched_getcpu unless native access is denied or unavailable
 * numaloom.currentCpu=quiet   sched_getcpu only if native access is already enabled for numaloom, so
 *                             the JDK never prints its warning; else the spread
 * numaloom.currentCpu=spread  never call native code
 * }</pre>
 * An unknown value is logged as a warning and treated as {@code auto}.
 *
 * <h2>Node and socket</h2>
 * {@link #node()}, {@link #socket()} and {@link #cluster()} map {@link #cpu()} through
 * {@link Topology#current()}, so a virtual topology ({@code -Dnumaloom.topology=nodes=2}) applies to them
 * and their results always lie in {@code [0, nodeCount())} etc. of that topology; a CPU that was not
 * online at detection maps to 0.
 *
 * <h2>Cost</h2>
 * The methods allocate nothing and are a few dozen bytes of bytecode each, so they inline: with
 * {@code sched_getcpu}, a constant method handle and a critical downcall; with the spread, a thread-id
 * load, a multiply and an array load; then one array load for the node.
 */
public final class CurrentCpu {

    /** The system property that selects the source: {@code auto}, {@code quiet} or {@code spread}. */
    public static final String MODE_PROPERTY = "numaloom.currentCpu";

    /** Where {@link #cpu()} gets its answer. */
    public enum Source {
        /** The CPU the thread runs on, from the C library's {@code sched_getcpu} through FFM. */
        SCHED_GETCPU,
        /** A fixed CPU per thread, from a hash of the thread id over the online CPUs. */
        THREAD_SPREAD
    }

    private static final System.Logger LOGGER = System.getLogger(CurrentCpu.class.getName());

    /** Online CPUs of the detected topology, the range of the spread. */
    private static final int[] SPREAD_CPUS = Topology.detectedCpus();

    /** The linked {@code sched_getcpu}; null when the spread is the source. Constant to the JIT. */
    private static final MethodHandle SCHED_GETCPU;

    private static final String REASON;

    static {
        SchedGetcpu.Choice choice = SchedGetcpu.choose(System.getProperty(MODE_PROPERTY), CurrentCpu.class.getModule());
        SCHED_GETCPU = choice.handle();
        REASON = choice.reason();
        LOGGER.log(choice.level(), () -> choice.handle() != null
                ? "numaloom: current cpu from " + REASON
                : "numaloom: current cpu from a per-thread spread over cpus " + CpuList.format(SPREAD_CPUS)
                        + " (not the cpu a thread runs on) because " + REASON);
    }

    private CurrentCpu() {}

    /**
     * {@return the id of the CPU the calling thread is running on (or, with {@link Source#THREAD_SPREAD},
     * the thread's fixed CPU)} Never throws; allocates nothing.
     */
    public static int cpu() {
        MethodHandle h = SCHED_GETCPU;
        if (h != null) {
            try {
                int cpu = (int) h.invokeExact();
                if (cpu >= 0) {
                    return cpu;
                }
            } catch (Throwable ignored) {
                // A critical downcall of sched_getcpu does not throw; invokeExact merely declares it.
            }
        }
        return spreadCpu();
    }

    /** The calling thread's spread CPU; kept out of {@link #cpu()} so that it stays within MaxInlineSize. */
    private static int spreadCpu() {
        return spreadCpu(Thread.currentThread().threadId(), SPREAD_CPUS);
    }

    /**
     * {@return the dense index of the NUMA node of {@link #cpu()} in {@link Topology#current()}, in
     * {@code [0, Topology.current().nodeCount())}}
     *
     * @throws IllegalArgumentException if the {@code numaloom.topology} property holds a bad spec
     */
    public static int node() {
        return Topology.current().nodeOf(cpu());
    }

    /**
     * {@return the dense index of the socket of {@link #cpu()} in {@link Topology#current()}, in
     * {@code [0, Topology.current().socketCount())}}
     *
     * @throws IllegalArgumentException if the {@code numaloom.topology} property holds a bad spec
     */
    public static int socket() {
        return Topology.current().socketOf(cpu());
    }

    /**
     * {@return the dense index of the cluster of {@link #cpu()} in {@link Topology#current()}, in
     * {@code [0, Topology.current().clusterCount())}}
     *
     * @throws IllegalArgumentException if the {@code numaloom.topology} property holds a bad spec
     */
    public static int cluster() {
        return Topology.current().clusterOf(cpu());
    }

    /** {@return the source {@link #cpu()} uses, fixed for the life of the JVM} */
    public static Source source() {
        return SCHED_GETCPU != null ? Source.SCHED_GETCPU : Source.THREAD_SPREAD;
    }

    /** {@return why {@link #source()} is what it is, in words (the text that was logged)} */
    public static String sourceReason() {
        return REASON;
    }

    /**
     * The spread: the CPU of {@code cpus} at the Fibonacci hash of {@code threadId}, reduced to the array's
     * length by a multiply-shift (no division). Consecutive ids land evenly spaced (three-distance theorem).
     */
    static int spreadCpu(long threadId, int[] cpus) {
        long h = (threadId * 0x9E37_79B9_7F4A_7C15L) >>> 32;
        return cpus[(int) ((h * cpus.length) >>> 32)];
    }
}
