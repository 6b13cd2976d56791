package io.numaloom.bench.report;

import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two locks of one run judged against each other ({@link LockComparison}), on rows whose rounds are known. */
class LockComparisonTest {

    private static PointResult rounds(String bench, String lock, int threads, double... means) {
        return SummaryTest.rounds(bench, lock, threads, "budget", means);
    }

    @Test
    void pairsTheTwoLocksRoundByRoundAtEveryGroupWhereBothRan() {
        List<PointResult> rows = List.of(
                rounds("b", "UNFAIR_REENTRANT", 2, 100, 100, 100, 100),
                rounds("b", "VNA", 2, 100, 120, 90, 110),
                // VNA-x reads 0.9 of VNA in every round: whatever the round shares cancels.
                rounds("b", "VNA-x", 2, 90, 108, 81, 99),
                rounds("b", "VNA", 8, 200, 210, 190, 205),
                rounds("b", "VNA-x", 8, 202, 205, 195, 204),
                rounds("c", "VNA", 2, 50, 50, 50),          // VNA-x did not run in c
                rounds("b", "VNA-x", 32, 10, 11, 12));      // nor VNA at 32 threads
        LockComparison c = LockComparison.of(rows, "VNA-x", "VNA");
        assertEquals(2, c.points().size(), c.points().toString());

        LockComparison.Point x2 = c.points().getFirst();
        assertEquals("b", x2.bench());
        assertEquals(2, x2.threads());
        assertEquals(0.9, x2.estimate().ratio(), 1e-9);
        assertEquals(PairedRatio.Verdict.SLOWER, x2.estimate().verdict(), "no spread: the interval is the point 0.9");

        LockComparison.Point x8 = c.points().get(1);
        double[] mine = {202, 205, 195, 204};
        double[] theirs = {200, 210, 190, 205};
        PairedRatio.Estimate expected = PairedRatio.of(mine, theirs);
        assertEquals(expected.ratio(), x8.estimate().ratio(), 1e-12);
        assertEquals(expected.low(), x8.estimate().low(), 1e-12);
        assertEquals(PairedRatio.Verdict.TIED, x8.estimate().verdict());

        PairedRatio.Estimate g = c.geometricMean();
        assertEquals(Math.sqrt(0.9 * expected.ratio()), g.ratio(), 1e-9);
        assertEquals(1, c.count(PairedRatio.Verdict.SLOWER));
        assertEquals(1, c.count(PairedRatio.Verdict.TIED));

        String text = c.text();
        assertTrue(text.startsWith("VNA-x / VNA: throughput ratio per point"), text);
        assertTrue(text.contains("0.90x [0.90, 0.90]"), text);
        assertTrue(text.contains("Geometric mean over 2 points: "), text);
        assertTrue(text.contains("Faster at 0, slower at 1, tied at 1."), text);
    }

    @Test
    void unknownOrNeverPairedLocksAreNamed() {
        List<PointResult> rows = List.of(rounds("b", "VNA", 2, 1, 2), rounds("c", "VNA-x", 2, 1, 2));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> LockComparison.of(rows, "VNA-y", "VNA"));
        assertEquals("no lock 'VNA-y' in this run (did you mean 'VNA-x'?); its locks: VNA, VNA-x", unknown.getMessage());
        IllegalArgumentException apart = assertThrows(IllegalArgumentException.class,
                () -> LockComparison.of(rows, "VNA-x", "VNA"));
        assertTrue(apart.getMessage().contains("were never measured at the same bench and thread count"), apart.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LockComparison.of(rows, "VNA", "VNA"));
    }

    @Test
    void readsAResultsDirectory(@TempDir Path dir) throws IOException {
        ResultStore store = ResultStore.open(dir);
        store.add(rounds("b", "VNA", 2, 100, 100, 100));
        store.add(rounds("b", "VNA-x", 2, 110, 110, 110));
        LockComparison c = LockComparison.read(dir, "VNA-x", "VNA");
        assertEquals(1.1, c.points().getFirst().estimate().ratio(), 1e-9);
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> LockComparison.read(dir.resolve("nothing"), "VNA-x", "VNA"));
        assertTrue(none.getMessage().contains("has no results.json"), none.getMessage());
    }
}
