package io.numaloom.bench.report;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.result.MachineStalls;
import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PointResult;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Who won: per bench, each lock's throughput as a ratio to the bench's baseline at each thread count (unfair
 * {@code ReentrantLock}; for the {@code keyed} workload, what applications hand-write: a
 * {@code ConcurrentHashMap} of {@code ReentrantLock}s) with its 95% interval ({@link #estimate}), a verdict per point
 * (faster or slower only where that interval excludes 1, else tied) and a one-line verdict per lock. Printed near the end of
 * a run (before {@link Recommendation}, the last block), shown in {@code index.html} and written to
 * {@code summary.csv}, which also holds, per point, the lock's worst acquire wait as a ratio to the baseline's, and the
 * rows of VNA against the best other lock ({@link BestOther}) and of each lock against its own 1-thread point
 * ({@link SerialBound}). A bench without its baseline lock has no summary.
 *
 * <p>The ratio tables show each ratio with its interval and mark, {@code 1.12 [1.05, 1.19] ▲}, and under each table
 * the precision the bench reached ({@link Precision}).
 *
 * <p>A ratio whose two points were measured in different sessions of a resumed run ({@link Cell#spansSessions()}) is
 * shown in parentheses, {@code (1.12)}, without interval or mark, and left out of every verdict and geometric mean: the two points ran hours apart, perhaps under
 * another load.
 */
public final class Summary {
    /** The lock every other is compared with, except in keyed benches. */
    public static final String BASELINE = "UNFAIR_REENTRANT";
    /** The keyed scheme every other is compared with in keyed benches. */
    public static final String KEYED_BASELINE = "CHM_REENTRANT";
    public static final String FILE = "summary.csv";
    /** The {@code comparison} of a row of {@code summary.csv} against the bench's baseline. */
    public static final String CSV_BASELINE = "baseline";
    /** The {@code comparison} of a row of VNA against the best other lock ({@link BestOther}). */
    public static final String CSV_BEST_OTHER = "best-other";
    /**
     * The {@code comparison} of a row of the twin ({@link BestOther#TWIN}, the reference measured twice) against the
     * same best other lock: what a lock that ties the others reads.
     */
    public static final String CSV_TWIN_BEST_OTHER = "twin-best-other";
    /** The {@code comparison} of a row of a lock against its own 1-thread point ({@link SerialBound}). */
    public static final String CSV_SERIAL_BOUND = "serial-bound";
    static final String BASELINE_NAME = "unfair ReentrantLock";
    static final String KEYED_BASELINE_NAME = "a ConcurrentHashMap of ReentrantLocks";
    /** The layout every other is compared with in falseSharing benches. */
    public static final String LAYOUT_BASELINE = "PACKED";
    static final String LAYOUT_BASELINE_NAME = "counters packed into cache lines";

    private Summary() {}

    /**
     * Significance of one ratio ({@link PairedRatio}): faster or slower where its 95% interval excludes 1, tied where
     * it contains 1, unknown where there is no interval (one round, or a row written before rounds).
     */
    public enum Verdict { FASTER, SLOWER, TIED, UNKNOWN }

    /**
     * One lock at one thread count against the baseline at the same thread count.
     *
     * @param worstWaitRatio  the lock's longest acquire wait over the baseline's, in the measured rounds; null
     *                        where either was not recorded
     * @param session         the session of the run that measured the lock's point ({@link PointResult#sessionOrFirst})
     * @param baselineSession the session that measured the baseline's point
     */
    public record Cell(int threads, double opsPerMs, double baselineOpsPerMs, double ratio, Verdict verdict,
                       Double worstWaitRatio, int session, int baselineSession, double low, double high, double df) {
        /** A cell without an interval. */
        public Cell(int threads, double opsPerMs, double baselineOpsPerMs, double ratio, Verdict verdict,
                    Double worstWaitRatio, int session, int baselineSession) {
            this(threads, opsPerMs, baselineOpsPerMs, ratio, verdict, worstWaitRatio, session, baselineSession,
                    Double.NaN, Double.NaN);
        }

        /** A cell whose interval's degrees of freedom are not known. */
        public Cell(int threads, double opsPerMs, double baselineOpsPerMs, double ratio, Verdict verdict,
                    Double worstWaitRatio, int session, int baselineSession, double low, double high) {
            this(threads, opsPerMs, baselineOpsPerMs, ratio, verdict, worstWaitRatio, session, baselineSession, low, high,
                    Double.NaN);
        }

        /** The cell as an estimate of its ratio, for {@link PairedRatio#geometricMean}. */
        PairedRatio.Estimate estimate() {
            return new PairedRatio.Estimate(1, ratio, low, high, PairedRatio.Verdict.UNKNOWN, df);
        }

        /** {@code 1.12x [1.05, 1.19]}, or {@code 1.12x [no interval]}. */
        public String withInterval() {
            return Double.isNaN(low) ? String.format(Locale.ROOT, "%.2fx [no interval]", ratio)
                    : String.format(Locale.ROOT, "%.2fx [%.2f, %.2f]", ratio, low, high);
        }

        /** Whether the two points were measured in different sessions: such a ratio is shown, never counted. */
        public boolean spansSessions() {
            return session != baselineSession;
        }

        /** Whether the ratio has a 95% interval. */
        public boolean hasInterval() {
            return !Double.isNaN(low) && !Double.isNaN(high);
        }

        /**
         * The interval's half-width relative to the ratio, {@code sqrt(high / low) - 1} (0.05 for a ratio known to
         * within about ±5%, {@link PairedRatio.Estimate#halfWidth}); NaN without an interval.
         */
        public double halfWidth() {
            return hasInterval() ? Math.sqrt(high / low) - 1 : Double.NaN;
        }
    }

    /**
     * A lock's cells in one bench, and its one-line verdict.
     *
     * @param geometricMean over the cells of one session ({@link Cell#spansSessions()} false); NaN if there is none
     */
    public record LockLine(String lock, List<Cell> cells, double geometricMean, String verdict) {
        /** The cells whose two points were measured in one session: those the verdict and the mean count. */
        public List<Cell> compared() {
            return cells.stream().filter(c -> !c.spansSessions()).toList();
        }
    }

    /**
     * The summary of one bench, against {@code baseline}.
     *
     * @param stops how each group of the bench (one thread count, in one session) stopped adding rounds
     *              ({@link PointResult#roundsStop()}: {@code precision}, {@code budget}, {@code max-rounds},
     *              {@code fixed}), in the order of the thread counts; empty for rows measured without rounds
     */
    public record BenchSummary(String id, String title, String baseline, List<Integer> threads, List<LockLine> locks,
                               List<String> stops) {
        /** A summary whose groups' stops are unknown. */
        public BenchSummary(String id, String title, String baseline, List<Integer> threads, List<LockLine> locks) {
            this(id, title, baseline, threads, locks, List.of());
        }

        /** The baseline in words. */
        public String baselineName() {
            return nameOf(baseline);
        }

        /** The precision this bench's table reached. */
        public Precision precision() {
            return Precision.of(List.of(this));
        }
    }

    /**
     * The precision reached by one or more ratio tables: the half-widths of their ratios' 95% intervals
     * ({@link Cell#halfWidth()}, those of one session only), how many such ratios have no interval, and how the
     * groups of the benches stopped adding rounds ({@link BenchSummary#stops()}).
     */
    public record Precision(List<Double> halfWidths, int withoutInterval, List<String> stops) {
        /** The precision of {@code summaries} together; a bench without a ratio (an empty table) counts for nothing. */
        public static Precision of(List<BenchSummary> summaries) {
            List<Double> widths = new ArrayList<>();
            int without = 0;
            List<String> stops = new ArrayList<>();
            for (BenchSummary s : summaries) {
                if (s.locks().isEmpty()) {
                    continue;
                }
                for (LockLine line : s.locks()) {
                    for (Cell c : line.compared()) {
                        if (c.hasInterval()) {
                            widths.add(c.halfWidth());
                        } else {
                            without++;
                        }
                    }
                }
                stops.addAll(s.stops());
            }
            return new Precision(widths.stream().sorted().toList(), without, List.copyOf(stops));
        }

        /** The widest half-width; NaN for none. */
        public double widest() {
            return halfWidths.isEmpty() ? Double.NaN : halfWidths.getLast();
        }

        /** The median half-width; NaN for none. */
        public double median() {
            int n = halfWidths.size();
            return n == 0 ? Double.NaN : n % 2 == 1 ? halfWidths.get(n / 2)
                    : (halfWidths.get(n / 2 - 1) + halfWidths.get(n / 2)) / 2;
        }

        /**
         * "precision reached: median ±4.8%, widest ±12.3% (95% intervals of 6 ratios); groups: 2 reached the
         * precision, 1 stopped on the budget", or that no ratio has an interval. The half-width of an interval is
         * relative to its ratio ({@link Cell#halfWidth()}); a group is a thread count of a bench.
         */
        public String text() {
            return text("groups");
        }

        /** {@link #text()} where what stops is not a group ({@code "comparisons"} of the JMH route). */
        public String text(String stoppers) {
            StringBuilder sb = new StringBuilder("precision reached: ");
            int n = halfWidths.size();
            if (n == 0) {
                sb.append("no ratio has an interval (one round per point, or results written before rounds)");
            } else {
                sb.append(String.format(Locale.ROOT, "median ±%.1f%%, widest ±%.1f%% (95%% intervals of %d ratio%s",
                        100 * median(), 100 * widest(), n, n == 1 ? "" : "s"));
                sb.append(withoutInterval == 0 ? ")" : ", " + withoutInterval + " without)");
            }
            if (!stops.isEmpty()) {
                Map<String, Long> counts = stops.stream()
                        .collect(Collectors.groupingBy(Precision::stopWords, LinkedHashMap::new, Collectors.counting()));
                List<String> parts = new ArrayList<>();
                for (String label : List.of("precision", "budget", "max-rounds", "fixed")) {
                    Long c = counts.remove(stopWords(label));
                    if (c != null) {
                        parts.add(c + " " + stopWords(label));
                    }
                }
                counts.forEach((words, c) -> parts.add(c + " " + words));
                sb.append("; ").append(stoppers).append(": ").append(String.join(", ", parts));
            }
            return sb.toString();
        }

        private static String stopWords(String label) {
            return switch (label) {
                case "precision" -> "reached the precision";
                case "budget" -> "stopped on the budget";
                case "max-rounds" -> "stopped at the cap";
                case "fixed" -> "ran fixed rounds";
                default -> "stopped (" + label + ")";
            };
        }
    }

    /** The lock {@code bench}'s others are compared with. */
    public static String baselineOf(BenchDefinition bench) {
        return baselineOf(bench.kind());
    }

    /** The reference of a workload's benches: {@link #KEYED_BASELINE}, {@link #LAYOUT_BASELINE} or {@link #BASELINE}. */
    public static String baselineOf(io.numaloom.bench.workloads.WorkloadKind kind) {
        return kind.isKeyed() ? KEYED_BASELINE : kind.isLayout() ? LAYOUT_BASELINE : BASELINE;
    }

    /**
     * The name of {@code baseline}'s twin, the reference measured again as one more lock (the run's A/A control):
     * {@value io.numaloom.bench.locks.Locks#TWIN} for unfair {@code ReentrantLock}, {@code <baseline>_TWIN} for
     * the others (a label of the reference, {@link io.numaloom.bench.config.BenchConfig#withReferenceTwin}).
     */
    public static String twinOf(String baseline) {
        return baseline.equals(BASELINE) ? io.numaloom.bench.locks.Locks.TWIN : baseline + "_TWIN";
    }

    /** Whether {@code lock} is the twin of one of the references. */
    public static boolean isTwin(String lock) {
        return lock.equals(twinOf(BASELINE)) || lock.equals(twinOf(KEYED_BASELINE)) || lock.equals(twinOf(LAYOUT_BASELINE));
    }

    static String nameOf(String baseline) {
        return switch (baseline) {
            case KEYED_BASELINE -> KEYED_BASELINE_NAME;
            case LAYOUT_BASELINE -> LAYOUT_BASELINE_NAME;
            case BASELINE -> BASELINE_NAME;
            default -> baseline;
        };
    }

    /** The summaries of every active bench of {@code config} that has the baseline among its locks. */
    public static List<BenchSummary> of(BenchConfig config, List<PointResult> rows) {
        List<BenchSummary> out = new ArrayList<>();
        for (BenchDefinition bench : config.activeBenches()) {
            String baseline = baselineOf(bench);
            if (!bench.locks().contains(baseline)) {
                continue;
            }
            Map<String, PointResult> byKey = rows.stream().filter(r -> r.bench().equals(bench.id()) && r.ok()
                            && r.opsPerMs() != null)
                    .collect(Collectors.toMap(r -> r.lock() + "/" + r.threads(), r -> r, (a, b) -> b, LinkedHashMap::new));
            List<LockLine> lines = new ArrayList<>();
            for (String lock : bench.locks()) {
                if (lock.equals(baseline)) {
                    continue;
                }
                List<Cell> cells = new ArrayList<>();
                for (int t : bench.threads()) {
                    PointResult r = byKey.get(lock + "/" + t);
                    PointResult base = byKey.get(baseline + "/" + t);
                    if (r != null && base != null) {
                        cells.add(cell(r, base));
                    }
                }
                if (!cells.isEmpty()) {
                    double gm = geometricMean(cells.stream().filter(c -> !c.spansSessions()).toList());
                    lines.add(new LockLine(lock, List.copyOf(cells), gm, verdict(lock, nameOf(baseline), cells, gm)));
                }
            }
            out.add(new BenchSummary(bench.id(), bench.title(), baseline, bench.threads(), List.copyOf(lines),
                    stops(bench, rows)));
        }
        return out;
    }

    /** How each group of {@code bench} stopped: one label per thread count and session, in thread order. */
    private static List<String> stops(BenchDefinition bench, List<PointResult> rows) {
        Map<String, String> byGroup = new LinkedHashMap<>();
        rows.stream().filter(r -> r.bench().equals(bench.id()) && r.roundsStop() != null
                        && bench.threads().contains(r.threads()))
                .sorted(java.util.Comparator.comparingInt(r -> bench.threads().indexOf(r.threads())))
                .forEach(r -> byGroup.putIfAbsent(r.threads() + "/" + r.sessionOrFirst(), r.roundsStop()));
        return List.copyOf(byGroup.values());
    }

    /**
     * {@code r} against {@code base}: the ratio and its interval from their forks ({@link #estimate}), the ratio of
     * their means without an interval where the rows carry no forks (written before rounds).
     */
    static Cell cell(PointResult r, PointResult base) {
        PairedRatio.Estimate e = estimate(r, base);
        double ratio = e.rounds() > 0 ? e.ratio() : r.opsPerMs() / base.opsPerMs();
        Verdict v = switch (e.verdict()) {
            case FASTER -> Verdict.FASTER;
            case SLOWER -> Verdict.SLOWER;
            case TIED -> Verdict.TIED;
            case UNKNOWN -> e.rounds() > 0 ? Verdict.UNKNOWN : legacyVerdict(r, base);
        };
        Double worstWait = r.latencyMaxNs() == null || base.latencyMaxNs() == null || base.latencyMaxNs() == 0 ? null
                : (double) r.latencyMaxNs() / base.latencyMaxNs();
        return new Cell(r.threads(), r.opsPerMs(), base.opsPerMs(), ratio, v, worstWait, r.sessionOrFirst(),
                base.sessionOrFirst(), e.low(), e.high(), e.df());
    }

    /**
     * The verdict of two rows written before rounds (no round series: an older results folder), as it was then:
     * faster or slower where their throughput intervals do not overlap. Unknown where either row has no interval.
     */
    private static Verdict legacyVerdict(PointResult r, PointResult base) {
        if (r.opsPerMsCiLow() == null || base.opsPerMsCiHigh() == null || r.opsPerMsCiHigh() == null
                || base.opsPerMsCiLow() == null) {
            return Verdict.UNKNOWN;
        }
        return r.opsPerMsCiLow() > base.opsPerMsCiHigh() ? Verdict.FASTER
                : r.opsPerMsCiHigh() < base.opsPerMsCiLow() ? Verdict.SLOWER : Verdict.TIED;
    }

    /**
     * The ratio of {@code r} to {@code base} with its 95% interval. Two rows of one group (one bench at one thread
     * count, one session) pair their forks by round ({@link PairedRatio#of}, or Stein's interval where the group ran
     * the rounds its pilot planned); rows of different groups compare their fork means unpaired
     * ({@link PairedRatio#unpaired}); rows without rounds have no estimate.
     */
    public static PairedRatio.Estimate estimate(PointResult r, PointResult base) {
        double[] x = r.roundSeries();
        double[] y = base.roundSeries();
        if (x == null || y == null) {
            return PairedRatio.Estimate.NONE;
        }
        boolean sameGroup = r.bench().equals(base.bench()) && r.threads() == base.threads()
                && r.sessionOrFirst() == base.sessionOrFirst() && x.length == y.length;
        if (!sameGroup) {
            return PairedRatio.unpaired(x, y);
        }
        return "precision".equals(r.roundsStop()) && r.pilotRounds() != null
                ? PairedRatio.stein(x, y, r.pilotRounds()) : PairedRatio.of(x, y);
    }

    /**
     * The geometric mean of the cells' ratios with its 95% interval ({@link PairedRatio#geometricMean}: the cells are
     * points of different groups, independent); no interval where a cell has none.
     */
    public static PairedRatio.Estimate geometricMeanEstimate(List<Cell> cells) {
        return PairedRatio.geometricMean(cells.stream().map(Cell::estimate).toList());
    }

    /** The geometric mean of the cells' ratios; NaN for no cells. */
    static double geometricMean(List<Cell> cells) {
        return Math.exp(cells.stream().mapToDouble(c -> Math.log(c.ratio())).average().orElse(Double.NaN));
    }

    /**
     * "VNA: 1.12x unfair ReentrantLock (geometric mean); faster at 8, 32 threads; tied at 1, 2 threads", or, where no
     * point is faster or slower, "VNA: tied within noise with unfair ReentrantLock at 1, 2 threads (1.01x, geometric
     * mean)"; a ratio across sessions is named as left out.
     */
    static String verdict(String lock, String baselineName, List<Cell> cells, double geometricMean) {
        List<Cell> compared = cells.stream().filter(c -> !c.spansSessions()).toList();
        List<Cell> across = cells.stream().filter(Cell::spansSessions).toList();
        StringBuilder sb = new StringBuilder(lock).append(isTwin(lock) ? " " + TWIN_NOTE : "")
                .append(": ");
        if (compared.isEmpty()) {
            sb.append("not compared with ").append(baselineName);
        } else if (compared.stream().allMatch(c -> c.verdict() == Verdict.UNKNOWN)) {
            sb.append(String.format(Locale.ROOT, "%.2fx", geometricMean)).append(' ').append(baselineName)
                    .append(" (geometric mean); no verdict: one round per point gives no interval");
        } else if (compared.stream().allMatch(c -> c.verdict() == Verdict.TIED)) {
            sb.append("tied within noise with ").append(baselineName).append(" at ").append(threads(compared))
                    .append(String.format(Locale.ROOT, " (%.2fx, geometric mean)", geometricMean));
        } else {
            sb.append(String.format(Locale.ROOT, "%.2fx", geometricMean)).append(' ').append(baselineName)
                    .append(" (geometric mean)");
            for (Verdict v : Verdict.values()) {
                List<Cell> at = compared.stream().filter(c -> c.verdict() == v).toList();
                if (!at.isEmpty()) {
                    sb.append("; ").append(v == Verdict.UNKNOWN ? "no interval" : v.name().toLowerCase(Locale.ROOT))
                            .append(" at ").append(threads(at));
                }
            }
        }
        if (!across.isEmpty()) {
            sb.append("; left out at ").append(threads(across)).append(": measured in another session of the resumed run ")
                    .append("than ").append(baselineName).append("'s point");
        }
        return sb.toString();
    }

    /** "1 thread", "8, 32 threads". */
    private static String threads(List<Cell> cells) {
        List<String> at = cells.stream().map(c -> Integer.toString(c.threads())).toList();
        return String.join(", ", at) + (at.size() == 1 && at.getFirst().equals("1") ? " thread" : " threads");
    }

    /**
     * One lock across every bench that compares it with the same baseline: the geometric mean of its ratios over
     * all those points, and its best and worst point. Locks measured different points (a bench names its own locks), so
     * two locks' overall lines do not compare them with each other; {@link Recommendation} does, on common points.
     */
    public record Overall(String lock, String baselineName, int points, double geometricMean,
                          String bestPoint, double bestRatio, String worstPoint, double worstRatio) {
        /** "VNA: 1.12x unfair ReentrantLock (geometric mean of 24 points); best 1.45x queue-virtual x8, worst ...". */
        public String line() {
            String s = String.format(Locale.ROOT, "%s: %.2fx %s (geometric mean of %d point%s)", lock, geometricMean,
                    baselineName, points, points == 1 ? "" : "s");
            return points == 1 ? s : s + String.format(Locale.ROOT, "; best %.2fx %s, worst %.2fx %s",
                    bestRatio, bestPoint, worstRatio, worstPoint);
        }
    }

    /** The overall line of each lock, in the order the locks first appear, per baseline. */
    public static List<Overall> overall(List<BenchSummary> summaries) {
        Map<String, List<Cell>> cells = new LinkedHashMap<>();
        Map<Cell, String> where = new java.util.IdentityHashMap<>();
        Map<String, String[]> names = new LinkedHashMap<>();
        for (BenchSummary s : summaries) {
            for (LockLine line : s.locks()) {
                String key = line.lock() + "\u0000" + s.baseline();
                names.putIfAbsent(key, new String[] {line.lock(), s.baselineName()});
                for (Cell c : line.compared()) {
                    cells.computeIfAbsent(key, k -> new ArrayList<>()).add(c);
                    where.put(c, s.id() + " x" + c.threads());
                }
            }
        }
        List<Overall> out = new ArrayList<>();
        for (Map.Entry<String, List<Cell>> e : cells.entrySet()) {
            List<Cell> cs = e.getValue();
            Cell best = cs.stream().max(java.util.Comparator.comparingDouble(Cell::ratio)).orElseThrow();
            Cell worst = cs.stream().min(java.util.Comparator.comparingDouble(Cell::ratio)).orElseThrow();
            String[] n = names.get(e.getKey());
            out.add(new Overall(n[0], n[1], cs.size(), geometricMean(cs), where.get(best), best.ratio(),
                    where.get(worst), worst.ratio()));
        }
        return out;
    }

    /**
     * A warning when the machine's own stalls may have decided points: the longest stall its probe saw is at least
     * half of a point's worst acquire wait (the max latency), so that worst wait may be the machine's, not the lock's.
     * Empty when there was no probe, no stall over {@link MachineStalls#STALL_NANOS}, or no such point.
     */
    public static Optional<String> stallWarning(MachineStalls stalls, List<PointResult> rows) {
        return stallWarning(r -> stalls, rows, s -> s.describe());
    }

    /**
     * {@link #stallWarning(MachineStalls, List)} for a run of one or more sessions: each point is held against the probe
     * of the session that measured it.
     */
    public static Optional<String> stallWarningFor(MachineInfo machine, List<PointResult> rows) {
        if (machine == null) {
            return Optional.empty();
        }
        boolean several = machine.sessionsOrFirst().size() > 1;
        Map<MachineStalls, Integer> sessionOf = new java.util.IdentityHashMap<>();
        machine.sessionsOrFirst().forEach(s -> {
            if (s.stalls() != null) {
                sessionOf.put(s.stalls(), s.number());
            }
        });
        return stallWarning(r -> {
            io.numaloom.bench.result.Session s = machine.session(r.sessionOrFirst());
            return s == null ? null : s.stalls();
        }, rows, s -> several ? "session " + sessionOf.get(s) + ", " + s.describe() : s.describe());
    }

    private static Optional<String> stallWarning(java.util.function.Function<PointResult, MachineStalls> stallsOf,
                                                 List<PointResult> rows,
                                                 java.util.function.Function<MachineStalls, String> describe) {
        List<PointResult> measured = rows.stream().filter(r -> r.ok() && r.latencyMaxNs() != null).toList();
        List<PointResult> decided = measured.stream().filter(r -> {
            MachineStalls stalls = stallsOf.apply(r);
            return stalls != null && stalls.stalls() > 0 && stalls.longestNs() > 0 && 2 * stalls.longestNs() >= r.latencyMaxNs();
        }).toList();
        if (decided.isEmpty()) {
            return Optional.empty();
        }
        MachineStalls longest = decided.stream().map(stallsOf)
                .max(java.util.Comparator.comparingLong(MachineStalls::longestNs)).orElseThrow();
        String examples = decided.stream().limit(3).map(r -> r.bench() + " " + r.lock() + " x" + r.threads())
                .collect(Collectors.joining(", "));
        return Optional.of(String.format(Locale.ROOT,
                "This machine stalled threads that only spun for up to %.1f ms (%s). That is at least half of the worst wait "
                        + "of %d of %d points (%s%s): their worst waits (max) may be the machine's, not the lock's. "
                        + "Compare throughput ratios, and repeat the run on a quieter machine before reading a worst wait.",
                longest.longestNs() / 1e6, describe.apply(longest), decided.size(), measured.size(), examples,
                decided.size() > 3 ? ", ..." : ""));
    }

    /**
     * A ratio with its mark: ▲ faster, ▼ slower (its 95% interval excludes 1), nothing when tied or without an
     * interval; in parentheses, unmarked, where the two points were measured in different sessions. The compact form of
     * the console's line of VNA against the best other lock; the tables show {@link #withInterval(Cell)}.
     */
    static String marked(Cell c) {
        String[] p = parts(c);
        return p[2].isEmpty() ? p[0] : p[0] + " " + p[2];
    }

    /**
     * A ratio with its 95% interval and its mark, as the tables show it: {@code 1.12 [1.05, 1.19] ▲},
     * {@code 0.98 [0.93, 1.04]} (tied), {@code 1.12 [-]} (no interval: one round, or a row written before rounds),
     * and {@code (1.12)} where the two points were measured in different sessions (shown, never counted).
     */
    static String withInterval(Cell c) {
        return String.join(" ", java.util.Arrays.stream(parts(c)).filter(p -> !p.isEmpty()).toList());
    }

    /** The ratio, the interval and the mark of a cell, each empty where it has none. */
    private static String[] parts(Cell c) {
        String ratio = String.format(Locale.ROOT, "%.2f", c.ratio());
        if (c.spansSessions()) {
            return new String[] {"(" + ratio + ")", "", ""};
        }
        String interval = c.hasInterval() ? String.format(Locale.ROOT, "[%.2f, %.2f]", c.low(), c.high()) : "[-]";
        String mark = switch (c.verdict()) {
            case FASTER -> "▲";
            case SLOWER -> "▼";
            case TIED, UNKNOWN -> "";
        };
        return new String[] {ratio, interval, mark};
    }

    /** What the tables' cells say, after the bench's name or in the report's text. */
    static final String LEGEND = "ratio [95% interval]; ▲ faster, ▼ slower: the interval excludes 1; [-]: no interval";

    /**
     * The console form: per bench a ratio table (each cell {@link #withInterval(Cell)}, the ratio, the interval and the
     * mark each in a column of its own), the precision it reached ({@link Precision}) and the verdict lines. (Each lock
     * over all its points, {@link #overall}, is not printed: locks measured different points. {@link Recommendation}
     * compares them on the same points.)
     */
    public static String text(List<BenchSummary> summaries) {
        String nl = System.lineSeparator();
        StringBuilder sb = new StringBuilder();
        for (BenchSummary s : summaries) {
            if (s.locks().isEmpty()) {
                continue;
            }
            sb.append(s.id()).append(": throughput / ").append(s.baselineName()).append(" (").append(LEGEND).append(')')
                    .append(nl);
            List<String[]> table = new ArrayList<>();
            List<String> header = new ArrayList<>(List.of("threads"));
            s.threads().forEach(t -> header.add(Integer.toString(t)));
            table.add(header.toArray(String[]::new));
            for (LockLine line : s.locks()) {
                List<String> row = new ArrayList<>(List.of(line.lock()));
                for (int t : s.threads()) {
                    row.add(line.cells().stream().filter(x -> x.threads() == t).findFirst()
                            .map(Summary::aligned).orElse("-"));
                }
                table.add(row.toArray(String[]::new));
            }
            alignColumns(s, table);
            for (String[] row : table) {
                StringBuilder line = new StringBuilder("  ").append(row[0]);
                for (int i = 1; i < row.length; i++) {
                    line.append("  ").append(row[i]);
                }
                sb.append(line.toString().stripTrailing()).append(nl);
            }
            sb.append("  ").append(s.precision().text()).append(nl);
            for (LockLine line : s.locks()) {
                sb.append("  ").append(line.verdict()).append(nl);
            }
            if (s.locks().stream().anyMatch(l -> l.cells().stream().anyMatch(Cell::spansSessions))) {
                sb.append("  ").append(SESSIONS_NOTE).append(nl);
            }
        }
        return sb.toString();
    }

    /** A cell's three parts joined by a tab each, for {@link #alignColumns} to pad. */
    private static String aligned(Cell c) {
        return String.join("\t", parts(c));
    }

    /**
     * Pads {@code table} (a header row, then a row per lock) in place: the lock column to the left; in each thread
     * column the ratios to the right, the intervals and the marks to the left, so that each lines up; then the whole
     * column, right-aligned, to its widest cell.
     */
    private static void alignColumns(BenchSummary s, List<String[]> table) {
        int lockWidth = table.stream().mapToInt(r -> r[0].length()).max().orElse(0);
        for (String[] row : table) {
            row[0] = pad(row[0], lockWidth, true);
        }
        for (int col = 1; col <= s.threads().size(); col++) {
            int[] widths = new int[3];
            for (String[] row : table.subList(1, table.size())) {
                String[] p = row[col].split("\t", -1);
                for (int k = 0; k < p.length; k++) {
                    widths[k] = Math.max(widths[k], p[k].length());
                }
            }
            int width = table.getFirst()[col].length();
            for (String[] row : table.subList(1, table.size())) {
                String[] p = row[col].split("\t", -1);
                StringBuilder cell = new StringBuilder(pad(p[0], widths[0], false));
                for (int k = 1; k < 3; k++) {
                    if (widths[k] > 0) {
                        cell.append(' ').append(pad(k < p.length ? p[k] : "", widths[k], true));
                    }
                }
                row[col] = cell.toString();
                width = Math.max(width, cell.length());
            }
            for (String[] row : table) {
                row[col] = pad(row[col], width, false);
            }
        }
    }

    /** What the twin ({@link BestOther#TWIN}) is, after its name in a verdict line. */
    static final String TWIN_NOTE = "(the reference measured twice, a noise gauge)";

    /** What a ratio in parentheses means, in the console and the report. */
    static final String SESSIONS_NOTE = "( ): the two points were measured in different sessions of the resumed run "
            + "(see machine.json): shown without interval or mark, and left out of every verdict and mean";

    private static void csvRow(StringBuilder sb, String bench, String lock, Cell c, String comparison, String reference) {
        sb.append(String.format(Locale.ROOT, "%s,%s,%d,%s,%s,%.4f,%s,%s,%d,%d,%s,%s,%s,%s%n", bench, lock, c.threads(),
                sixDigits(c.opsPerMs()), sixDigits(c.baselineOpsPerMs()), c.ratio(),
                c.spansSessions() ? "sessions-differ" : c.verdict().name().toLowerCase(Locale.ROOT),
                c.worstWaitRatio() == null ? "" : String.format(Locale.ROOT, "%.4f", c.worstWaitRatio()),
                c.session(), c.baselineSession(), comparison, reference,
                Double.isNaN(c.low()) ? "" : String.format(Locale.ROOT, "%.4f", c.low()),
                Double.isNaN(c.high()) ? "" : String.format(Locale.ROOT, "%.4f", c.high())));
    }

    private static void csvMean(StringBuilder sb, String bench, String lock, double mean, String comparison,
                                String reference) {
        sb.append(String.format(Locale.ROOT, "%s,%s,geomean,,,%s,,,,,%s,%s,,%n", bench, lock,
                Double.isNaN(mean) ? "" : String.format(Locale.ROOT, "%.4f", mean), comparison, reference));
    }

    private static String sixDigits(double v) {
        return new java.math.BigDecimal(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
    }

    private static String pad(String s, int width, boolean left) {
        String padding = " ".repeat(Math.max(0, width - s.length()));
        return left ? s + padding : padding + s;
    }

    /**
     * Writes {@code summary.csv}, four kinds of rows told apart by the {@code comparison} column, {@code reference}
     * naming what the row's lock is compared with ({@code baselineOpsPerMs} is its throughput):
     * <ul>
     * <li>{@value #CSV_BASELINE}: one row per lock and thread count against the bench's baseline, then one per lock
     * with the geometric mean of the throughput ratios (threads {@code geomean});</li>
     * <li>{@value #CSV_BEST_OTHER}: one row per thread count of VNA against the other lock with the highest throughput
     * there, then one with the geometric mean;</li>
     * <li>{@value #CSV_TWIN_BEST_OTHER}: the same rows for {@link BestOther#TWIN} (lock {@code UNFAIR_REENTRANT_TWIN}),
     * where the bench measured it beside VNA: the reference measured twice against the same other locks, what a lock
     * that ties them reads;</li>
     * <li>{@value #CSV_SERIAL_BOUND}: one row per lock and thread count above 1 against the same lock at 1 thread; where
     * the lock has no 1-thread point, the ratio is empty and the verdict {@code no-1-thread-point}.</li>
     * </ul>
     * A ratio whose points two sessions measured has the verdict {@code sessions-differ} and is not in the mean;
     * {@code session} and {@code baselineSession} say which. The first ten columns are those of the file before it had
     * the other comparisons.
     */
    public static void writeCsv(Path dir, List<BenchSummary> summaries, List<BestOther.Line> bestOthers,
                                List<SerialBound.BenchLine> serialBounds) throws IOException {
        StringBuilder sb = new StringBuilder("bench,lock,threads,opsPerMs,baselineOpsPerMs,ratio,verdict,worstWaitRatio,"
                + "session,baselineSession,comparison,reference,ratioLow,ratioHigh\n");
        for (BenchSummary s : summaries) {
            for (LockLine line : s.locks()) {
                for (Cell c : line.cells()) {
                    csvRow(sb, s.id(), line.lock(), c, CSV_BASELINE, s.baseline());
                }
                csvMean(sb, s.id(), line.lock(), line.geometricMean(), CSV_BASELINE, s.baseline());
            }
        }
        for (BestOther.Line line : bestOthers) {
            String comparison = line.isTwin() ? CSV_TWIN_BEST_OTHER : CSV_BEST_OTHER;
            for (BestOther.Point p : line.points()) {
                csvRow(sb, line.bench(), line.lock(), p.cell(), comparison, p.best());
            }
            csvMean(sb, line.bench(), line.lock(), line.geometricMean(), comparison, "");
        }
        for (SerialBound.BenchLine b : serialBounds) {
            for (SerialBound.LockLine line : b.locks()) {
                for (SerialBound.Entry e : line.entries()) {
                    if (e.ratio() != null) {
                        csvRow(sb, b.bench(), line.lock(), e.ratio(), CSV_SERIAL_BOUND, line.lock());
                    } else {
                        sb.append(String.format(Locale.ROOT, "%s,%s,%d,%s,,,no-1-thread-point,,%d,,%s,,,%n", b.bench(),
                                line.lock(), e.threads(), sixDigits(e.opsPerMs()), e.session(), CSV_SERIAL_BOUND));
                    }
                }
            }
        }
        Path tmp = dir.resolve(FILE + ".tmp");
        Files.writeString(tmp, sb);
        Files.move(tmp, dir.resolve(FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
