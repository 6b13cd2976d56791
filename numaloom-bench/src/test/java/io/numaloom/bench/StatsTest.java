package io.numaloom.bench;

import org.junit.jupiter.api.Test;

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
}
