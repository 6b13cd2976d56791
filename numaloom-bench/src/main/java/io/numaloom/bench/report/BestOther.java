package io.numaloom.bench.report;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.result.PointResult;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * VnaLock against the best other lock of its bench, at each thread count: VNA's throughput over the highest throughput
 * that any other lock of the bench reached at the same thread count, that lock named. The {@link Summary} holds every
 * lock against one reference (unfair {@code ReentrantLock}); this asks whether some lock of the run did better than
 * VnaLock at a point, and which. A point is marked as everywhere in the report ({@link Summary.Verdict}: faster or slower
 * only where the ratio's 95% interval excludes 1, else tied).
 *
 * <p>Of two other locks with the same throughput, the one listed first in the bench is named. The best other lock is
 * chosen among the points measured in the session of the run that measured VNA's point; only
 * where no other lock was measured in that session is it taken from another, and that ratio is shown in parentheses and
 * counted in neither the geometric mean nor the lowest ratio, as {@link Summary.Cell#spansSessions()} says.
 *
 * <p>The highest of several noisy locks is biased upward: a lock that ties the others still reads below 1 against
 * the best of them. {@value #TWIN}, a second unfair {@code ReentrantLock} identical to {@code UNFAIR_REENTRANT} and
 * measured as a lock of its own, gauges that bias within the run. It is never VNA's best other lock (it is the
 * reference under another name, so VNA's line is the same with or without it); where a bench measured both, the twin
 * gets a line of its own, computed as VNA's against the same candidates (every lock of the bench but VNA and the twin):
 * what a lock that ties the others reads in this run.
 *
 * <p>A bench that did not measure {@value #LOCK}, or no other lock at any of VNA's thread counts, has no line; nor then
 * a twin line.
 */
public final class BestOther {
    /** The lock held against the best of the others. */
    public static final String LOCK = "VNA";
    /** The noise gauge: the reference measured twice ({@link io.numaloom.bench.locks.Locks#TWIN}). */
    public static final String TWIN = io.numaloom.bench.locks.Locks.TWIN;

    private BestOther() {}

    /**
     * VNA (or the twin) against the best other lock at one thread count.
     *
     * @param best the other lock with the highest throughput there
     * @param cell VNA's throughput over {@code best}'s ({@link Summary.Cell#baselineOpsPerMs()} is {@code best}'s), with
     *             its verdict
     */
    public record Point(String best, Summary.Cell cell) {
        /**
         * "x2 1.08 [1.03, 1.13] ▲ (SHFL)"; "x2 1.08 ▲ (SHFL)" for a ratio without an interval (rows written before
         * rounds); "x2 (1.08) (SHFL)", unmarked, where the two points were measured in different sessions.
         */
        public String text() {
            return "x" + cell.threads() + " " + (cell.hasInterval() ? Summary.withInterval(cell) : Summary.marked(cell))
                    + " (" + best + ")";
        }
    }

    /**
     * One bench's points of one lock, in the order of its thread counts.
     *
     * @param lock          {@value #LOCK}, or {@value #TWIN} for the twin's line
     * @param geometricMean of the ratios of the points measured in one session; NaN if there is none
     * @param lowest        the point of one session with the lowest ratio; null if there is none
     */
    public record Line(String bench, String title, String lock, List<Point> points, double geometricMean,
                       Point lowest) {
        /**
         * "VNA / best other: x1 0.99 (SHFL), x2 1.60 ▲ (UNFAIR_REENTRANT), x8 0.95 ▼ (NUMA_MCS); geometric mean 1.15,
         * lowest 0.95 at x8"; "UNFAIR_REENTRANT_TWIN / best other: ..." for the twin.
         */
        public String text() {
            return lock + " / best other: " + ratios();
        }

        /** Whether this is the twin's line, the noise gauge, rather than VNA's. */
        public boolean isTwin() {
            return TWIN.equals(lock);
        }

        /** The {@link #text()} without its "VNA / best other: ". */
        public String ratios() {
            String points = this.points.stream().map(Point::text).collect(Collectors.joining(", "));
            return points + (lowest == null ? "; no point whose best other lock was measured in " + lock + "'s session"
                    : String.format(Locale.ROOT, "; geometric mean %.2f, lowest %.2f at x%d", geometricMean,
                    lowest.cell().ratio(), lowest.cell().threads()));
        }
    }

    /** The lines of every active bench of {@code config} that has them: VNA's, then the twin's where there is one. */
    public static List<Line> of(BenchConfig config, List<PointResult> rows) {
        List<Line> out = new ArrayList<>();
        for (BenchDefinition bench : config.activeBenches()) {
            out.addAll(lines(bench, rows));
        }
        return out;
    }

    /** VNA's line of {@code bench} and, where the bench measured the twin too, the twin's after it. */
    public static List<Line> lines(BenchDefinition bench, List<PointResult> rows) {
        Optional<Line> vna = of(bench, rows);
        if (vna.isEmpty()) {
            return List.of();
        }
        Optional<Line> twin = twin(bench, rows);
        return twin.isEmpty() ? List.of(vna.get()) : List.of(vna.get(), twin.get());
    }

    /**
     * The line of {@code bench} from the rows of a run (other benches' rows are ignored); empty where the bench did not
     * measure VNA beside another lock (the twin aside) at any thread count.
     */
    public static Optional<Line> of(BenchDefinition bench, List<PointResult> rows) {
        return of(bench, rows, LOCK, Set.of(TWIN));
    }

    /**
     * The twin's line of {@code bench}: as VNA's, the twin against the best of the same other locks (neither VNA nor
     * the twin); empty where the bench has no VNA line or did not measure the twin beside another lock.
     */
    public static Optional<Line> twin(BenchDefinition bench, List<PointResult> rows) {
        if (of(bench, rows).isEmpty()) {
            return Optional.empty();
        }
        return of(bench, rows, TWIN, Set.of(LOCK));
    }

    /**
     * {@code subject} against the best of the bench's other locks at each thread count, {@code excluded} not among
     * them; empty where the bench did not measure {@code subject} beside one of them at any thread count.
     */
    static Optional<Line> of(BenchDefinition bench, List<PointResult> rows, String subject, Set<String> excluded) {
        if (!bench.locks().contains(subject)) {
            return Optional.empty();
        }
        List<PointResult> measured = rows.stream()
                .filter(r -> r.bench().equals(bench.id()) && r.ok() && r.opsPerMs() != null).toList();
        List<Point> points = new ArrayList<>();
        for (int t : bench.threads()) {
            PointResult mine = measured.stream().filter(r -> r.threads() == t && r.lock().equals(subject))
                    .reduce((a, b) -> b).orElse(null);
            if (mine == null) {
                continue;
            }
            List<PointResult> others = measured.stream().filter(r -> r.threads() == t && !r.lock().equals(subject)
                    && !excluded.contains(r.lock())).toList();
            List<PointResult> sameSession = others.stream().filter(r -> r.sessionOrFirst() == mine.sessionOrFirst())
                    .toList();
            (sameSession.isEmpty() ? others : sameSession).stream()
                    .max(Comparator.comparingDouble(PointResult::opsPerMs)
                            .thenComparing(r -> -bench.locks().indexOf(r.lock())))
                    .ifPresent(best -> points.add(new Point(best.lock(), Summary.cell(mine, best))));
        }
        if (points.isEmpty()) {
            return Optional.empty();
        }
        List<Point> compared = points.stream().filter(p -> !p.cell().spansSessions()).toList();
        double geometricMean = Summary.geometricMean(compared.stream().map(Point::cell).toList());
        Point lowest = compared.stream().min(Comparator.comparingDouble(p -> p.cell().ratio())).orElse(null);
        return Optional.of(new Line(bench.id(), bench.title(), subject, List.copyOf(points), geometricMean, lowest));
    }

    /**
     * The console form: a line per bench, under a line that says what the marks mean, and the twin's line under VNA's
     * where there is one; empty for no lines.
     */
    public static String text(List<Line> lines) {
        if (lines.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(LOCK).append(" / the best other lock of each bench at each thread count")
                .append(" (▲ faster, ▼ slower: the ratio's 95% interval excludes 1)").append(System.lineSeparator());
        for (Line line : lines) {
            sb.append("  ").append(line.bench()).append(line.isTwin() ? " " + TWIN_LABEL : "").append(": ")
                    .append(line.ratios()).append(System.lineSeparator());
        }
        return sb.toString();
    }

    /** What the twin's console line is, after its bench. */
    static final String TWIN_LABEL = "(twin, what a tie reads)";
}
