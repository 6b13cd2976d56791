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
 * {@code ConcurrentHashMap} of {@code ReentrantLock}s), a verdict per point (faster or slower only where the
 * two 95% confidence intervals do not overlap, else tied) and a one-line verdict per lock. Printed near the end of
 * a run (before {@link Recommendation}, the last block), shown in {@code index.html} and written to
 * {@code summary.csv}, which also holds, per point, the lock's worst acquire wait as a ratio to the baseline's, and the
 * rows of VNA against the best other lock ({@link BestOther}) and of each lock against its own 1-thread point
 * ({@link SerialBound}). A bench without its baseline lock has no summary.
 *
 * <p>A ratio whose two points were measured in different sessions of a resumed run ({@link Cell#spansSessions()}) is
 * shown in brackets and left out of every verdict and geometric mean: the two points ran hours apart, perhaps under
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
                       Double worstWaitRatio, int session, int baselineSession, double low, double high) {
        /** A cell without an interval. */
        public Cell(int threads, double opsPerMs, double baselineOpsPerMs, double ratio, Verdict verdict,
                    Double worstWaitRatio, int session, int baselineSession) {
            this(threads, opsPerMs, baselineOpsPerMs, ratio, verdict, worstWaitRatio, session, baselineSession,
                    Double.NaN, Double.NaN);
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

    /** The summary of one bench, against {@code baseline}. */
    public record BenchSummary(String id, String title, String baseline, List<Integer> threads, List<LockLine> locks) {
        /** The baseline in words. */
        public String baselineName() {
            return nameOf(baseline);
        }
    }

    /** The lock {@code bench}'s others are compared with. */
    public static String baselineOf(BenchDefinition bench) {
        return bench.kind().isKeyed() ? KEYED_BASELINE : bench.kind().isLayout() ? LAYOUT_BASELINE : BASELINE;
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
            out.add(new BenchSummary(bench.id(), bench.title(), baseline, bench.threads(), List.copyOf(lines)));
        }
        return out;
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
                base.sessionOrFirst(), e.low(), e.high());
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
        StringBuilder sb = new StringBuilder(lock).append(lock.equals(BestOther.TWIN) ? " " + TWIN_NOTE : "")
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
     * interval; in brackets, unmarked, where
     * the two points were measured in different sessions.
     */
    static String marked(Cell c) {
        String ratio = String.format(Locale.ROOT, "%.2f", c.ratio());
        if (c.spansSessions()) {
            return "[" + ratio + "]";
        }
        return switch (c.verdict()) {
            case FASTER -> ratio + " ▲";
            case SLOWER -> ratio + " ▼";
            case TIED, UNKNOWN -> ratio;
        };
    }

    /**
     * The console form: per bench a ratio table and the verdict lines. (Each lock over all its points, {@link #overall},
     * is not printed: locks measured different points. {@link Recommendation} compares them on the same points.)
     */
    public static String text(List<BenchSummary> summaries) {
        StringBuilder sb = new StringBuilder();
        for (BenchSummary s : summaries) {
            if (s.locks().isEmpty()) {
                continue;
            }
            sb.append(s.id()).append(": throughput / ").append(s.baselineName())
                    .append(" (▲ faster, ▼ slower: the ratio's 95% interval excludes 1)").append(System.lineSeparator());
            int lockWidth = s.locks().stream().mapToInt(l -> l.lock().length()).max().orElse(4);
            sb.append("  ").append(pad("threads", lockWidth, true));
            for (int t : s.threads()) {
                sb.append(pad(Integer.toString(t), 8, false));
            }
            sb.append(System.lineSeparator());
            for (LockLine line : s.locks()) {
                sb.append("  ").append(pad(line.lock(), lockWidth, true));
                for (int t : s.threads()) {
                    Optional<Cell> c = line.cells().stream().filter(x -> x.threads() == t).findFirst();
                    sb.append(pad(c.map(Summary::marked).orElse("-"), 8, false));
                }
                sb.append(System.lineSeparator());
            }
            for (LockLine line : s.locks()) {
                sb.append("  ").append(line.verdict()).append(System.lineSeparator());
            }
            if (s.locks().stream().anyMatch(l -> l.cells().stream().anyMatch(Cell::spansSessions))) {
                sb.append("  ").append(SESSIONS_NOTE).append(System.lineSeparator());
            }
        }
        return sb.toString();
    }

    /** What the twin ({@link BestOther#TWIN}) is, after its name in a verdict line. */
    static final String TWIN_NOTE = "(the reference measured twice, a noise gauge)";

    /** What a ratio in brackets means, in the console and the report. */
    static final String SESSIONS_NOTE = "[ ]: the two points were measured in different sessions of the resumed run "
            + "(see machine.json): shown, but left out of every verdict and mean";

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
