package io.numaloom.bench.report;

import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a run's noise lives, per point: between the measured iterations of one JVM, or between JVMs (forks, one per
 * round), and how many measured iterations per fork would narrow the intervals most for the time spent.
 *
 * <p>The two levels of T. Kalibera and R. Jones, "Rigorous Benchmarking in Reasonable Time" (ISMM 2013), on the log of
 * each measured iteration's time: {@code w}, the variance within a fork (pooled over the forks), and {@code b}, the
 * variance of the forks' true means, estimated as the variance of the fork means less {@code w / n} for {@code n}
 * iterations per fork. A fork's mean then varies by {@code b + w / n}; a fork costs {@code c0} (the JVM's start and its
 * warm-up) plus {@code n * c1}. Per unit of time, the variance of the estimate is least at
 * {@code n = sqrt((c0 / c1) * (w / b))} (their equation for two levels); where {@code b} is not above zero, more
 * iterations always pay, up to what a fork can afford.
 *
 * <p>Read from a results directory: each point's log ({@code logs/<point>.log}, JMH's lines
 * {@code Iteration N: T ms/op} under {@code === round R ===}) and its row in {@code results.csv} (its seconds, for the
 * costs). A diagnosis, not a verdict: its variances come from the rounds the run had.
 */
public final class VarianceComponents {
    private static final Pattern ROUND = Pattern.compile("^=== round (\\d+) ===");
    private static final Pattern ITERATION = Pattern.compile("^Iteration\\s+\\d+: ([0-9.]+) (\\S+)");

    /**
     * One point's components.
     *
     * @param forks          forks (rounds) with two or more measured iterations
     * @param iterations     measured iterations per fork (the fewest of any fork)
     * @param withinSd       sd of an iteration's log time within a fork ({@code sqrt w})
     * @param betweenSd      sd of the forks' true mean log times ({@code sqrt b}, 0 where the estimate is not above 0)
     * @param iterationSeconds mean time of a measured iteration ({@code c1})
     * @param forkSeconds    the rest of a fork's time ({@code c0}: start, warm-up), from the point's seconds; NaN if unknown
     * @param bestIterations the iterations per fork that minimise the variance per unit of time, or -1 where more always
     *                       pay ({@code b} not above 0)
     */
    public record Point(String key, int forks, int iterations, double withinSd, double betweenSd, double iterationSeconds,
                        double forkSeconds, int bestIterations) {
        /** The sd of a fork's mean log time with {@code n} iterations: {@code sqrt(b + w / n)}. */
        public double forkMeanSd(int n) {
            return Math.sqrt(betweenSd * betweenSd + withinSd * withinSd / n);
        }

        String text() {
            String advice;
            if (bestIterations < 0) {
                advice = "more iterations per fork always pay here (no variance between forks beyond the iterations')";
            } else if (bestIterations > iterations * 3 / 2) {
                advice = "about " + bestIterations + " measured iterations per fork would narrow the intervals most for the time";
            } else if (bestIterations < iterations * 2 / 3) {
                advice = "about " + bestIterations + " measured iteration" + (bestIterations == 1 ? "" : "s")
                        + " per fork and more rounds would narrow the intervals most for the time";
            } else {
                advice = "near the best split of iterations and forks for the time";
            }
            return String.format(Locale.ROOT, "  %-44s %3d forks x %2d: within a fork %5.1f%%, between forks %5.1f%%, "
                            + "iteration %s, fork %s; %s", key, forks, iterations, 100 * withinSd, 100 * betweenSd,
                    seconds(iterationSeconds), seconds(forkSeconds), advice);
        }

        private static String seconds(double s) {
            return Double.isNaN(s) ? "?" : s < 1 ? String.format(Locale.ROOT, "%.0f ms", s * 1000)
                    : String.format(Locale.ROOT, "%.1f s", s);
        }
    }

    private VarianceComponents() {}

    /** The components of every point of {@code dir} whose log has two or more forks of two or more iterations. */
    public static List<Point> of(Path dir) throws IOException {
        Path logs = dir.resolve("logs");
        if (!Files.isDirectory(logs)) {
            throw new IllegalArgumentException(dir + " has no logs/ folder: give a directory ./numaloom bench wrote");
        }
        List<Point> out = new ArrayList<>();
        for (PointResult r : ResultStore.load(dir)) {
            if (!r.ok()) {
                continue;
            }
            Path log = logs.resolve(r.bench() + "_" + r.lock() + "_" + r.threads() + ".log"); // Point.fileStem
            if (!Files.exists(log)) {
                continue;
            }
            List<List<Double>> forks = forks(Files.readAllLines(log));
            Point p = of(r.key(), forks, r.seconds());
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    /** Each round's measured iteration times, in seconds, from a point's log. */
    static List<List<Double>> forks(List<String> lines) {
        List<List<Double>> forks = new ArrayList<>();
        List<Double> current = null;
        for (String line : lines) {
            if (ROUND.matcher(line).find()) {
                current = new ArrayList<>();
                forks.add(current);
                continue;
            }
            Matcher m = ITERATION.matcher(line);
            if (m.find()) {
                if (current == null) { // a log of one fork, without round headings
                    current = new ArrayList<>();
                    forks.add(current);
                }
                current.add(Double.parseDouble(m.group(1)) * unitSeconds(m.group(2)));
            }
        }
        return forks;
    }

    private static double unitSeconds(String unit) {
        return switch (unit.substring(0, unit.indexOf('/') < 0 ? unit.length() : unit.indexOf('/'))) {
            case "ns" -> 1e-9;
            case "us" -> 1e-6;
            case "ms" -> 1e-3;
            case "s" -> 1;
            default -> 1e-3;
        };
    }

    /**
     * The components of one point from its forks' iteration times (seconds) and the point's total seconds (NaN if
     * unknown); null with fewer than two forks of two or more iterations.
     */
    static Point of(String key, List<List<Double>> forks, double totalSeconds) {
        List<List<Double>> usable = forks.stream().filter(f -> f.size() >= 2 && f.stream().allMatch(t -> t > 0)).toList();
        if (usable.size() < 2) {
            return null;
        }
        int n = usable.stream().mapToInt(List::size).min().orElseThrow();
        double withinSum = 0;
        int withinDf = 0;
        double[] means = new double[usable.size()];
        double timeSum = 0;
        int timeCount = 0;
        for (int i = 0; i < usable.size(); i++) {
            List<Double> f = usable.get(i);
            double mean = f.stream().mapToDouble(Math::log).average().orElseThrow();
            means[i] = mean;
            for (double t : f) {
                withinSum += (Math.log(t) - mean) * (Math.log(t) - mean);
                timeSum += t;
                timeCount++;
            }
            withinDf += f.size() - 1;
        }
        double w = withinSum / withinDf;
        double grand = java.util.Arrays.stream(means).average().orElseThrow();
        double meansVar = java.util.Arrays.stream(means).map(m -> (m - grand) * (m - grand)).sum() / (means.length - 1);
        double b = Math.max(0, meansVar - w / n);
        double c1 = timeSum / timeCount;
        double perFork = totalSeconds / usable.size();
        double c0 = Double.isNaN(totalSeconds) ? Double.NaN : Math.max(perFork - n * c1, c1);
        int best = b <= 0 ? -1 : (int) Math.max(1, Math.round(Math.sqrt((Double.isNaN(c0) ? c1 : c0) / c1 * w / b)));
        return new Point(key, usable.size(), n, Math.sqrt(w), Math.sqrt(b), c1, c0, best);
    }

    /** The report: a line per point. */
    public static String text(Path dir, List<Point> points) {
        StringBuilder sb = new StringBuilder("Where the noise lives, per point (sd of the log of an iteration's time; Kalibera and Jones, ISMM 2013)")
                .append(System.lineSeparator());
        if (points.isEmpty()) {
            sb.append("  no point of ").append(dir).append(" has two or more forks of two or more measured iterations")
                    .append(System.lineSeparator());
        }
        points.forEach(p -> sb.append(p.text()).append(System.lineSeparator()));
        return sb.toString();
    }
}
