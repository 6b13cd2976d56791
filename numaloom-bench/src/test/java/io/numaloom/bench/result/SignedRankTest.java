package io.numaloom.bench.result;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Hodges-Lehmann estimate and the signed-rank interval: the critical counts against the published table, the
 * estimate and interval of a sample worked by hand, robustness to a wild value, and coverage (seeded simulations)
 * under normal noise and under the slow mode of a JVM that the bench meets on this machine.
 */
class SignedRankTest {

    /**
     * The two-sided 5% critical values of Wilcoxon's signed-rank statistic (reject when T <= c), from the standard
     * tables (Hollander and Wolfe, table A.4): the interval leaves out c Walsh averages at each end.
     */
    @Test
    void theCriticalCountsMatchTheTable() {
        int[][] table = {{6, 0}, {7, 2}, {8, 3}, {9, 5}, {10, 8}, {12, 13}, {15, 25}, {20, 52}, {25, 89}, {30, 137}};
        for (int[] row : table) {
            assertEquals(row[1], SignedRank.leftOut(row[0]), "n = " + row[0]);
        }
    }

    @Test
    void theNormalApproximationTakesOverWhereTheCountStops() {
        int n = SignedRank.EXACT_UP_TO;
        int exact = SignedRank.leftOut(n);
        int approximate = (int) Math.floor(n * (n + 1) / 4.0 - 1.959963984540054 * Math.sqrt(n * (n + 1) * (2.0 * n + 1) / 24) - 0.5);
        assertTrue(Math.abs(exact - approximate) <= 2, exact + " against " + approximate);
        int beyond = SignedRank.leftOut(n + 1);
        assertTrue(beyond >= exact && beyond <= exact + n + 3, "monotone across the switch: " + exact + ", " + beyond);
    }

    /**
     * d = 1..6: the Walsh averages are symmetric about 3.5, and at six values the interval runs from the least to the
     * greatest (96.9%); at seven (c = 2) it leaves out two at each end.
     */
    @Test
    void samplesWorkedByHand() {
        SignedRank.Interval six = SignedRank.of(new double[] {4, 1, 6, 3, 2, 5});
        assertEquals(3.5, six.estimate(), 1e-12);
        assertEquals(1, six.low(), 1e-12);
        assertEquals(6, six.high(), 1e-12);
        SignedRank.Interval seven = SignedRank.of(new double[] {4, 1, 7, 3, 2, 5, 6});
        assertEquals(4, seven.estimate(), 1e-12);
        assertEquals(2, seven.low(), 1e-12); // the smallest Walsh averages: 1, 1.5, 2, 2, 2.5, ...
        assertEquals(6, seven.high(), 1e-12);
    }

    @Test
    void aWildValueMovesTheEstimateByLittle() {
        double[] d = new double[20];
        Random random = new Random(3);
        for (int i = 0; i < d.length; i++) {
            d[i] = 0.05 + 0.02 * random.nextGaussian();
        }
        double before = SignedRank.of(d).estimate();
        double[] wild = d.clone();
        wild[7] = Math.log(3); // one fork at a third of the speed, on the reference's side
        double after = SignedRank.of(wild).estimate();
        double meanShift = (wild[7] - d[7]) / d.length;
        assertTrue(Math.abs(after - before) < 0.01, before + " -> " + after);
        assertTrue(meanShift > 0.05, "the mean would have moved by " + meanShift);
    }

    @Test
    void tooFewValuesOrAValueThatIsNotFiniteIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> SignedRank.of(new double[5]));
        double[] nan = new double[8];
        nan[3] = Double.NaN;
        assertThrows(IllegalArgumentException.class, () -> SignedRank.of(nan));
    }

    /**
     * The interval covers the centre 95% of the time or a little more (the statistic is discrete), under normal
     * noise, under the slow mode of a JVM (one fork in seven at a third of the speed, on either side of a pair),
     * and under two steady states per JVM (190 or 320 ms a round); and the two locks' forks differ by a known ratio.
     */
    @Test
    void theIntervalCoversTheCentreWhateverTheTails() {
        Random random = new Random(6);
        int experiments = 3_000;
        for (String noise : new String[] {"normal", "slow mode", "two states"}) {
            for (int n : new int[] {6, 9, 15, 26}) {
                int covered = 0;
                for (int e = 0; e < experiments; e++) {
                    double[] d = new double[n];
                    for (int r = 0; r < n; r++) {
                        d[r] = 0.07 + fork(random, noise) - fork(random, noise);
                    }
                    SignedRank.Interval i = SignedRank.of(d);
                    if (i.low() <= 0.07 && 0.07 <= i.high()) {
                        covered++;
                    }
                }
                double coverage = (double) covered / experiments;
                // 3,000 experiments: the binomial sd at 95% is 0.004; the level reached is 95-97%.
                assertTrue(coverage > 0.937 && coverage < 0.985, noise + ", " + n + " values: coverage " + coverage);
            }
        }
    }

    /** On the log scale, one fork's deviation from its lock's steady speed. */
    static double fork(Random random, String noise) {
        double d = 0.05 * random.nextGaussian();
        return switch (noise) {
            case "normal" -> d;
            case "slow mode" -> random.nextInt(7) == 0 ? d + Math.log(1 / 3.0) : d;
            case "two states" -> random.nextInt(5) < 2 ? d + Math.log(190 / 320.0) : d;
            default -> throw new IllegalArgumentException(noise);
        };
    }

    /** Under the slow mode the rank interval is far narrower than Student's t over the same rounds. */
    @Test
    void underTheSlowModeTheRankIntervalIsNarrowerThanStudentsT() {
        Random random = new Random(61);
        int experiments = 1_000;
        double[] rank = new double[experiments];
        double[] t = new double[experiments];
        for (int e = 0; e < experiments; e++) {
            double[] d = new double[26];
            for (int r = 0; r < d.length; r++) {
                d[r] = fork(random, "slow mode") - fork(random, "slow mode");
            }
            SignedRank.Interval i = SignedRank.of(d);
            rank[e] = (i.high() - i.low()) / 2;
            double mean = Arrays.stream(d).average().orElseThrow();
            double s = Math.sqrt(Arrays.stream(d).map(v -> (v - mean) * (v - mean)).sum() / (d.length - 1));
            t[e] = PairedRatio.tQuantile(d.length - 1) * s / Math.sqrt(d.length);
        }
        Arrays.sort(rank);
        Arrays.sort(t);
        double rankMedian = rank[experiments / 2];
        double tMedian = t[experiments / 2];
        assertTrue(rankMedian < 0.6 * tMedian, "median half-widths: rank " + rankMedian + ", t " + tMedian);
    }
}
