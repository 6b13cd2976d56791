package io.numaloom.bench.report;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link VarianceComponents} on forks whose two levels of noise are known, and on a point's log as the bench writes it. */
class VarianceComponentsTest {

    /** {@code forks} forks of {@code n} iterations: a fork's true mean off by sd {@code between}, each iteration by {@code within}. */
    private static List<List<Double>> forks(Random random, int forks, int n, double between, double within) {
        List<List<Double>> out = new ArrayList<>();
        for (int f = 0; f < forks; f++) {
            double mean = Math.log(0.020) + between * random.nextGaussian();
            List<Double> times = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                times.add(Math.exp(mean + within * random.nextGaussian()));
            }
            out.add(times);
        }
        return out;
    }

    @Test
    void recoversBothLevelsAndTheBestSplit() {
        Random random = new Random(2013);
        // Noise within a fork (sd 0.20) well above that between forks (0.05); a fork's rest costs 50 iterations.
        List<List<Double>> within = forks(random, 400, 5, 0.05, 0.20);
        double seconds = 400 * (1.0 + 5 * 0.020);
        VarianceComponents.Point p = VarianceComponents.of("g/VNA/2", within, seconds);
        assertEquals(400, p.forks());
        assertEquals(5, p.iterations());
        assertEquals(0.20, p.withinSd(), 0.01);
        assertEquals(0.05, p.betweenSd(), 0.015);
        assertEquals(0.020, p.iterationSeconds(), 0.002);
        assertEquals(1.0, p.forkSeconds(), 0.01);
        // sqrt((1.0 / 0.02) * (0.04 / 0.0025)) = sqrt(800), about 28.
        assertTrue(p.bestIterations() >= 18 && p.bestIterations() <= 45, "best " + p.bestIterations());
        assertTrue(p.text().contains("measured iterations per fork would narrow the intervals most"), p.text());

        // Noise between forks (0.30) far above that within (0.02): few iterations and more forks.
        VarianceComponents.Point q = VarianceComponents.of("g/VNA/8", forks(random, 400, 5, 0.30, 0.02), seconds);
        assertEquals(0.30, q.betweenSd(), 0.03);
        assertEquals(1, q.bestIterations(), "sqrt(50 * 0.0004 / 0.09), about 0.5: one iteration");
        assertTrue(q.text().contains("1 measured iteration per fork and more rounds"), q.text());
        assertEquals(Math.sqrt(0.09 + 0.0004 / 5), q.forkMeanSd(5), 0.02);
    }

    @Test
    void readsTheIterationsOfEachRoundOfAPointsLog() {
        List<String> log = List.of("=== round 1 ===", "# Warmup Iteration   1: 30.000 ms/op", "Iteration   1: 10.000 ms/op",
                "Iteration   2: 12.000 ms/op", "", "Result \"round\":", "=== round 2 ===", "Iteration   1: 11000.000 us/op",
                "Iteration   2: 0.013 s/op");
        List<List<Double>> forks = VarianceComponents.forks(log);
        assertEquals(2, forks.size());
        assertEquals(List.of(0.010, 0.012), forks.get(0), "warm-up iterations are not measured ones");
        assertEquals(0.011, forks.get(1).get(0), 1e-12);
        assertEquals(0.013, forks.get(1).get(1), 1e-12);

        assertNull(VarianceComponents.of("one fork", List.of(List.of(0.01, 0.02)), 1.0), "one fork: no level between forks");
        VarianceComponents.Point same = VarianceComponents.of("no spread between", List.of(List.of(0.01, 0.02), List.of(0.02, 0.01)),
                Double.NaN);
        assertEquals(0, same.betweenSd(), 1e-12);
        assertEquals(-1, same.bestIterations(), "no variance between forks beyond the iterations': more iterations always pay");
        assertTrue(Double.isNaN(same.forkSeconds()));
    }
}
