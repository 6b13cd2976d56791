package io.numaloom.bench.locks;

import io.numaloom.VnaLock;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The registry of every lock the bench suite can measure, by name.
 *
 * <p>{@link #create(String)} returns a new, unlocked instance on every call, so that two runs never share
 * queue state. NUMA-aware baselines built by {@code create(name)} follow the process topology
 * ({@code -Dnumaloom.topology}, see {@code io.numaloom.topology.Topology}) and the current CPU's node;
 * {@link #create(String, NumaNodes)} gives them an explicit node count and node supplier instead (tests run
 * two and four nodes in one JVM that way; {@code VNA} gets one queue per node through
 * {@code VnaLock.withPlacement}, {@code VNA_2_Q} one per socket). The JDK locks and the non-NUMA baselines
 * ignore the nodes argument.
 *
 * <p>{@value #TWIN} is a second unfair {@code ReentrantLock}, identical to {@code UNFAIR_REENTRANT} and measured as
 * a lock of its own (its own points, its own forked JVMs): the reference measured twice, what a lock that ties it reads
 * in this run. The report never names it VNA's best other lock nor recommends it; it gauges the noise of those figures
 * ({@code io.numaloom.bench.report.BestOther}).
 *
 * <p>{@value #SYNCHRONIZED} is a name the bench suite understands but that is not a {@link Lock}: it is
 * measured with real {@code synchronized} blocks. {@link #isSynchronized(String)} recognises it;
 * {@link #create(String)} rejects it with a message that says so. It is not in {@link #names()}.
 */
public final class Locks {
    /** The name of the intrinsic monitor, measured by the bench suite without a {@link Lock} object. */
    public static final String SYNCHRONIZED = "SYNCHRONIZED";
    /** The reference ({@code UNFAIR_REENTRANT}) under a second name, measured as a lock of its own: a noise gauge. */
    public static final String TWIN = "UNFAIR_REENTRANT_TWIN";

    private static final Map<String, Function<NumaNodes, Lock>> FACTORIES = registry();

    private Locks() {}

    private static Map<String, Function<NumaNodes, Lock>> registry() {
        Map<String, Function<NumaNodes, Lock>> m = new LinkedHashMap<>();
        // numaloom's lock (core library) and the JDK's
        m.put("VNA", nodes -> nodes.isSystem() ? new VnaLock() : VnaLock.withPlacement(nodes.count(), nodes::current));
        m.put("VNA_2_Q", nodes -> nodes.isSystem() ? VnaLock.perSocket()
                : VnaLock.withPlacement(nodes.socketCount(), () -> nodes.socketOf(nodes.current())));
        m.put("UNFAIR_REENTRANT", nodes -> new ReentrantLock());
        m.put(TWIN, nodes -> new ReentrantLock());
        m.put("FAIR_REENTRANT", nodes -> new ReentrantLock(true));
        // the baselines of issue 4, one file each in this package
        m.put("NUMA_MCS", NumaMcsLock::new);
        m.put("MCS", nodes -> new McsLock());
        m.put("CLH", nodes -> new ClhLock());
        m.put("TICKET", nodes -> new TicketLock());
        m.put("TTAS", nodes -> new TtasLock());
        m.put("TAS", nodes -> new TasLock());
        m.put("HSPIN", HspinLock::new);
        m.put("CNA", nodes -> new CnaLock(nodes, CnaLock.DEFAULT_THRESHOLD));
        m.put("HMCS", nodes -> new HmcsLock(nodes, HmcsLock.DEFAULT_NODE_THRESHOLD));
        m.put("HMCS_3", nodes -> HmcsLock.threeLevel(nodes, HmcsLock.DEFAULT_NODE_THRESHOLD,
                HmcsLock.DEFAULT_SOCKET_THRESHOLD));
        m.put("HCLH", HclhLock::new);
        m.put("COHORT", nodes -> new CohortLock(nodes, CohortLock.DEFAULT_BOUND));
        m.put("SHFL", nodes -> new ShflLock(nodes, ShflLock.DEFAULT_MAX_BATCH));
        m.put("RELAXED", nodes -> new RelaxedLock());
        return Collections.unmodifiableMap(m);
    }

    /** Every registered name, in a stable order: VnaLock variants, the JDK's locks, then the baselines. */
    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }

    /**
     * Whether the lock named {@code name} (a lock, or a keyed scheme) counts {@code io.numaloom.LockDiagnostics}: only
     * numaloom's own locks do ({@code VNA}, {@code VNA_2_Q} and {@code KeyedLock}'s scheme). Another lock's counters
     * would read zero however often it parks, so the bench leaves its diagnostics columns blank.
     */
    public static boolean countsDiagnostics(String name) {
        return name.equals("VNA") || name.equals("VNA_2_Q") || name.equals(KeyedSchemes.KEYED_LOCK);
    }

    /** Whether {@code name} is the intrinsic monitor, which the bench suite measures with {@code synchronized}. */
    public static boolean isSynchronized(String name) {
        return SYNCHRONIZED.equals(name);
    }

    /**
     * A new, unlocked lock of the named kind, on the process topology.
     *
     * @throws IllegalArgumentException if the name is unknown (the message lists the known names), or is
     *         {@value #SYNCHRONIZED}, which is not a {@link Lock}
     */
    public static Lock create(String name) {
        return factory(name).apply(NumaNodes.system());
    }

    /**
     * A new, unlocked lock of the named kind whose NUMA-aware parts use {@code nodes} instead of the process
     * topology (ignored by locks that are not NUMA-aware).
     *
     * @throws IllegalArgumentException as {@link #create(String)}
     */
    public static Lock create(String name, NumaNodes nodes) {
        Function<NumaNodes, Lock> factory = factory(name);
        return factory.apply(Objects.requireNonNull(nodes, "nodes"));
    }

    private static Function<NumaNodes, Lock> factory(String name) {
        Function<NumaNodes, Lock> factory = name == null ? null : FACTORIES.get(name);
        if (factory == null) {
            if (isSynchronized(name)) {
                throw new IllegalArgumentException(SYNCHRONIZED
                        + " is measured with synchronized blocks, not a Lock; check Locks.isSynchronized(name) first");
            }
            throw new IllegalArgumentException("unknown lock name '" + name + "'; known: " + String.join(", ", names()));
        }
        return factory;
    }
}
