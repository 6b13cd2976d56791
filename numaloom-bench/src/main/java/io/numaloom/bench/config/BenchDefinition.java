package io.numaloom.bench.config;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaloom.bench.run.ThreadPlacement;
import io.numaloom.bench.workloads.WorkloadKind;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * One validated bench of a configuration, every default filled in.
 *
 * @param index                 position in {@code benches[]}
 * @param id                    unique id (the {@code id} field, or made from the title), used in file names
 * @param kind                  the workload ({@code name} in the JSON)
 * @param title                 title of the plot and report section
 * @param skip                  whether the bench is skipped
 * @param locks                 the locks' names in the results (their labels, {@link #lockEntries()}), in plot order
 * @param threads               thread counts, ascending
 * @param warmupIterations      JMH warm-up rounds per fork
 * @param measurementIterations JMH measured rounds per fork
 * @param forks                 JMH forks (fresh JVMs) per point
 * @param threadType            {@code virtual} or {@code platform}
 * @param carriers              carrier threads of the virtual-thread scheduler
 * @param pinCarriers           whether carriers (or platform threads) are pinned to CPUs
 * @param scheduler             {@code default} (the JDK's) or {@code numa} (a {@code NumaScheduler})
 * @param remotePenaltyNs       the NUMA cost model's penalty per remote handoff
 * @param migrationPenaltyNs    the NUMA cost model's penalty per migration of a thread between nodes
 * @param topology              the {@code numaloom.topology} of the measured JVMs, empty for detection
 * @param recordLatency         whether acquire latencies are recorded
 * @param jvmArgs               extra arguments of the measured JVMs
 * @param timeoutSeconds        the longest one round may take
 * @param settings              the workload's own settings
 * @param payload               the effective payload, as written to {@code config.json}
 */
public record BenchDefinition(int index, String id, WorkloadKind kind, String title, boolean skip,
                              List<String> locks, List<Integer> threads, int warmupIterations,
                              int measurementIterations, int forks, String threadType, int carriers,
                              boolean pinCarriers, String scheduler, long remotePenaltyNs, long migrationPenaltyNs, String topology, boolean recordLatency,
                              List<String> jvmArgs, int timeoutSeconds, Settings settings, ObjectNode payload) {

    /** Fields that do not change what a point measures: they are left out of the fingerprint. */
    private static final Set<String> PRESENTATION = Set.of("title", "skip", "locks", "threads");

    /**
     * A short hash of everything that determines a point's measurement (workload, settings, iterations,
     * JVM set-up): results are reused by {@code --resume} only when it matches.
     */
    public String fingerprint() {
        ObjectNode measured = payload.deepCopy();
        measured.remove(PRESENTATION);
        measured.put("workload", kind.jsonName());
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(measured.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The fingerprint of {@code lock}'s points: the bench's, and for a lock with JVM arguments of its own
     * ({@link LockEntry#jvmArgs()}) a hash of both, so that {@code --resume} does not take a point measured under other
     * arguments for this one.
     */
    public String fingerprint(String lock) {
        List<String> own = lockEntry(lock).jvmArgs();
        if (own.isEmpty()) {
            return fingerprint();
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((fingerprint() + "\u0000" + String.join("\u0000", own)).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The entries of {@link #locks()}, in the same order: what each measures and under which JVM arguments. */
    public List<LockEntry> lockEntries() {
        return LockEntry.listOf(payload.path("locks"));
    }

    /**
     * The entry of the lock {@code label} of this bench; a plain entry for a name the payload does not list (a bench
     * built in code).
     */
    public LockEntry lockEntry(String label) {
        for (LockEntry e : lockEntries()) {
            if (e.label().equals(label)) {
                return e;
            }
        }
        return LockEntry.of(label);
    }

    /**
     * This bench with one workload setting replaced (the runner fills in a value that depends on an earlier point);
     * the payload, and so the {@link #fingerprint()}, stays that of the configuration.
     */
    public BenchDefinition withSetting(String name, long value) {
        ObjectNode values = settings.values().deepCopy();
        values.put(name, value);
        return new BenchDefinition(index, id, kind, title, skip, locks, threads, warmupIterations, measurementIterations, forks,
                threadType, carriers, pinCarriers, scheduler, remotePenaltyNs, migrationPenaltyNs, topology, recordLatency,
                jvmArgs, timeoutSeconds, new Settings(values), payload);
    }

    /**
     * This bench with {@code forks} JMH forks per measurement: a run in rounds measures one fork of each lock per
     * round. The payload, and so the {@link #fingerprint()}, stays that of the configuration.
     */
    public BenchDefinition withForks(int forks) {
        return new BenchDefinition(index, id, kind, title, skip, locks, threads, warmupIterations, measurementIterations, forks,
                threadType, carriers, pinCarriers, scheduler, remotePenaltyNs, migrationPenaltyNs, topology, recordLatency,
                jvmArgs, timeoutSeconds, settings, payload);
    }

    /**
     * Whether the measured JVMs start from an ahead-of-time class cache ({@link io.numaloom.bench.run.AotCache}; the
     * {@code startupCache} field). Their arguments then end with {@code -XX:AOTCache=} and the cache's file.
     */
    public boolean startupCache() {
        return payload.path("startupCache").asBoolean(true);
    }

    /** The JVM arguments of this bench's measured JVMs, besides JMH's own (and the class cache's). */
    public List<String> measuredJvmArgs() {
        List<String> args = new java.util.ArrayList<>();
        args.add("--enable-native-access=ALL-UNNAMED");
        args.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
        // JMH 1.37's harness still calls sun.misc.Unsafe, which JDK 25 warns about on every JVM start.
        args.add("--sun-misc-unsafe-memory-access=allow");
        args.add("-Djava.awt.headless=true");
        args.add("-D" + ThreadPlacement.PARALLELISM_PROPERTY + "=" + carriers);
        if (!topology.isEmpty()) {
            args.add("-D" + io.numaloom.topology.Topology.PROPERTY + "=" + topology);
        }
        if (kind.isKeyed()) {
            // JOL measures the retained size exactly through an agent it attaches to its own JVM; without these
            // it warns on the console and estimates.
            args.add("-Djdk.attach.allowAttachSelf=true");
            args.add("-XX:+EnableDynamicAgentLoading");
        }
        if (kind == WorkloadKind.SERVER) {
            // The JDK server answers in two writes (headers, body); without TCP_NODELAY the body waits for an ACK.
            args.add("-D" + io.numaloom.bench.workloads.LoopbackServer.NODELAY_PROPERTY + "=true");
        }
        if (payload.path("diagnostics").asBoolean(false)) {
            args.add("-D" + io.numaloom.LockDiagnostics.PROPERTY + "=true");
        }
        if (payload.path("handoffTiming").asBoolean(false)) {
            args.add("-D" + io.numaloom.bench.GuardedRegion.TIMING_PROPERTY + "=true");
        }
        if (payload.path("ownerChanges").asBoolean(false)) {
            args.add("-D" + io.numaloom.bench.GuardedRegion.COUNT_PROPERTY + "=true");
        }
        args.addAll(jvmArgs);
        return List.copyOf(args);
    }

    /** The JVM arguments of {@code lock}'s measured JVMs: the bench's ({@link #measuredJvmArgs()}), then the lock's own. */
    public List<String> measuredJvmArgs(String lock) {
        List<String> own = lockEntry(lock).jvmArgs();
        if (own.isEmpty()) {
            return measuredJvmArgs();
        }
        List<String> args = new java.util.ArrayList<>(measuredJvmArgs());
        args.addAll(own);
        return List.copyOf(args);
    }
}
