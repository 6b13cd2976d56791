package io.numaloom.bench.report;

import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Two locks of one run compared with each other instead of with the reference: per group (bench, thread count,
 * session) where both were measured, the ratio of {@code lock} to {@code other} with its 95% interval, paired by round
 * as the summary pairs a lock with the reference ({@link Summary#estimate}), and its verdict; then their geometric mean
 * over those points with its interval ({@link PairedRatio#geometricMean}). This is how a variant is judged against the
 * lock it varies: a mechanism switched off by a JVM flag against the lock as shipped, measured as two locks of the
 * same run (a lock entry's {@code label} and {@code jvmArgs}, {@link io.numaloom.bench.config.LockEntry}).
 *
 * @param lock   the lock whose throughput is the numerator
 * @param other  the lock it is compared with
 * @param points one line per group where both have a measurement, in the order of the run's rows
 */
public record LockComparison(String lock, String other, List<Point> points) {

    /**
     * One group's ratio.
     *
     * @param bench    the bench id
     * @param threads  the thread count
     * @param estimate the ratio of {@code lock} to {@code other} with its interval (none for a single round)
     */
    public record Point(String bench, int threads, PairedRatio.Estimate estimate) {}

    /** Reads {@code results.json} of {@code dir} and compares {@code lock} with {@code other} wherever both ran. */
    public static LockComparison read(Path dir, String lock, String other) throws IOException {
        if (!Files.exists(dir.resolve(ResultStore.JSON_FILE))) {
            throw new IllegalArgumentException(dir + " has no " + ResultStore.JSON_FILE + ": not a results directory of ./numaloom bench");
        }
        return of(ResultStore.load(dir), lock, other);
    }

    /**
     * Compares {@code lock} with {@code other} over {@code rows}.
     *
     * @throws IllegalArgumentException if either lock has no measured row, or they never ran in the same group
     *         (the message lists the locks the rows have)
     */
    public static LockComparison of(List<PointResult> rows, String lock, String other) {
        if (lock.equals(other)) {
            throw new IllegalArgumentException("compare a lock with another one, not with itself ('" + lock + "')");
        }
        Map<String, PointResult> mine = new LinkedHashMap<>();
        Map<String, PointResult> theirs = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        for (PointResult r : rows) {
            if (!names.contains(r.lock())) {
                names.add(r.lock());
            }
            if (!r.ok()) {
                continue;
            }
            String group = r.bench() + "/" + r.threads() + "/" + r.sessionOrFirst();
            if (r.lock().equals(lock)) {
                mine.put(group, r);
            } else if (r.lock().equals(other)) {
                theirs.put(group, r);
            }
        }
        for (String name : List.of(lock, other)) {
            if (!names.contains(name)) {
                throw new IllegalArgumentException("no lock '" + name + "' in this run" + io.numaloom.bench.config.Suggest.hint(name, names)
                        + "; its locks: " + String.join(", ", names));
            }
        }
        List<Point> points = new ArrayList<>();
        mine.forEach((group, r) -> {
            PointResult o = theirs.get(group);
            if (o != null) {
                points.add(new Point(r.bench(), r.threads(), Summary.estimate(r, o)));
            }
        });
        if (points.isEmpty()) {
            throw new IllegalArgumentException(lock + " and " + other + " were never measured at the same bench and thread "
                    + "count in one session of this run, so nothing pairs them");
        }
        return new LockComparison(lock, other, List.copyOf(points));
    }

    /** The geometric mean of the points' ratios with its interval; none if a point has no interval. */
    public PairedRatio.Estimate geometricMean() {
        return PairedRatio.geometricMean(points.stream().map(Point::estimate).toList());
    }

    /** How many points were judged with {@code verdict}. */
    public long count(PairedRatio.Verdict verdict) {
        return points.stream().filter(p -> p.estimate().verdict() == verdict).count();
    }

    /** The table and the geometric mean, as {@code ./numaloom compare} prints them. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        String nl = System.lineSeparator();
        sb.append(lock).append(" / ").append(other).append(": throughput ratio per point, 95% interval over the rounds "
                + "(paired by round)").append(nl);
        int width = Math.max(5, points.stream().mapToInt(p -> p.bench().length()).max().orElse(5));
        sb.append(String.format(Locale.ROOT, "  %-" + width + "s %7s  %-32s %-7s %s%n", "bench", "threads", "ratio [95% interval]",
                "verdict", "rounds"));
        for (Point p : points) {
            PairedRatio.Estimate e = p.estimate();
            sb.append(String.format(Locale.ROOT, "  %-" + width + "s %7d  %-32s %-7s %d%n", p.bench(), p.threads(),
                    e.format(), verdictWord(e), e.rounds()));
        }
        PairedRatio.Estimate g = geometricMean();
        sb.append(String.format(Locale.ROOT, "Geometric mean over %d point%s: %s (%s). Faster at %d, slower at %d, tied at %d.%n",
                points.size(), points.size() == 1 ? "" : "s", g.format(),
                verdictWord(g), count(PairedRatio.Verdict.FASTER), count(PairedRatio.Verdict.SLOWER),
                count(PairedRatio.Verdict.TIED)));
        sb.append("A ratio is faster or slower only where its interval excludes 1; a point measured in one round has no "
                + "interval and no verdict.").append(nl);
        return sb.toString();
    }

    private static String verdictWord(PairedRatio.Estimate e) {
        return switch (e.verdict()) {
            case FASTER -> "faster";
            case SLOWER -> "slower";
            case TIED -> "tied";
            default -> "-";
        };
    }
}
