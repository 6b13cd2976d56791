package io.numaloom.bench.result;

import org.apache.commons.math3.distribution.BinomialDistribution;
import org.apache.commons.math3.distribution.TDistribution;

import java.util.Arrays;
import java.util.List;

/**
 * The ratio of a lock's throughput to the reference's, estimated from forks paired by round, with its own 95%
 * interval, and the verdict that interval allows.
 *
 * <p><b>Idea.</b> A run measures in rounds: one fork (a fresh JVM) of every lock of a point per round, in a
 * shuffled order, so that whatever the machine does meanwhile falls on every lock alike (Abedi and Brecht,
 * "Conducting Repeatable Experiments in Highly Variable Cloud Computing Environments", ICPE 2017: randomized
 * multiple interleaved trials). A fork's mean over its measured iterations is one observation; the iterations of
 * one JVM share its JIT decisions, heap layout and thread placement and are never counted as independent
 * (Georges, Buytaert and Eeckhout, "Statistically Rigorous Java Performance Evaluation", OOPSLA 2007). In round
 * {@code r} the lock's fork mean {@code x[r]} and the reference's {@code y[r]} give {@code d[r] = ln x[r] - ln y[r]};
 * the rounds' {@code d} are independent, and what a round shares (the machine's weather while it ran) cancels in
 * the difference. The estimate is the ratio itself with its own interval, not two intervals compared (Kalibera and
 * Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013). On the log scale a ratio and its inverse are
 * symmetric, so "1.10x faster" and "0.91x" carry the same evidence.
 *
 * <p><b>Estimator.</b> From {@value SignedRank#MIN_ROUNDS} rounds on, the ratio is {@code exp} of the
 * Hodges-Lehmann estimate of the {@code d}, with the 95% interval of Wilcoxon's signed-rank test ({@link SignedRank}).
 * A fork now and then runs in a slow mode of its JVM, whatever the lock (a bounded queue on 2 cores: one JVM in
 * seven at a third of the speed; the thesis's high contention: two steady states per JVM, 190 or 320 ms a round;
 * docs/measurements.md M6), and the mean of the {@code d} then moves with how many slow forks each lock happened to
 * draw: an identical twin read 0.78-1.17 of its reference there. The rank estimate moves by at most one rank per such
 * fork, and its interval holds for any noise symmetric about the ratio, which a twin's always is. With 2-5 rounds,
 * where no rank interval reaches 95%, it is {@code exp(mean d)} with Student's t interval
 * {@code exp(mean d -+ t(0.975, n-1) * s / sqrt n)}.
 *
 * <p><b>Verdict.</b> Faster where the interval's low end is above 1, slower where its high end is below 1, tied
 * otherwise; with fewer than two rounds there is no interval and no verdict ({@link Verdict#UNKNOWN}). At a 95%
 * interval, an identical twin of the reference is judged different in about 5% of its points: the A/A control
 * ({@link #aaControl}) checks that a run stays near that rate.
 *
 * <p><b>Precision.</b> The interval's half-width on the ratio's scale, {@code exp(t * s / sqrt n) - 1}. A run that
 * is asked for a precision {@code P} (±5%) cannot simply add rounds until the interval is that narrow: it would
 * stop whenever the rounds so far happen to agree, and the interval it then reports covers the true ratio less
 * often than it says (simulated, PairedRatioTest: 91-93% instead of 95% with 3 to 5 rounds first). So the number
 * of rounds is planned from a pilot, as in C. Stein's two-stage procedure ("A two-sample test for a linear
 * hypothesis whose power is independent of the variance", Ann. Math. Statist. 16, 1945): after {@code n0} rounds
 * with standard deviation {@code s0} of the log differences, a point needs
 * {@code N = max(n0, ceil((t(0.975, n0-1) * s0 / ln(1 + P))^2))} rounds ({@link #plannedRounds}), and once it has
 * them its interval is {@code mean d -+ t(0.975, n0-1) * s0 / sqrt N} ({@link #stein}), whose coverage is exactly
 * 95% for normal noise, because {@code N} depends on the pilot alone. With {@value SignedRank#MIN_ROUNDS} rounds or
 * more, the interval reported is the hull of Stein's and the rank interval, centred on the rank estimate: it covers
 * wherever either does, so a slow fork after the pilot cannot make it lie. A point that stops for another reason
 * (its time budget, a fixed number of rounds) stopped independently of its data and reports the plain interval
 * ({@link #of}).
 */
public final class PairedRatio {
    private PairedRatio() {}

    /** The standard normal's 0.975 quantile: the half-width of a 95% interval in standard errors. */
    public static final double Z_975 = 1.959963984540054;

    /** What an interval on a ratio allows one to say. */
    public enum Verdict {
        /** The interval lies above 1. */
        FASTER,
        /** The interval lies below 1. */
        SLOWER,
        /** The interval contains 1. */
        TIED,
        /** Fewer than two paired rounds: no interval. */
        UNKNOWN;

        /** The verdict's mark in tables: ▲ faster, ▼ slower, none otherwise. */
        public String mark() {
            return switch (this) {
                case FASTER -> "▲";
                case SLOWER -> "▼";
                default -> "";
            };
        }
    }

    /**
     * A ratio and its 95% interval over {@code rounds} paired rounds; {@code low} and {@code high} are NaN with
     * fewer than two rounds, and every field is NaN with none.
     */
    public record Estimate(int rounds, double ratio, double low, double high, Verdict verdict, double df) {
        /** No round. */
        public static final Estimate NONE = new Estimate(0, Double.NaN, Double.NaN, Double.NaN, Verdict.UNKNOWN);

        /** An estimate whose interval's degrees of freedom are not known (NaN). */
        public Estimate(int rounds, double ratio, double low, double high, Verdict verdict) {
            this(rounds, ratio, low, high, verdict, Double.NaN);
        }

        /**
         * The interval's half-width relative to the ratio, {@code sqrt(high / low) - 1} (0.05 for a ratio known
         * to within about ±5%); infinite with fewer than two rounds.
         */
        public double halfWidth() {
            return rounds < 2 ? Double.POSITIVE_INFINITY : Math.sqrt(high / low) - 1;
        }

        /** Whether the interval is known and within {@code precision} (0.05 for ±5%). */
        public boolean within(double precision) {
            return halfWidth() <= precision;
        }

        /** {@code 1.12x [1.05, 1.19]}, or {@code 1.12x [one fork: no interval]}; {@code -} with no round. */
        public String format() {
            if (rounds == 0) {
                return "-";
            }
            if (rounds < 2) {
                return String.format(java.util.Locale.ROOT, "%.2fx [one round: no interval]", ratio);
            }
            return String.format(java.util.Locale.ROOT, "%.2fx [%.2f, %.2f]", ratio, low, high);
        }
    }

    /**
     * The ratio of {@code lock} to {@code reference}, each the fork means of one lock in rounds {@code 0..n-1}
     * ({@code lock[r]} and {@code reference[r]} measured in the same round). Rounds where either value is missing
     * (NaN), not positive or infinite are left out: a failed fork pairs with nothing. From
     * {@value SignedRank#MIN_ROUNDS} usable rounds the rank estimate and interval, below Student's t (class comment);
     * either way the estimate's {@code df} is {@code n - 1}.
     *
     * @throws IllegalArgumentException if the arrays differ in length
     */
    public static Estimate of(double[] lock, double[] reference) {
        double[] d = logDifferences(lock, reference);
        int n = d.length;
        if (n == 0) {
            return Estimate.NONE;
        }
        if (n >= SignedRank.MIN_ROUNDS) {
            SignedRank.Interval rank = SignedRank.of(d);
            return interval(n, rank.estimate(), rank.low(), rank.high(), n - 1);
        }
        double mean = mean(d, n);
        if (n < 2) {
            return new Estimate(1, Math.exp(mean), Double.NaN, Double.NaN, Verdict.UNKNOWN);
        }
        return estimate(n, mean, tQuantile(n - 1) * sd(d, n) / Math.sqrt(n), n - 1);
    }

    /**
     * Stein's first stage: the rounds a ratio needs for an interval within {@code precision} (0.05 for ±5%), from
     * the first {@code pilot} usable paired rounds of {@code lock} and {@code reference}; 0 while fewer than
     * {@code pilot} (at least 2) are there.
     */
    public static int plannedRounds(double[] lock, double[] reference, int pilot, double precision) {
        double[] d = logDifferences(lock, reference);
        if (pilot < 2 || d.length < pilot) {
            return 0;
        }
        double needed = Math.pow(tQuantile(pilot - 1) * sd(d, pilot) / Math.log1p(precision), 2);
        return (int) Math.min(Integer.MAX_VALUE, Math.max(pilot, Math.ceil(needed)));
    }

    /**
     * Stein's second stage: the estimate over every usable paired round, with the interval of the first
     * {@code pilot} rounds' variance ({@code t(0.975, pilot-1) * s0 / sqrt N}); for a point that ran the rounds
     * {@link #plannedRounds} asked for. With fewer usable rounds than {@code pilot} it is {@link #of}.
     */
    public static Estimate stein(double[] lock, double[] reference, int pilot) {
        double[] d = logDifferences(lock, reference);
        if (pilot < 2 || d.length < pilot) {
            return of(lock, reference);
        }
        double mean = mean(d, d.length);
        double error = tQuantile(pilot - 1) * sd(d, pilot) / Math.sqrt(d.length);
        if (d.length < SignedRank.MIN_ROUNDS) {
            return estimate(d.length, mean, error, pilot - 1);
        }
        // The hull of Stein's interval and the rank interval covers the ratio whenever either does.
        SignedRank.Interval rank = SignedRank.of(d);
        return interval(d.length, rank.estimate(), Math.min(mean - error, rank.low()), Math.max(mean + error, rank.high()),
                pilot - 1);
    }

    /** The usable paired rounds' {@code ln lock - ln reference}, in round order. */
    private static double[] logDifferences(double[] lock, double[] reference) {
        if (lock.length != reference.length) {
            throw new IllegalArgumentException("paired rounds differ in number: " + lock.length + " and " + reference.length);
        }
        double[] d = new double[lock.length];
        int n = 0;
        for (int r = 0; r < lock.length; r++) {
            if (usable(lock[r]) && usable(reference[r])) {
                d[n++] = Math.log(lock[r]) - Math.log(reference[r]);
            }
        }
        return Arrays.copyOf(d, n);
    }

    private static boolean usable(double v) {
        return Double.isFinite(v) && v > 0;
    }

    /** The sample standard deviation of the first {@code n} (at least 2) values of {@code d}. */
    private static double sd(double[] d, int n) {
        double mean = mean(d, n);
        double squares = 0;
        for (int i = 0; i < n; i++) {
            squares += (d[i] - mean) * (d[i] - mean);
        }
        return Math.sqrt(squares / (n - 1));
    }

    /** The mean of the first {@code n} values of {@code d}. */
    private static double mean(double[] d, int n) {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += d[i];
        }
        return sum / n;
    }

    /** The estimate {@code exp(mean)} with the interval {@code exp(mean -+ error)}, {@code error} a t-quantile at {@code df}. */
    private static Estimate estimate(int n, double mean, double error, double df) {
        return interval(n, mean, mean - error, mean + error, df);
    }

    /** The estimate {@code exp(centre)} with the interval {@code [exp(low), exp(high)]} and its verdict. */
    private static Estimate interval(int n, double centre, double low, double high, double df) {
        double l = Math.exp(low);
        double h = Math.exp(high);
        Verdict verdict = l > 1 ? Verdict.FASTER : h < 1 ? Verdict.SLOWER : Verdict.TIED;
        return new Estimate(n, Math.exp(centre), l, h, verdict, df);
    }

    /**
     * The geometric mean of independent ratios (points measured in different groups), with its 95% interval: on the log
     * scale the mean of the points' estimates, whose variance is the sum of theirs over the count squared; each point's
     * standard error is its interval's half-width over its own t-quantile (for a rank interval, over that of its
     * {@code n - 1}: the half-width of the rank interval is near the t interval's on normal noise). The mean's t-quantile takes the fewest
     * degrees of freedom of any point: conservative. (Welch-Satterthwaite's degrees of freedom, tried first, covered
     * 92% instead of 95% where a point of 3 rounds dominated, PairedRatioTest.) Without an interval (or its degrees of
     * freedom) at any point there is none.
     *
     * @return the mean and its interval (rounds: the number of points); {@link Estimate#NONE} for no point
     */
    public static Estimate geometricMean(List<Estimate> points) {
        if (points.isEmpty()) {
            return Estimate.NONE;
        }
        if (points.size() == 1) {
            return points.getFirst(); // the mean of one ratio is that ratio, with its own interval and rounds
        }
        int k = points.size();
        double sumLog = 0;
        double sumVar = 0;
        double fewestDf = Double.POSITIVE_INFINITY;
        boolean intervals = true;
        for (Estimate e : points) {
            sumLog += Math.log(e.ratio());
            if (!(e.low() > 0) || !(e.high() > 0) || !(e.df() >= 1)) {
                intervals = false;
                continue;
            }
            double halfWidth = Math.log(e.high() / e.low()) / 2;
            if (halfWidth <= 0) {
                continue; // no variance: adds nothing
            }
            double t = Double.isInfinite(e.df()) ? Z_975 : new TDistribution(e.df()).inverseCumulativeProbability(0.975);
            double se = halfWidth / t;
            sumVar += se * se;
            fewestDf = Math.min(fewestDf, e.df());
        }
        double mean = sumLog / k;
        if (!intervals) {
            return new Estimate(k, Math.exp(mean), Double.NaN, Double.NaN, Verdict.UNKNOWN);
        }
        if (sumVar == 0) {
            return estimate(k, mean, 0, Double.POSITIVE_INFINITY);
        }
        double t = Double.isInfinite(fewestDf) ? Z_975
                : new TDistribution(fewestDf).inverseCumulativeProbability(0.975);
        return estimate(k, mean, t * Math.sqrt(sumVar) / k, fewestDf);
    }

    /**
     * The ratio of two locks measured in different groups (a lock against itself at one thread, say), whose forks do
     * not pair: {@code exp(mean ln x - mean ln y)} with Welch's interval over the two sets of fork means (Student's t
     * at Welch-Satterthwaite's degrees of freedom). No interval with fewer than two usable values on either side.
     */
    public static Estimate unpaired(double[] lock, double[] reference) {
        double[] x = logs(lock);
        double[] y = logs(reference);
        if (x.length == 0 || y.length == 0) {
            return Estimate.NONE;
        }
        double mx = Arrays.stream(x).average().orElseThrow();
        double my = Arrays.stream(y).average().orElseThrow();
        int n = Math.min(x.length, y.length);
        if (x.length < 2 || y.length < 2) {
            return new Estimate(n, Math.exp(mx - my), Double.NaN, Double.NaN, Verdict.UNKNOWN);
        }
        double vx = Math.pow(sd(x, x.length), 2) / x.length;
        double vy = Math.pow(sd(y, y.length), 2) / y.length;
        double se = Math.sqrt(vx + vy);
        if (se == 0) {
            return estimate(n, mx - my, 0, Double.POSITIVE_INFINITY);
        }
        double df = (vx + vy) * (vx + vy) / (vx * vx / (x.length - 1) + vy * vy / (y.length - 1));
        double t = new TDistribution(df).inverseCumulativeProbability(0.975);
        return estimate(n, mx - my, t * se, df);
    }

    private static double[] logs(double[] values) {
        return Arrays.stream(values).filter(PairedRatio::usable).map(Math::log).toArray();
    }

    /** Student's t at 0.975 with {@code df} degrees of freedom. */
    static double tQuantile(int df) {
        return new TDistribution(df).inverseCumulativeProbability(0.975);
    }

    /**
     * Whether every estimate is within {@code precision} (0.05 for ±5%): the rule that ends a point's rounds
     * before its budget. An estimate with fewer than two rounds is never precise.
     */
    public static boolean precise(List<Estimate> estimates, double precision) {
        for (Estimate e : estimates) {
            if (!e.within(precision)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The A/A control of a run: {@code judgedDifferent} of {@code points} twin-against-reference ratios were judged
     * faster or slower, where each is so by chance with probability 0.05.
     *
     * @param points          the twin's points with a verdict (at least two rounds)
     * @param judgedDifferent how many of them were judged faster or slower
     * @param pValue          the chance of at least {@code judgedDifferent} such verdicts among {@code points} on a
     *                        machine where the method holds (binomial, 5% each)
     */
    public record AaControl(int points, int judgedDifferent, double pValue) {
        /** The rate at which the method judges an identical lock different: 1 - the interval's level. */
        public static final double FALSE_POSITIVE_RATE = 0.05;
        /** The p-value under which the run calls its machine too noisy for its verdicts. */
        public static final double TOO_NOISY_BELOW = 0.05;

        /**
         * Whether the twin was judged different more often than the method's 5% can explain (p-value under 0.05):
         * the run's verdicts then say more about the machine's noise than about the locks.
         */
        public boolean tooNoisy() {
            return points > 0 && pValue < TOO_NOISY_BELOW;
        }

        /** The fraction of the twin's points judged different; NaN with none. */
        public double fraction() {
            return points == 0 ? Double.NaN : (double) judgedDifferent / points;
        }

        /** One line for the console and the report. */
        public String describe() {
            if (points == 0) {
                return "A/A control: no twin point has an interval (one round each): no verdict can be checked";
            }
            return String.format(java.util.Locale.ROOT,
                    "A/A control: the reference's twin judged different at %d of %d points (%.0f%%; the method's rate is 5%%, p = %.2f): %s",
                    judgedDifferent, points, 100 * fraction(), pValue,
                    tooNoisy() ? "this machine was too noisy for the verdicts" : "passed");
        }
    }

    /** The A/A control of {@code judgedDifferent} of {@code points} twin ratios judged faster or slower. */
    public static AaControl aaControl(int points, int judgedDifferent) {
        double p = points == 0 || judgedDifferent == 0 ? 1.0
                : 1.0 - new BinomialDistribution(points, AaControl.FALSE_POSITIVE_RATE).cumulativeProbability(judgedDifferent - 1);
        return new AaControl(points, judgedDifferent, p);
    }

    /** The A/A control of the twin's estimates (those without a verdict are not counted). */
    public static AaControl aaControl(List<Estimate> twin) {
        int points = 0;
        int different = 0;
        for (Estimate e : twin) {
            if (e.verdict() == Verdict.UNKNOWN) {
                continue;
            }
            points++;
            if (e.verdict() != Verdict.TIED) {
                different++;
            }
        }
        return aaControl(points, different);
    }
}
