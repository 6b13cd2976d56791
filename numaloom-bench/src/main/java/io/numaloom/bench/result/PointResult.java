package io.numaloom.bench.result;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.numaloom.LockDiagnostics;
import io.numaloom.bench.Point;
import io.numaloom.bench.SectionGaps;
import io.numaloom.bench.config.BenchDefinition;
import org.HdrHistogram.Histogram;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * One row of {@code results.csv} and {@code results.json}: what one point measured. Unknown values (a
 * confidence interval from a single round, latency that was not recorded, the handoffs of a workload without
 * shared regions, anything of a failed point) are null, an empty CSV cell.
 *
 * @param bench                the bench id
 * @param title                the bench title
 * @param workload             the workload's configuration name
 * @param lock                 the lock name
 * @param threads              the number of worker threads
 * @param threadType           {@code virtual} or {@code platform}
 * @param carriers             carriers of the virtual-thread scheduler
 * @param remotePenaltyNs      the NUMA cost model's penalty per remote handoff
 * @param topology             the {@code numaloom.topology} of the measured JVMs, empty for detected
 * @param forks                JMH forks
 * @param rounds               measured rounds over all forks
 * @param opsPerRound          operations per round
 * @param opsPerMs             mean throughput, operations per millisecond
 * @param opsPerMsCiLow        lower bound of its 95% confidence interval (over the forks' means with two or more
 *                             forks, over the rounds with one: {@link Stats#summarizeForks})
 * @param opsPerMsCiHigh       upper bound
 * @param timeMs               mean time of a round, ms
 * @param timeMsCiLow          lower bound of its 95% confidence interval
 * @param timeMsCiHigh         upper bound
 * @param jain                 Jain's fairness index of per-thread operation counts when the first thread
 *                             finished, mean over the rounds
 * @param minMaxRatio          smallest over largest of those counts, mean over the rounds
 * @param latencyP50Ns         median acquire latency, ns
 * @param latencyP99Ns         99th percentile, ns
 * @param latencyP999Ns        99.9th percentile, ns
 * @param latencyMaxNs         largest, ns
 * @param pairedP99Ns          99th percentile of the paired system measured beside the point in the same rounds (the
 *                             {@code server} workload's {@code pairedWith} server), ns; null without one
 * @param handoffs             consecutive acquisitions counted
 * @param localHandoffFraction the fraction of handoffs that stayed on one node; null on a one-node topology,
 *                             where every handoff is local and the fraction says nothing
 * @param slowPathsPerOp       VnaLock diagnostics (config {@code "diagnostics": true}), per measured operation:
 *                             acquisitions that failed the fast path; null without diagnostics
 * @param queuedPerOp          acquisitions that came through a queue, per operation
 * @param parksPerOp           parks of waiting threads, per operation
 * @param unparksPerOp         wake-ups sent, per operation
 * @param reservations         times a heir reserved the lock, in all measured rounds
 * @param yields               times a releasing thread yielded to an overdue heir, in all measured rounds
 * @param bytesPerOp           heap bytes the JVM allocated per operation while the measured rounds ran (threads
 *                             are started before the timing, so nearly all of it is the workload's and the lock's);
 *                             null where the JVM cannot count
 * @param retainedBytes        the size of what the workload's locking keeps after its last measured round (JOL; the
 *                             {@code keyed} workload's scheme, keys included), largest over the forks; null for the
 *                             other workloads
 * @param status               {@code ok} or {@code failed}
 * @param error                why it failed, else null
 * @param placement            how the threads were placed
 * @param cpuSource            where the measured JVM got the current CPU
 * @param fingerprint          the point's fingerprint ({@link BenchDefinition#fingerprint(String)})
 * @param startedAt            when the point started, ISO-8601
 * @param seconds              wall time of the point, forks included
 * @param foreignAcquisitionFraction on a multi-node topology, the fraction of acquisitions made on another node than
 *                             the one the thread asked for the lock on; null on one node
 * @param migrationsPerOp      on a multi-node topology, times a worker was seen on another node, per operation
 * @param futileWakeupsPerOp   returns from a condition's await that found the predicate still false and waited again,
 *                             per operation (per item: the {@code queue} workload's buffer over a lock); null where
 *                             the workload counts none (other workloads, the JDK's blocking queues, older results)
 * @param signalToLockP50Ns    median time from a signal to the signalled thread holding the lock again, ns; null where
 *                             none was counted or no thread waited
 * @param signalToLockP99Ns    its 99th percentile, ns
 * @param session              the session of the run that measured the point (1 for the run's first, 2 for its first
 *                             {@code --resume}, and so on; see {@link Session}); null in rows written before sessions
 *                             were recorded, which are the first session's
 * @param ownerChangesPerOp    with the bench's {@code handoffTiming} or {@code ownerChanges} setting, the fraction of
 *                             acquisitions that took the lock from another thread (see {@link SectionGaps}); null without
 *                             them, or for a workload whose sections are not counted
 * @param gapNs                with {@code handoffTiming} (null with {@code ownerChanges} alone), the mean time from the
 *                             end of one critical section to the start of the next, ns: the release, the next
 *                             acquisition and the harness's few calls
 * @param handoffGapNs         with {@code handoffTiming}, the mean of those gaps that ended in another thread, ns; null
 *                             if the lock never changed thread
 * @param reacquireGapNs       with {@code handoffTiming}, the mean of those that ended in the same thread, ns; null if
 *                             the lock changed thread at every acquisition
 * @param roundOpsPerMs        measured in rounds (issue 73, {@link PairedRatio}): the point's fork mean throughput in
 *                             each round of its group, in round order, null for a round whose fork failed or did not
 *                             run; the ratios to other locks of the group pair these by round. Null for rows measured
 *                             without rounds
 * @param roundsStop           why the group stopped adding rounds ({@code precision}, {@code budget},
 *                             {@code max-rounds}, or {@code fixed} where no precision was asked); null without rounds
 * @param pilotRounds          the rounds that planned the group's ({@link PairedRatio#plannedRounds}); null without
 * @param roundLatencyMaxNs    measured in rounds with latency recorded: each round's longest acquire wait of the
 *                             point's fork, ns, in round order as {@code roundOpsPerMs} (null where that fork failed or
 *                             did not run), so that two locks' longest waits pair by round as their throughputs do
 *                             ({@link io.numaloom.bench.report.LockComparison}); null without rounds or latency
 * @param roundLatencyP999Ns   the same for the 99.9th percentile of the fork's acquire waits
 */
@JsonPropertyOrder({"bench", "title", "workload", "lock", "threads", "threadType", "carriers", "remotePenaltyNs",
        "topology", "forks", "rounds", "opsPerRound", "opsPerMs", "opsPerMsCiLow", "opsPerMsCiHigh", "timeMs",
        "timeMsCiLow", "timeMsCiHigh", "jain", "minMaxRatio", "latencyP50Ns", "latencyP99Ns", "latencyP999Ns",
        "latencyMaxNs", "pairedP99Ns", "handoffs", "localHandoffFraction", "foreignAcquisitionFraction", "migrationsPerOp", "slowPathsPerOp", "queuedPerOp", "parksPerOp",
        "unparksPerOp", "reservations", "yields", "bytesPerOp", "retainedBytes", "status", "error", "placement", "cpuSource",
        "fingerprint", "startedAt", "seconds", "futileWakeupsPerOp", "signalToLockP50Ns", "signalToLockP99Ns", "session",
        "ownerChangesPerOp", "gapNs", "handoffGapNs", "reacquireGapNs", "roundOpsPerMs", "roundsStop", "pilotRounds",
        "roundLatencyMaxNs", "roundLatencyP999Ns"})
public record PointResult(String bench, String title, String workload, String lock, int threads, String threadType,
                          int carriers, long remotePenaltyNs, String topology, int forks, int rounds, long opsPerRound,
                          Double opsPerMs, Double opsPerMsCiLow, Double opsPerMsCiHigh,
                          Double timeMs, Double timeMsCiLow, Double timeMsCiHigh,
                          Double jain, Double minMaxRatio,
                          Long latencyP50Ns, Long latencyP99Ns, Long latencyP999Ns, Long latencyMaxNs,
                          Long handoffs, Double localHandoffFraction,
                          Double slowPathsPerOp, Double queuedPerOp, Double parksPerOp, Double unparksPerOp,
                          Long reservations, Long yields, Double bytesPerOp, Long retainedBytes,
                          String status, String error, String placement, String cpuSource,
                          String fingerprint, String startedAt, double seconds,
                          Double foreignAcquisitionFraction, Double migrationsPerOp, Long pairedP99Ns,
                          Double futileWakeupsPerOp, Long signalToLockP50Ns, Long signalToLockP99Ns, Integer session,
                          Double ownerChangesPerOp, Double gapNs, Double handoffGapNs, Double reacquireGapNs,
                          List<Double> roundOpsPerMs, String roundsStop, Integer pilotRounds,
                          List<Long> roundLatencyMaxNs, List<Long> roundLatencyP999Ns) {

    /** A row without its session (set by {@link #withSession}) and without the gaps between sections. */
    public PointResult(String bench, String title, String workload, String lock, int threads, String threadType,
                       int carriers, long remotePenaltyNs, String topology, int forks, int rounds, long opsPerRound,
                       Double opsPerMs, Double opsPerMsCiLow, Double opsPerMsCiHigh,
                       Double timeMs, Double timeMsCiLow, Double timeMsCiHigh,
                       Double jain, Double minMaxRatio,
                       Long latencyP50Ns, Long latencyP99Ns, Long latencyP999Ns, Long latencyMaxNs,
                       Long handoffs, Double localHandoffFraction,
                       Double slowPathsPerOp, Double queuedPerOp, Double parksPerOp, Double unparksPerOp,
                       Long reservations, Long yields, Double bytesPerOp, Long retainedBytes,
                       String status, String error, String placement, String cpuSource,
                       String fingerprint, String startedAt, double seconds,
                       Double foreignAcquisitionFraction, Double migrationsPerOp, Long pairedP99Ns,
                       Double futileWakeupsPerOp, Long signalToLockP50Ns, Long signalToLockP99Ns) {
        this(bench, title, workload, lock, threads, threadType, carriers, remotePenaltyNs, topology, forks, rounds,
                opsPerRound, opsPerMs, opsPerMsCiLow, opsPerMsCiHigh, timeMs, timeMsCiLow, timeMsCiHigh, jain, minMaxRatio,
                latencyP50Ns, latencyP99Ns, latencyP999Ns, latencyMaxNs, handoffs, localHandoffFraction, slowPathsPerOp,
                queuedPerOp, parksPerOp, unparksPerOp, reservations, yields, bytesPerOp, retainedBytes, status, error,
                placement, cpuSource, fingerprint, startedAt, seconds, foreignAcquisitionFraction, migrationsPerOp,
                pairedP99Ns, futileWakeupsPerOp, signalToLockP50Ns, signalToLockP99Ns, null, null, null, null, null,
                null, null, null, null, null);
    }

    /** A row without condition waits. */
    public PointResult(String bench, String title, String workload, String lock, int threads, String threadType,
                       int carriers, long remotePenaltyNs, String topology, int forks, int rounds, long opsPerRound,
                       Double opsPerMs, Double opsPerMsCiLow, Double opsPerMsCiHigh,
                       Double timeMs, Double timeMsCiLow, Double timeMsCiHigh,
                       Double jain, Double minMaxRatio,
                       Long latencyP50Ns, Long latencyP99Ns, Long latencyP999Ns, Long latencyMaxNs,
                       Long handoffs, Double localHandoffFraction,
                       Double slowPathsPerOp, Double queuedPerOp, Double parksPerOp, Double unparksPerOp,
                       Long reservations, Long yields, Double bytesPerOp, Long retainedBytes,
                       String status, String error, String placement, String cpuSource,
                       String fingerprint, String startedAt, double seconds,
                       Double foreignAcquisitionFraction, Double migrationsPerOp, Long pairedP99Ns) {
        this(bench, title, workload, lock, threads, threadType, carriers, remotePenaltyNs, topology, forks, rounds,
                opsPerRound, opsPerMs, opsPerMsCiLow, opsPerMsCiHigh, timeMs, timeMsCiLow, timeMsCiHigh, jain, minMaxRatio,
                latencyP50Ns, latencyP99Ns, latencyP999Ns, latencyMaxNs, handoffs, localHandoffFraction, slowPathsPerOp,
                queuedPerOp, parksPerOp, unparksPerOp, reservations, yields, bytesPerOp, retainedBytes, status, error,
                placement, cpuSource, fingerprint, startedAt, seconds, foreignAcquisitionFraction, migrationsPerOp,
                pairedP99Ns, null, null, null);
    }

    /** A row without node tracking. */
    public PointResult(String bench, String title, String workload, String lock, int threads, String threadType,
                       int carriers, long remotePenaltyNs, String topology, int forks, int rounds, long opsPerRound,
                       Double opsPerMs, Double opsPerMsCiLow, Double opsPerMsCiHigh,
                       Double timeMs, Double timeMsCiLow, Double timeMsCiHigh,
                       Double jain, Double minMaxRatio,
                       Long latencyP50Ns, Long latencyP99Ns, Long latencyP999Ns, Long latencyMaxNs,
                       Long handoffs, Double localHandoffFraction,
                       Double slowPathsPerOp, Double queuedPerOp, Double parksPerOp, Double unparksPerOp,
                       Long reservations, Long yields, Double bytesPerOp, Long retainedBytes,
                       String status, String error, String placement, String cpuSource,
                       String fingerprint, String startedAt, double seconds) {
        this(bench, title, workload, lock, threads, threadType, carriers, remotePenaltyNs, topology, forks, rounds,
                opsPerRound, opsPerMs, opsPerMsCiLow, opsPerMsCiHigh, timeMs, timeMsCiLow, timeMsCiHigh, jain, minMaxRatio,
                latencyP50Ns, latencyP99Ns, latencyP999Ns, latencyMaxNs, handoffs, localHandoffFraction, slowPathsPerOp,
                queuedPerOp, parksPerOp, unparksPerOp, reservations, yields, bytesPerOp, retainedBytes, status, error,
                placement, cpuSource, fingerprint, startedAt, seconds, null, null, null, null, null, null);
    }

    public static final String OK = "ok";
    public static final String FAILED = "failed";

    /** The CSV header, in {@link #csvCells()} order; columns added later come last, so older files' columns keep their place. */
    public static final List<String> CSV_HEADER = List.of("bench", "title", "workload", "lock", "threads", "threadType",
            "carriers", "remotePenaltyNs", "topology", "forks", "rounds", "opsPerRound", "opsPerMs", "opsPerMsCiLow",
            "opsPerMsCiHigh", "timeMs", "timeMsCiLow", "timeMsCiHigh", "jain", "minMaxRatio", "latencyP50Ns",
            "latencyP99Ns", "latencyP999Ns", "latencyMaxNs", "pairedP99Ns", "handoffs", "localHandoffFraction", "foreignAcquisitionFraction",
            "migrationsPerOp", "slowPathsPerOp",
            "queuedPerOp", "parksPerOp", "unparksPerOp", "reservations", "yields", "bytesPerOp", "retainedBytes", "status", "error",
            "placement", "cpuSource", "fingerprint", "startedAt", "seconds", "futileWakeupsPerOp", "signalToLockP50Ns",
            "signalToLockP99Ns", "session", "ownerChangesPerOp", "gapNs", "handoffGapNs",
            "reacquireGapNs", "roundOpsPerMs", "roundsStop", "pilotRounds", "roundLatencyMaxNs", "roundLatencyP999Ns");

    /** The row's key within its run: {@code bench/lock/threads}. */
    public String key() {
        return Point.key(bench, lock, threads);
    }

    public boolean ok() {
        return OK.equals(status);
    }

    /** The session that measured the point: {@link #session()}, or 1 for a row written before sessions were recorded. */
    public int sessionOrFirst() {
        return session == null ? 1 : session;
    }

    /** This row, measured in session {@code number} of its run. */
    public PointResult withSession(int number) {
        return withLater(number, roundOpsPerMs, roundsStop, pilotRounds, roundLatencyMaxNs, roundLatencyP999Ns);
    }

    /**
     * This row, measured in rounds: its fork mean in each round of its group (null where its fork failed or did not
     * run), why the group stopped and its pilot rounds.
     */
    public PointResult withRounds(List<Double> roundMeans, String stop, int pilot) {
        return withLater(session, java.util.Collections.unmodifiableList(new ArrayList<>(roundMeans)), stop, pilot,
                roundLatencyMaxNs, roundLatencyP999Ns);
    }

    /**
     * This row with each round's longest and 99.9th-percentile acquire wait of its fork (null entries where the fork
     * failed or did not run), in the order of {@link #roundOpsPerMs}.
     */
    public PointResult withRoundLatencies(List<Long> maxNs, List<Long> p999Ns) {
        return withLater(session, roundOpsPerMs, roundsStop, pilotRounds,
                java.util.Collections.unmodifiableList(new ArrayList<>(maxNs)),
                java.util.Collections.unmodifiableList(new ArrayList<>(p999Ns)));
    }

    /** This row with the fields that are set after it was measured (the session, the rounds and their waits) replaced. */
    private PointResult withLater(Integer session, List<Double> roundOpsPerMs, String roundsStop, Integer pilotRounds,
                                  List<Long> roundLatencyMaxNs, List<Long> roundLatencyP999Ns) {
        return new PointResult(bench, title, workload, lock, threads, threadType, carriers, remotePenaltyNs, topology, forks,
                rounds, opsPerRound, opsPerMs, opsPerMsCiLow, opsPerMsCiHigh, timeMs, timeMsCiLow, timeMsCiHigh, jain,
                minMaxRatio, latencyP50Ns, latencyP99Ns, latencyP999Ns, latencyMaxNs, handoffs, localHandoffFraction,
                slowPathsPerOp, queuedPerOp, parksPerOp, unparksPerOp, reservations, yields, bytesPerOp, retainedBytes,
                status, error, placement, cpuSource, fingerprint, startedAt, seconds, foreignAcquisitionFraction,
                migrationsPerOp, pairedP99Ns, futileWakeupsPerOp, signalToLockP50Ns, signalToLockP99Ns, session,
                ownerChangesPerOp, gapNs, handoffGapNs, reacquireGapNs, roundOpsPerMs, roundsStop, pilotRounds,
                roundLatencyMaxNs, roundLatencyP999Ns);
    }

    /** Each round's longest and 99.9th-percentile acquire wait, ns, null for a round without a fork. */
    public record RoundWaits(List<Long> maxNs, List<Long> p999Ns) {}

    /**
     * The rounds' waits from the forks' reports of a point measured in rounds: one fork per round, the reports in
     * round order, each placed at the next round whose mean is known ({@code series}, NaN where the fork failed or
     * did not run). Null where the reports do not match those rounds one for one, or a report has no latency.
     */
    public static RoundWaits roundWaits(List<ForkReport> reports, double[] series) {
        long known = java.util.Arrays.stream(series).filter(Double::isFinite).count();
        if (reports.isEmpty() || reports.size() != known) {
            return null;
        }
        List<Long> max = new ArrayList<>();
        List<Long> p999 = new ArrayList<>();
        int next = 0;
        for (double mean : series) {
            if (!Double.isFinite(mean)) {
                max.add(null);
                p999.add(null);
                continue;
            }
            Histogram h = ForkReport.decode(reports.get(next++).latency());
            if (h == null || h.getTotalCount() == 0) {
                return null;
            }
            max.add(h.getMaxValue());
            p999.add(h.getValueAtPercentile(99.9));
        }
        return new RoundWaits(max, p999);
    }

    /**
     * Each round's wait of the kind asked for ({@code true}: the longest, else the 99.9th percentile) as an array
     * (NaN for a missing round), or null for a row without them.
     */
    public double[] roundWaitSeries(boolean longest) {
        List<Long> series = longest ? roundLatencyMaxNs : roundLatencyP999Ns;
        return series == null ? null : series.stream().mapToDouble(v -> v == null ? Double.NaN : v).toArray();
    }

    /** The row's round means as an array (NaN for a missing round), or null for a row measured without rounds. */
    public double[] roundSeries() {
        return roundOpsPerMs == null ? null
                : roundOpsPerMs.stream().mapToDouble(v -> v == null ? Double.NaN : v).toArray();
    }

    /**
     * The row of a measured point.
     *
     * @param forkRoundTimesMs per fork, every measured round's time in ms; the 95% intervals are over the forks'
     *                         means when there are two or more ({@link Stats#summarizeForks})
     * @param forkReports      the side reports of the forks
     */
    public static PointResult measured(Point point, List<List<Double>> forkRoundTimesMs, List<ForkReport> forkReports,
                                       Instant started, double seconds) {
        BenchDefinition b = point.bench();
        long ops = forkReports.stream().mapToLong(ForkReport::operationsPerRound).filter(o -> o > 0).findFirst().orElse(0);
        List<double[]> times = forkRoundTimesMs.stream()
                .map(f -> f.stream().mapToDouble(Double::doubleValue).toArray()).toList();
        List<double[]> throughputs = times.stream().map(f -> perMs(ops, f)).toList();
        int rounds = times.stream().mapToInt(f -> f.length).sum();
        Stats.Summary time = Stats.summarizeForks(times);
        Stats.Summary throughput = Stats.summarizeForks(throughputs);
        List<Double> jain = new ArrayList<>();
        List<Double> minMax = new ArrayList<>();
        Histogram latency = null;
        Histogram paired = null;
        Histogram signalToLock = null;
        Long futile = null;
        SectionGaps gaps = SectionGaps.NONE; // its means are null: the columns stay blank unless a fork counted gaps
        long handoffs = 0;
        long local = 0;
        long nodeAcquisitions = 0;
        long foreign = 0;
        long migrations = 0;
        String error = null;
        LockDiagnostics.Counts counts = null;
        for (ForkReport r : forkReports) {
            if (r.diagnostics() != null) {
                counts = counts == null ? r.diagnostics() : counts.plus(r.diagnostics());
            }
            jain.addAll(r.jain());
            minMax.addAll(r.minMax());
            latency = ForkReport.accumulate(latency, ForkReport.decode(r.latency()));
            paired = ForkReport.accumulate(paired, ForkReport.decode(r.pairedLatency()));
            signalToLock = ForkReport.accumulate(signalToLock, ForkReport.decode(r.signalToLock()));
            if (r.futileWakeups() != null) {
                futile = (futile == null ? 0 : futile) + r.futileWakeups();
            }
            if (r.sectionGaps() != null) {
                gaps = gaps.plus(r.sectionGaps());
            }
            handoffs += r.handoffs();
            local += r.localHandoffs();
            if (r.nodeAcquisitions() != null) {
                nodeAcquisitions += r.nodeAcquisitions();
                foreign += r.foreignAcquisitions() == null ? 0 : r.foreignAcquisitions();
                migrations += r.migrations() == null ? 0 : r.migrations();
            }
            if (error == null && r.error() != null) {
                error = r.error();
            }
        }
        if (error == null && (ops == 0 || rounds == 0)) {
            error = "no measurement came back (" + forkReports.size() + " fork reports, " + rounds + " rounds)";
        }
        boolean hasRegions = handoffs > 0;
        boolean hasLatency = latency != null && latency.getTotalCount() > 0;
        ForkReport first = forkReports.isEmpty() ? null : forkReports.getFirst();
        return new PointResult(b.id(), b.title(), b.kind().jsonName(), point.lock(), point.threads(), b.threadType(),
                b.carriers(), b.remotePenaltyNs(), b.topology(), b.forks(), rounds, ops,
                finite(throughput.mean()), finite(throughput.ciLow()), finite(throughput.ciHigh()),
                finite(time.mean()), finite(time.ciLow()), finite(time.ciHigh()),
                finite(Stats.meanOfFinite(toArray(jain))), finite(Stats.meanOfFinite(toArray(minMax))),
                hasLatency ? latency.getValueAtPercentile(50) : null,
                hasLatency ? latency.getValueAtPercentile(99) : null,
                hasLatency ? latency.getValueAtPercentile(99.9) : null,
                hasLatency ? latency.getMaxValue() : null,
                hasRegions ? handoffs : null, hasRegions && (first == null || !first.oneNode()) ? (double) local / handoffs : null,
                perOp(counts == null ? null : counts.slowPaths(), ops, rounds),
                perOp(counts == null ? null : counts.queuedAcquisitions(), ops, rounds),
                perOp(counts == null ? null : counts.parks(), ops, rounds),
                perOp(counts == null ? null : counts.unparks(), ops, rounds),
                counts == null ? null : counts.reservations(),
                counts == null ? null : counts.yields(),
                bytesPerOp(forkReports, ops, rounds), retainedBytes(forkReports),
                error == null ? OK : FAILED, error,
                first == null ? null : first.placement(), first == null ? null : first.cpuSource(),
                point.fingerprint(), started.truncatedTo(ChronoUnit.MILLIS).toString(), round3(seconds),
                nodeAcquisitions > 0 ? (double) foreign / nodeAcquisitions : null,
                nodeAcquisitions > 0 && ops > 0 && rounds > 0 ? finite(migrations / ((double) ops * rounds)) : null,
                paired != null && paired.getTotalCount() > 0 ? paired.getValueAtPercentile(99) : null,
                perOp(futile, ops, rounds),
                signalToLock != null && signalToLock.getTotalCount() > 0 ? signalToLock.getValueAtPercentile(50) : null,
                signalToLock != null && signalToLock.getTotalCount() > 0 ? signalToLock.getValueAtPercentile(99) : null,
                null, finiteOrNull(gaps.ownerChangesPerOp()), finiteOrNull(gaps.meanGapNs()),
                finiteOrNull(gaps.meanHandoffGapNs()), finiteOrNull(gaps.meanReacquireGapNs()), null, null, null, null, null);
    }

    private static Double finiteOrNull(Double d) {
        return d == null ? null : finite(d);
    }

    /** Allocated bytes per operation over every fork's measured rounds; null if a fork could not count. */
    private static Double bytesPerOp(List<ForkReport> forks, long opsPerRound, int rounds) {
        if (forks.isEmpty() || opsPerRound == 0 || rounds == 0 || forks.stream().anyMatch(f -> f.allocatedBytes() == null)) {
            return null;
        }
        double bytes = forks.stream().mapToLong(ForkReport::allocatedBytes).sum();
        return finite(bytes / ((double) opsPerRound * rounds));
    }

    /** The largest retained size any fork reported, or null. */
    private static Long retainedBytes(List<ForkReport> forks) {
        return forks.stream().map(ForkReport::retainedBytes).filter(java.util.Objects::nonNull)
                .max(Long::compare).orElse(null);
    }

    /** The row of a point that failed before anything was measured. */
    public static PointResult failed(Point point, String error, Instant started, double seconds) {
        BenchDefinition b = point.bench();
        return new PointResult(b.id(), b.title(), b.kind().jsonName(), point.lock(), point.threads(), b.threadType(),
                b.carriers(), b.remotePenaltyNs(), b.topology(), b.forks(), 0, 0,
                null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, FAILED, error, null, null, point.fingerprint(), started.truncatedTo(ChronoUnit.MILLIS).toString(), round3(seconds));
    }

    /** The cells of this row's CSV line, in {@link #CSV_HEADER} order; null is an empty cell. */
    public List<Object> csvCells() {
        return java.util.Arrays.asList(bench, title, workload, lock, threads, threadType, carriers, remotePenaltyNs,
                topology, forks, rounds, opsPerRound, opsPerMs, opsPerMsCiLow, opsPerMsCiHigh, timeMs, timeMsCiLow,
                timeMsCiHigh, jain, minMaxRatio, latencyP50Ns, latencyP99Ns, latencyP999Ns, latencyMaxNs, pairedP99Ns, handoffs,
                localHandoffFraction, foreignAcquisitionFraction, migrationsPerOp, slowPathsPerOp, queuedPerOp, parksPerOp, unparksPerOp, reservations, yields, bytesPerOp, retainedBytes, status, error, placement, cpuSource, fingerprint, startedAt, seconds,
                futileWakeupsPerOp, signalToLockP50Ns, signalToLockP99Ns, session, ownerChangesPerOp, gapNs, handoffGapNs,
                reacquireGapNs, roundOpsPerMs == null ? null : roundsCell(roundOpsPerMs), roundsStop, pilotRounds,
                roundLatencyMaxNs == null ? null : roundsCell(asDoubles(roundLatencyMaxNs)),
                roundLatencyP999Ns == null ? null : roundsCell(asDoubles(roundLatencyP999Ns)));
    }

    private static List<Double> asDoubles(List<Long> values) {
        return values.stream().map(v -> v == null ? null : (Double) v.doubleValue()).toList();
    }

    /** The round means in one CSV cell: {@code 1234.5;1198.2;;1250}, an empty entry for a missing round. */
    static String roundsCell(List<Double> means) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < means.size(); i++) {
            if (i > 0) {
                sb.append(';');
            }
            Double m = means.get(i);
            if (m != null) {
                sb.append(new BigDecimal(m).round(new MathContext(6)).stripTrailingZeros().toPlainString());
            }
        }
        return sb.toString();
    }

    /** The row as one CSV line (RFC 4180 quoting), without the line break. */
    public String csvLine() {
        StringBuilder sb = new StringBuilder();
        List<Object> cells = csvCells();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(csvCell(cells.get(i)));
        }
        return sb.toString();
    }

    static String csvCell(Object value) {
        if (value == null) {
            return "";
        }
        String text = value instanceof Double d
                ? new BigDecimal(d).round(new MathContext(6)).stripTrailingZeros().toPlainString() : value.toString();
        if (text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r")) {
            return '"' + text.replace("\"", "\"\"") + '"';
        }
        return text;
    }

    /** A count over {@code rounds} rounds of {@code opsPerRound} operations, per operation; null for null. */
    private static Double perOp(Long count, long opsPerRound, int rounds) {
        return count == null || opsPerRound == 0 || rounds == 0 ? null : finite((double) count / opsPerRound / rounds);
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static double round3(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** Operations per ms of each round, from its time in ms. */
    private static double[] perMs(long opsPerRound, double[] timesMs) {
        double[] throughputs = new double[timesMs.length];
        for (int i = 0; i < timesMs.length; i++) {
            throughputs[i] = opsPerRound / timesMs[i];
        }
        return throughputs;
    }

    private static double[] toArray(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
