package io.numaloom.bench;

import org.apache.commons.math3.distribution.TDistribution;

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
        double mean = 0;
        for (double v : values) {
            mean += v;
        }
        mean /= n;
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
