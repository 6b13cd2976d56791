package io.numaloom.bench.result;

import org.apache.commons.math3.distribution.TDistribution;

import java.util.List;

/** The statistics of the report: means with confidence intervals, and fairness of per-thread counts. */
public final class Stats {
    private Stats() {}

    /**
     * A sample's mean and its 95% confidence interval (Student's t with n - 1 degrees of freedom, as JMH
     * computes its score error, but also for two values, where JMH gives none). With one value the interval
     * is unknown: both bounds are NaN.
     */
    public record Summary(int n, double mean, double ciLow, double ciHigh) {
        public static final Summary EMPTY = new Summary(0, Double.NaN, Double.NaN, Double.NaN);

        /** Half the interval's width, NaN when unknown. */
        public double halfWidth() {
            return (ciHigh - ciLow) / 2;
        }
    }

    /** The mean of {@code values} with its 95% confidence interval. */
    public static Summary summarize(double[] values) {
        if (values.length == 0) {
            return Summary.EMPTY;
        }
        int n = values.length;
        double mean = mean(values);
        if (n < 2) {
            return new Summary(1, mean, Double.NaN, Double.NaN);
        }
        double squares = 0;
        for (double v : values) {
            squares += (v - mean) * (v - mean);
        }
        double standardError = Math.sqrt(squares / (n - 1) / n);
        double error = new TDistribution(n - 1).inverseCumulativeProbability(0.975) * standardError;
        return new Summary(n, mean, mean - error, mean + error);
    }

    /**
     * The mean of a measurement taken in several JVMs ({@code forks}, each a list of its rounds' values) with a 95%
     * confidence interval that counts the JVMs, not the rounds, as the independent samples: the interval of the forks'
     * means, Student's t with {@code forks - 1} degrees of freedom. Rounds of one JVM share its JIT decisions, heap
     * layout and thread placement, so they vary less than JVMs do, and an interval over all rounds is too narrow
     * whenever JVMs land in different modes (Kalibera and Jones, "Rigorous Benchmarking in Reasonable Time", ISMM
     * 2013: the variation at the highest level of repetition sets the interval). With one fork the JVMs' variation is
     * unknown and the interval is that of the rounds, as {@link #summarize(double[])} computes it. Forks without a
     * round are ignored. {@code n} is the number of rounds.
     */
    public static Summary summarizeForks(List<double[]> forks) {
        List<double[]> measured = forks.stream().filter(f -> f.length > 0).toList();
        int rounds = measured.stream().mapToInt(f -> f.length).sum();
        if (measured.size() < 2) {
            return summarize(measured.isEmpty() ? new double[0] : measured.getFirst());
        }
        double[] means = new double[measured.size()];
        for (int i = 0; i < means.length; i++) {
            means[i] = mean(measured.get(i));
        }
        Summary overForks = summarize(means);
        return new Summary(rounds, overForks.mean(), overForks.ciLow(), overForks.ciHigh());
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    /**
     * Jain's fairness index {@code (sum x)^2 / (n * sum x^2)}: 1 when every count is equal, {@code 1/n}
     * when one thread has everything; NaN for no counts or all zero.
     */
    public static double jainIndex(long[] counts) {
        if (counts == null || counts.length == 0) {
            return Double.NaN;
        }
        double sum = 0;
        double squares = 0;
        for (long c : counts) {
            sum += c;
            squares += (double) c * c;
        }
        return squares == 0 ? Double.NaN : sum * sum / (counts.length * squares);
    }

    /** The smallest count over the largest: 1 when all are equal; NaN for no counts or all zero. */
    public static double minMaxRatio(long[] counts) {
        if (counts == null || counts.length == 0) {
            return Double.NaN;
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long c : counts) {
            min = Math.min(min, c);
            max = Math.max(max, c);
        }
        return max == 0 ? Double.NaN : (double) min / max;
    }

    /** The mean of the finite values, NaN if there is none. */
    public static double meanOfFinite(double[] values) {
        double sum = 0;
        int n = 0;
        for (double v : values) {
            if (Double.isFinite(v)) {
                sum += v;
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }
}
