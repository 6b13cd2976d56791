package io.numaloom.bench.result;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatsTest {

    @Test
    void jainIndex() {
        assertEquals(1.0, Stats.jainIndex(new long[] {5, 5, 5, 5}), 1e-12);
        assertEquals(0.25, Stats.jainIndex(new long[] {8, 0, 0, 0}), 1e-12);
        assertEquals(0.9, Stats.jainIndex(new long[] {1, 2}), 1e-12);
        assertTrue(Double.isNaN(Stats.jainIndex(new long[] {0, 0})));
        assertTrue(Double.isNaN(Stats.jainIndex(new long[0])));
    }

    @Test
    void minMaxRatio() {
        assertEquals(1.0, Stats.minMaxRatio(new long[] {3, 3}), 1e-12);
        assertEquals(0.25, Stats.minMaxRatio(new long[] {1, 4, 2}), 1e-12);
        assertEquals(0.0, Stats.minMaxRatio(new long[] {0, 4}), 1e-12);
    }

    @Test
    void confidenceIntervalIsStudentsT() {
        Stats.Summary s = Stats.summarize(new double[] {1, 2, 3});
        assertEquals(2.0, s.mean(), 1e-12);
        // t(0.975, 2 degrees of freedom) = 4.302653, standard error = 1 / sqrt(3)
        assertEquals(4.302653 / Math.sqrt(3), s.halfWidth(), 1e-5);
        // Two values still give an interval: t(0.975, 1) = 12.706205, standard error = |a - b| / 2.
        assertEquals(12.706205 * 0.5, Stats.summarize(new double[] {1, 2}).halfWidth(), 1e-5);
        Stats.Summary one = Stats.summarize(new double[] {7});
        assertEquals(7.0, one.mean());
        assertTrue(Double.isNaN(one.ciLow()) && Double.isNaN(one.ciHigh()));
        assertTrue(Double.isNaN(Stats.summarize(new double[0]).mean()));
    }

    @Test
    void withSeveralForksTheIntervalIsOverTheForksMeans() {
        // Three JVMs whose rounds agree within each JVM, but one landed in a slower mode.
        List<double[]> forks = List.of(new double[] {46, 47, 47}, new double[] {80, 81, 82}, new double[] {46, 46, 47});
        Stats.Summary s = Stats.summarizeForks(forks);
        double[] means = {140.0 / 3, 81, 139.0 / 3};
        Stats.Summary overMeans = Stats.summarize(means);
        assertEquals(9, s.n(), "n counts the rounds");
        assertEquals(overMeans.mean(), s.mean(), 1e-12);
        assertEquals(overMeans.ciLow(), s.ciLow(), 1e-12);
        assertEquals(overMeans.ciHigh(), s.ciHigh(), 1e-12);
        // t(0.975, 2) = 4.302653 on the three means, not t(0.975, 8) on the nine rounds.
        double sd = Math.sqrt(((means[0] - s.mean()) * (means[0] - s.mean()) + (means[1] - s.mean()) * (means[1] - s.mean())
                + (means[2] - s.mean()) * (means[2] - s.mean())) / 2);
        assertEquals(4.302653 * sd / Math.sqrt(3), s.halfWidth(), 1e-4);
        double overRounds = Stats.summarize(new double[] {46, 47, 47, 80, 81, 82, 46, 46, 47}).halfWidth();
        assertTrue(s.halfWidth() > 1.5 * overRounds,
                "the rounds would claim " + overRounds + ", the forks support only " + s.halfWidth());
    }

    @Test
    void withOneForkTheIntervalIsOverItsRounds() {
        double[] rounds = {10, 11, 12};
        assertEquals(Stats.summarize(rounds), Stats.summarizeForks(List.of(rounds)));
        // A fork that measured nothing does not count as a fork.
        assertEquals(Stats.summarize(rounds), Stats.summarizeForks(List.of(rounds, new double[0])));
        assertTrue(Double.isNaN(Stats.summarizeForks(List.of()).mean()));
    }
}
