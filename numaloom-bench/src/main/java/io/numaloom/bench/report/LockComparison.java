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
 * <p>The same pairing compares waits: each round's longest (or 99.9th-percentile) acquire wait of {@code lock}'s
 * fork over {@code other}'s in the same round ({@link PointResult#roundLatencyMaxNs}), with the interval over the
 * rounds ({@link PairedRatio#of}: the rounds were planned on throughput, not on waits, so never Stein's). A mechanism
 * kept for the time bound rather than for throughput is judged on this.
 *
 * @param lock    the lock whose throughput (or wait) is the numerator
 * @param other   the lock it is compared with
 * @param points  one line per group where both have a measurement, in the order of the run's rows
 * @param measure what is compared
 */
public record LockComparison(String lock, String other, List<Point> points, Measure measure) {

    /** What the ratio is of. */
    public enum Measure {
        /** Operations per ms: above 1, {@code lock} is faster. */
        THROUGHPUT("throughput"),
        /** Each round's longest acquire wait: below 1, {@code lock}'s longest waits are shorter. */
        LONGEST_WAIT("longest acquire wait of each round"),
        /** Each round's 99.9th percentile of the acquire waits: below 1, shorter. */
        P999_WAIT("99.9th percentile of the acquire waits of each round");

        private final String words;

        Measure(String words) {
            this.words = words;
        }

        boolean isWait() {
            return this != THROUGHPUT;
        }
    }

    /** A comparison of throughputs. */
    public LockComparison(String lock, String other, List<Point> points) {
        this(lock, other, points, Measure.THROUGHPUT);
    }

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
        return read(dir, lock, other, Measure.THROUGHPUT);
    }

    /** Reads {@code results.json} of {@code dir} and compares {@code measure} of {@code lock} and {@code other}. */
    public static LockComparison read(Path dir, String lock, String other, Measure measure) throws IOException {
        if (!Files.exists(dir.resolve(ResultStore.JSON_FILE))) {
            throw new IllegalArgumentException(dir + " has no " + ResultStore.JSON_FILE + ": not a results directory of ./numaloom bench");
        }
        return of(ResultStore.load(dir), lock, other, measure);
    }

    /**
     * Compares {@code lock} with {@code other} over {@code rows}.
     *
     * @throws IllegalArgumentException if either lock has no measured row, or they never ran in the same group
     *         (the message lists the locks the rows have)
     */
    public static LockComparison of(List<PointResult> rows, String lock, String other) {
        return of(rows, lock, other, Measure.THROUGHPUT);
    }

    /**
     * Compares {@code measure} of {@code lock} and {@code other} over {@code rows}.
     *
     * @throws IllegalArgumentException as {@link #of(List, String, String)}, and for waits where no point of both
     *         has its rounds' waits (a run before they were recorded, or of a workload that records no latency)
     */
    public static LockComparison of(List<PointResult> rows, String lock, String other, Measure measure) {
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
                if (!measure.isWait()) {
                    points.add(new Point(r.bench(), r.threads(), Summary.estimate(r, o)));
                } else {
                    boolean longest = measure == Measure.LONGEST_WAIT;
                    double[] a = r.roundWaitSeries(longest);
                    double[] b = o.roundWaitSeries(longest);
                    if (a != null && b != null) {
                        points.add(new Point(r.bench(), r.threads(), PairedRatio.of(a, b)));
                    }
                }
            }
        });
        if (points.isEmpty() && measure.isWait() && !mine.isEmpty() && !theirs.isEmpty()) {
            throw new IllegalArgumentException("no point of " + lock + " and " + other + " has its rounds' waits: the run "
                    + "recorded none (a run written before they were recorded, or a workload without latency)");
        }
        if (points.isEmpty()) {
            throw new IllegalArgumentException(lock + " and " + other + " were never measured at the same bench and thread "
                    + "count in one session of this run, so nothing pairs them");
        }
        return new LockComparison(lock, other, List.copyOf(points), measure);
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
        sb.append(lock).append(" / ").append(other).append(": ").append(measure.words)
                .append(measure.isWait() ? ", ratio" : " ratio").append(" per point, 95% interval over the rounds (paired by round)").append(measure.isWait() ? "; below 1: " + lock + " waits less" : "")
                .append(nl);
        int width = Math.max(5, points.stream().mapToInt(p -> p.bench().length()).max().orElse(5));
        sb.append(String.format(Locale.ROOT, "  %-" + width + "s %7s  %-32s %-7s %s%n", "bench", "threads", "ratio [95% interval]",
                "verdict", "rounds"));
        for (Point p : points) {
            PairedRatio.Estimate e = p.estimate();
            sb.append(String.format(Locale.ROOT, "  %-" + width + "s %7d  %-32s %-7s %d%n", p.bench(), p.threads(),
                    e.format(), verdictWord(e), e.rounds()));
        }
        PairedRatio.Estimate g = geometricMean();
        String above = measure.isWait() ? "longer" : "faster";
        String below = measure.isWait() ? "shorter" : "slower";
        sb.append(String.format(Locale.ROOT, "Geometric mean over %d point%s: %s (%s). %s at %d, %s at %d, tied at %d.%n",
                points.size(), points.size() == 1 ? "" : "s", g.format(),
                verdictWord(g), Character.toUpperCase(above.charAt(0)) + above.substring(1), count(PairedRatio.Verdict.FASTER),
                below, count(PairedRatio.Verdict.SLOWER), count(PairedRatio.Verdict.TIED)));
        sb.append("A ratio is " + above + " or " + below + " only where its interval excludes 1; a point measured in one round has no "
                + "interval and no verdict.").append(nl);
        return sb.toString();
    }

    private String verdictWord(PairedRatio.Estimate e) {
        return switch (e.verdict()) {
            case FASTER -> measure.isWait() ? "longer" : "faster";
            case SLOWER -> measure.isWait() ? "shorter" : "slower";
            case TIED -> "tied";
            default -> "-";
        };
    }
}
