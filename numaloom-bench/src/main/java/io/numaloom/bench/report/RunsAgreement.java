package io.numaloom.bench.report;

import io.numaloom.bench.result.PairedRatio;
import org.apache.commons.math3.distribution.NormalDistribution;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What two or more runs of one configuration say about the verdict method itself (issue 73's bars): read from each
 * run's {@code summary.csv}, the rows that compare a lock with its bench's reference.
 *
 * <ul>
 * <li><b>A/A</b>: over every (point, run) pair of the reference's twin ({@link BestOther#TWIN}), how often it was
 *     judged different from the reference (a 95% interval should do so about 5% of the time), and how often its ratio
 *     lay within 0.9-1.1.</li>
 * <li><b>Repeatability</b>: per lock (the twin and the reference left out), at how many of the points that every run
 *     measured its verdict (faster, slower, tied) was the same in every run.</li>
 * <li><b>Precision</b>: per run, the median and the widest half-width of its intervals, {@code sqrt(high / low) - 1}
 *     (the interval is symmetric on the log scale: {@code ratio} times or divided by {@code 1 + h}).</li>
 * <li><b>Power</b>: the points where a lock was judged slower, or faster, in every run.</li>
 * </ul>
 * A.Georges et al. (OOPSLA 2007) and C. Laaber et al. (EMSE 2019) measure a method's false positives with such A/A
 * runs; this class only counts, it judges nothing beyond the bars it is given.
 */
public final class RunsAgreement {
    /** One baseline row of a run's {@code summary.csv}. */
    record Row(String bench, String lock, int threads, double ratio, String verdict, double low, double high) {
        String point() {
            return bench + " x" + threads;
        }

        boolean hasInterval() {
            return Double.isFinite(low) && Double.isFinite(high) && low > 0;
        }

        /** {@code sqrt(high / low) - 1}, or NaN without an interval. */
        double halfWidth() {
            return hasInterval() ? Math.sqrt(high / low) - 1 : Double.NaN;
        }

        String text() {
            return String.format(Locale.ROOT, "%s %.3fx %s", verdict, ratio,
                    hasInterval() ? String.format(Locale.ROOT, "[%.3f, %.3f]", low, high) : "[no interval]");
        }
    }

    /** A run: its directory and its baseline rows. */
    record Run(Path dir, List<Row> rows) {}

    private final List<Run> runs;

    private RunsAgreement(List<Run> runs) {
        this.runs = runs;
    }

    /**
     * Reads the {@code summary.csv} of each results directory.
     *
     * @throws IllegalArgumentException naming the directory, when it has no summary or a malformed one
     */
    public static RunsAgreement read(List<Path> dirs) throws IOException {
        if (dirs.size() < 2) {
            throw new IllegalArgumentException("need two or more results directories of the same configuration, got " + dirs.size());
        }
        List<Run> runs = new ArrayList<>();
        for (Path dir : dirs) {
            runs.add(new Run(dir, rows(dir)));
        }
        return new RunsAgreement(runs);
    }

    static List<Row> rows(Path dir) throws IOException {
        Path file = dir.resolve(Summary.FILE);
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(dir + " has no " + Summary.FILE + ": give a directory ./numaloom bench wrote "
                    + "(a run cut short writes it at its end; ./numaloom plot DIR writes it again)");
        }
        if (lines.isEmpty()) {
            throw new IllegalArgumentException(file + " is empty");
        }
        List<String> header = Arrays.asList(lines.getFirst().split(",", -1));
        int bench = column(header, "bench", file);
        int lock = column(header, "lock", file);
        int threads = column(header, "threads", file);
        int ratio = column(header, "ratio", file);
        int verdict = column(header, "verdict", file);
        int comparison = column(header, "comparison", file);
        int low = column(header, "ratioLow", file);
        int high = column(header, "ratioHigh", file);
        List<Row> rows = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",", -1);
            if (f.length < header.size()) {
                throw new IllegalArgumentException(file + ": line " + (i + 1) + " has " + f.length + " fields, the header "
                        + header.size());
            }
            if (!f[comparison].equals(Summary.CSV_BASELINE) || f[threads].equals("geomean")) {
                continue;
            }
            try {
                rows.add(new Row(f[bench], f[lock], Integer.parseInt(f[threads]), Double.parseDouble(f[ratio]), f[verdict],
                        number(f[low]), number(f[high])));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(file + ": line " + (i + 1) + ": not a number: " + e.getMessage(), e);
            }
        }
        return rows;
    }

    private static int column(List<String> header, String name, Path file) {
        int i = header.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException(file + " has no column " + name + " (written by a bench before the verdict "
                    + "method? ./numaloom plot DIR writes it again)");
        }
        return i;
    }

    private static double number(String s) {
        return s.isEmpty() ? Double.NaN : Double.parseDouble(s);
    }

    /** The A/A control over every run: the twin's pairs, those judged different, those within 0.9-1.1. */
    public record AaCount(int pairs, int different, int within10) {
        /** Whether the count of differences is more than a 5% rate explains (binomial, p < 0.05). */
        public boolean tooMany() {
            return PairedRatio.aaControl(pairs, different).tooNoisy();
        }
    }

    public AaCount aa() {
        int pairs = 0;
        int different = 0;
        int within = 0;
        for (Run run : runs) {
            for (Row r : run.rows()) {
                if (r.lock().equals(BestOther.TWIN) && r.hasInterval()) {
                    pairs++;
                    different += r.verdict().equals("tied") ? 0 : 1;
                    within += r.ratio() >= 0.9 && r.ratio() <= 1.1 ? 1 : 0;
                }
            }
        }
        return new AaCount(pairs, different, within);
    }

    /**
     * One lock's repeatability: the points every run measured with an interval, those whose verdicts agree, and how
     * many would agree on average if each point's true ratio were the runs' geometric mean and each run's interval
     * exact ({@link #expectedAgreement}).
     */
    public record LockAgreement(String lock, int points, int agreeing, double expected, List<String> disagreements) {}

    /**
     * The chance that every run gives the same verdict at one point, if its true log ratio were the mean of the runs'
     * and each run's estimate normal about it with the standard error its 95% interval implies
     * ({@code ln(high / low) / (2 * 1.96)}): a run says faster when its estimate is above 1.96 standard errors, slower
     * below -1.96, tied between. A point whose difference is near its interval's width is a coin toss between tied and
     * a mark even for an exact method: summed over the points, this separates verdicts that differ because the method
     * is off from verdicts that differ because the differences are as large as the precision.
     */
    static double expectedAgreement(List<Row> rows) {
        double logRatio = rows.stream().mapToDouble(r -> Math.log(r.ratio())).average().orElseThrow();
        double faster = 1;
        double slower = 1;
        double tied = 1;
        for (Row r : rows) {
            double se = Math.log(r.high() / r.low()) / (2 * Z);
            if (!(se > 0)) {
                return Double.NaN;
            }
            double f = 1 - NORMAL.cumulativeProbability(Z - logRatio / se);
            double sl = NORMAL.cumulativeProbability(-Z - logRatio / se);
            faster *= f;
            slower *= sl;
            tied *= 1 - f - sl;
        }
        return faster + slower + tied;
    }

    private static final double Z = PairedRatio.Z_975;
    private static final NormalDistribution NORMAL = new NormalDistribution(null, 0, 1);

    /** Per lock other than the twin, in the order the first run names them. */
    public List<LockAgreement> repeatability() {
        Set<String> locks = new LinkedHashSet<>();
        runs.getFirst().rows().forEach(r -> locks.add(r.lock()));
        locks.remove(BestOther.TWIN);
        List<LockAgreement> out = new ArrayList<>();
        for (String lock : locks) {
            Map<String, List<Row>> byPoint = new LinkedHashMap<>();
            for (Run run : runs) {
                for (Row r : run.rows()) {
                    if (r.lock().equals(lock) && r.hasInterval()) {
                        byPoint.computeIfAbsent(r.point(), k -> new ArrayList<>()).add(r);
                    }
                }
            }
            int points = 0;
            int agreeing = 0;
            double expected = 0;
            List<String> disagreements = new ArrayList<>();
            for (Map.Entry<String, List<Row>> e : byPoint.entrySet()) {
                if (e.getValue().size() != runs.size()) {
                    continue; // not measured (with an interval) by every run
                }
                points++;
                expected += expectedAgreement(e.getValue());
                if (e.getValue().stream().map(Row::verdict).distinct().count() == 1) {
                    agreeing++;
                } else {
                    disagreements.add(e.getKey() + ": " + String.join(" / ", e.getValue().stream().map(Row::text).toList()));
                }
            }
            if (points > 0) {
                out.add(new LockAgreement(lock, points, agreeing, expected, disagreements));
            }
        }
        return out;
    }

    /** A run's precision: its intervals, their median and widest half-width, and its directory. */
    public record Precision(Path dir, int intervals, double median, double widest) {}

    public List<Precision> precision() {
        List<Precision> out = new ArrayList<>();
        for (Run run : runs) {
            // The run's intervals as the report counts them (Summary.Precision: median, widest).
            Summary.Precision p = new Summary.Precision(
                    run.rows().stream().filter(Row::hasInterval).map(Row::halfWidth).sorted().toList(), 0, List.of());
            out.add(new Precision(run.dir(), p.halfWidths().size(), p.median(), p.widest()));
        }
        return out;
    }

    /** The (lock, point)s judged the same way, faster or slower, in every run. */
    public List<String> decidedInEveryRun(String verdict) {
        Objects.requireNonNull(verdict, "verdict");
        List<String> out = new ArrayList<>();
        for (LockAgreement a : repeatability()) {
            for (Row r : runs.getFirst().rows()) {
                if (!r.lock().equals(a.lock()) || !r.verdict().equals(verdict)) {
                    continue;
                }
                boolean every = runs.stream().allMatch(run -> run.rows().stream().anyMatch(x -> x.lock().equals(r.lock())
                        && x.point().equals(r.point()) && x.verdict().equals(verdict)));
                if (every) {
                    out.add(r.lock() + " at " + r.point());
                }
            }
        }
        return out;
    }

    /** The report, with the bars of issue 73 beside each figure. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        String nl = System.lineSeparator();
        sb.append("Runs: ").append(String.join(", ", runs.stream().map(r -> r.dir().toString()).toList())).append(nl);
        AaCount aa = aa();
        if (aa.pairs() == 0) {
            sb.append("A/A control: no run measured the twin (").append(BestOther.TWIN).append(") with an interval").append(nl);
        } else {
            sb.append(String.format(Locale.ROOT, "A/A control: the twin judged different at %d of %d (point, run) pairs "
                            + "(%.1f%%; bar: 5%% or less)%s; its ratio within 0.9-1.1 at %d (%.0f%%; bar: 90%% or more)%n",
                    aa.different(), aa.pairs(), 100.0 * aa.different() / aa.pairs(),
                    aa.tooMany() ? ", more than a 5% rate explains (binomial p < 0.05)" : "",
                    aa.within10(), 100.0 * aa.within10() / aa.pairs()));
        }
        List<LockAgreement> rep = repeatability();
        int points = rep.stream().mapToInt(LockAgreement::points).sum();
        int agreeing = rep.stream().mapToInt(LockAgreement::agreeing).sum();
        sb.append("Repeatability: each lock's verdict (faster, slower, tied) the same in every run").append(nl);
        for (LockAgreement a : rep) {
            sb.append(String.format(Locale.ROOT, "  %-20s %d of %d points (%.0f%%)%n", a.lock(), a.agreeing(), a.points(),
                    100.0 * a.agreeing() / a.points()));
        }
        if (points > 0) {
            sb.append(String.format(Locale.ROOT, "  %-20s %d of %d (%.0f%%; bar: 90%% or more)%n", "all", agreeing, points,
                    100.0 * agreeing / points));
            double expected = rep.stream().mapToDouble(LockAgreement::expected).sum();
            if (Double.isFinite(expected)) {
                sb.append(String.format(Locale.ROOT, "  %-20s %.1f of %d (%.0f%%): what an exact method would give on "
                                + "average, with these differences at these precisions%n", "expected", expected, points,
                        100.0 * expected / points));
            }
        }
        for (LockAgreement a : rep) {
            for (String d : a.disagreements()) {
                sb.append("  differs: ").append(a.lock()).append(" at ").append(d).append(nl);
            }
        }
        sb.append("Precision: the intervals' half-width, sqrt(high / low) - 1 (bar: median 5% or less)").append(nl);
        for (Precision p : precision()) {
            sb.append(String.format(Locale.ROOT, "  %s: median +-%.1f%%, widest +-%.1f%% over %d intervals%n", p.dir(),
                    100 * p.median(), 100 * p.widest(), p.intervals()));
        }
        List<String> slower = decidedInEveryRun("slower");
        List<String> faster = decidedInEveryRun("faster");
        sb.append("Slower in every run: ").append(slower.isEmpty() ? "none" : String.join("; ", slower)).append(nl);
        sb.append("Faster in every run: ").append(faster.isEmpty() ? "none" : String.join("; ", faster)).append(nl);
        return sb.toString();
    }
}
