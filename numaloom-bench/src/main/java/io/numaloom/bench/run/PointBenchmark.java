package io.numaloom.bench.run;

import io.numaloom.LockDiagnostics;
import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.PointSpec;
import io.numaloom.bench.SectionGaps;
import io.numaloom.bench.config.Settings;
import io.numaloom.bench.locks.Locks;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.workloads.ConditionWaits;
import io.numaloom.bench.workloads.Round;
import io.numaloom.bench.workloads.RoundContext;
import io.numaloom.bench.workloads.Workload;
import io.numaloom.bench.workloads.WorkloadKind;
import io.numaloom.topology.CurrentCpu;
import io.numaloom.topology.Topology;
import org.HdrHistogram.Histogram;
import org.openjdk.jol.info.GraphLayout;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JMH benchmark behind every point of {@code ./numaloom bench}; run by {@code BenchRunner} through
 * JMH's API, one point per run, never by hand (the {@code jmh} subcommand excludes it).
 *
 * <p>Mode is single-shot time: one benchmark invocation is one whole round, {@code actionsCount}
 * operations over all threads as in the thesis (§2.3), and JMH times it. Threads are started untimed in the
 * invocation set-up and released together by the benchmark method; the round is checked in the invocation
 * tear-down. Warm-up iterations and forks are JMH's. Everything JMH does not report (fairness, acquire
 * latency, NUMA handoffs, where the threads ran) goes to the parent in a {@link ForkReport} side file.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PointBenchmark {

    /** The point to run: a {@link PointSpec#encode() encoded PointSpec}. */
    @Param("")
    public String point;

    private PointSpec spec;
    private Workload workload;
    private ThreadPlacement placement;
    private Round currentRound;
    private Execution execution;
    private boolean measuring;

    private long operationsPerRound;
    private final List<Double> jain = new ArrayList<>();
    private final List<Double> minMax = new ArrayList<>();
    private Histogram latency;
    private Histogram pairedLatency;
    /** Futile wake-ups of the measured rounds; negative while no round reported condition waits. */
    private long futileWakeups = -1;
    private Histogram signalToLock;
    /** The gaps between critical sections of the measured rounds (see {@link SectionGaps}). */
    private SectionGaps sectionGaps = SectionGaps.NONE;
    private long handoffs;
    private long localHandoffs;
    private long nodeAcquisitions;
    private long foreignAcquisitions;
    private long migrations;
    private LockDiagnostics.Counts diagnosticsAtStart;
    private LockDiagnostics.Counts diagnostics;
    private long allocatedAtStart;
    /** Bytes allocated in the measured rounds; negative where the JVM cannot count them. */
    private long allocated;
    private Object footprint;
    private Long retained;
    /** The first failure of this fork; a later report keeps it. */
    private String error;
    /** In a forked JVM, what reports this JVM's end while the point runs ({@link ForkGuard}); null elsewhere. */
    private ForkGuard guard;

    @Setup(Level.Trial)
    public void setUpTrial() {
        spec = PointSpec.decode(point);
        // Before the workload is made: a user's class may end the JVM from its constructor or static initialiser.
        guard = ForkGuard.install(ended -> report(new IllegalStateException(ended))).orElse(null);
        guarded(() -> {
            WorkloadKind kind = WorkloadKind.byJsonName(spec.workload()).orElseThrow(
                    () -> new IllegalArgumentException("unknown workload " + spec.workload()));
            workload = kind.create(new Settings(spec.settings()));
            placement = ThreadPlacement.create(spec.threadType(), spec.carriers(), spec.pinCarriers(), spec.scheduler());
        });
    }

    @Setup(Level.Iteration)
    public void setUpIteration(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
    }

    @Setup(Level.Invocation)
    public void setUpRound() throws InterruptedException {
        try {
            RoundContext context = new RoundContext(spec.threads(), spec.lock(), spec.remotePenaltyNs(), spec.threadType(),
                    Duration.ofSeconds(spec.timeoutSeconds()));
            currentRound = workload.newRound(context);
            execution = new Execution(currentRound, spec.threads(), placement, spec.recordLatency(), spec.migrationPenaltyNs());
            execution.start();
            diagnosticsAtStart = LockDiagnostics.snapshot();
            allocatedAtStart = Allocation.total();
        } catch (RuntimeException | Error e) {
            report(e);
            throw e;
        }
    }

    @Benchmark
    public void round() throws InterruptedException {
        try {
            execution.run(Duration.ofSeconds(spec.timeoutSeconds()));
        } catch (RuntimeException | Error e) {
            report(e);
            throw e;
        }
    }

    @TearDown(Level.Invocation)
    public void tearDownRound() {
        long allocatedAtEnd = Allocation.total();
        guarded(() -> {
            Execution.Outcome outcome = execution.finish();
            execution = null;
            Round finished = currentRound;
            currentRound = null;
            if (measuring && LockDiagnostics.enabled() && Locks.countsDiagnostics(spec.lock())) {
                LockDiagnostics.Counts round = LockDiagnostics.snapshot().minus(diagnosticsAtStart);
                diagnostics = diagnostics == null ? round : diagnostics.plus(round);
            }
            if (measuring) {
                allocated = allocated < 0 || allocatedAtEnd < 0 ? -1 : allocated + allocatedAtEnd - allocatedAtStart;
                footprint = finished.footprint();
                operationsPerRound = outcome.operations();
                jain.add(outcome.jainIndex());
                minMax.add(outcome.minMaxRatio());
                latency = ForkReport.accumulate(latency, outcome.latency());
                pairedLatency = ForkReport.accumulate(pairedLatency, finished.pairedLatency());
                ConditionWaits waits = finished.conditionWaits();
                if (waits != null) {
                    futileWakeups = Math.max(0, futileWakeups) + waits.futileWakeups();
                    signalToLock = ForkReport.accumulate(signalToLock == null ? new Histogram(2) : signalToLock, waits.signalToLock());
                }
                handoffs += outcome.handoffs();
                localHandoffs += outcome.localHandoffs();
                nodeAcquisitions += outcome.nodeAcquisitions();
                foreignAcquisitions += outcome.foreignAcquisitions();
                migrations += outcome.migrations();
                sectionGaps = sectionGaps.plus(outcome.sectionGaps());
            }
        });
    }

    @TearDown(Level.Trial)
    public void tearDownTrial() {
        if (footprint != null) {
            guarded(() -> retained = GraphLayout.parseInstance(footprint).totalSize());
            footprint = null;
        }
        report(null);
        if (guard != null) {
            guard.close();
        }
        if (placement != null) {
            placement.close();
        }
    }

    /** Runs a phase; a failure is reported to the parent before JMH sees it. */
    private void guarded(Runnable phase) {
        try {
            phase.run();
        } catch (RuntimeException | Error e) {
            report(e);
            throw e;
        }
    }

    /** Writes this fork's report; also from {@link ForkGuard}'s shutdown hook, hence synchronized. */
    private synchronized void report(Throwable failure) {
        if (failure != null && error == null) {
            Throwable root = failure;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String text = failure.getMessage() != null ? failure.getMessage() : failure.toString();
            error = root == failure || text.contains(root.toString()) ? text : text + " <- " + root;
        }
        Topology topology = Topology.current();
        String topologyLine = topology.cpuCount() + " cpus, " + topology.nodeCount() + " nodes; " + topology.source();
        ForkReport report = new ForkReport(ProcessHandle.current().pid(), operationsPerRound, List.copyOf(jain),
                List.copyOf(minMax), ForkReport.encode(latency), handoffs, localHandoffs,
                placement == null ? "" : placement.description(), CurrentCpu.source() + ": " + CurrentCpu.sourceReason(),
                topologyLine, error, diagnostics, allocated < 0 ? null : allocated, retained,
                nodeAcquisitions > 0 ? nodeAcquisitions : null, nodeAcquisitions > 0 ? foreignAcquisitions : null,
                nodeAcquisitions > 0 ? migrations : null, ForkReport.encode(pairedLatency),
                futileWakeups < 0 ? null : futileWakeups, ForkReport.encode(signalToLock),
                GuardedRegion.counted() ? sectionGaps : null);
        try {
            report.writeTo(Path.of(spec.sidecarDir()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
