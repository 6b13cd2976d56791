package io.numaloom.bench.report;

import org.junit.jupiter.api.Test;

import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChartsTest {

    /** The title of default.json's short-cs-platform bench, which was cut to "hort critical sections" in its PNG. */
    private static final String LONG = "Short critical sections, platform threads (consumeCpu 100 tokens inside, none outside, no yields)";

    @Test
    void aLongTitleIsSetSmallerUntilItFitsThePlotWidth() {
        Font f = Charts.titleFont(LONG);
        assertTrue(f.getSize() < 16, "the long title must be set smaller than 16 pt, was " + f.getSize());
        Graphics2D g = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics();
        double w = Charts.titleWidth(g, f, LONG);
        assertTrue(w <= Charts.TITLE_BUDGET, "title " + w + " px wide, budget " + Charts.TITLE_BUDGET);
        assertTrue(w < Charts.WIDTH, "title wider than the image");
    }

    @Test
    void aShortTitleKeepsTheDefaultSize() {
        assertEquals(16, Charts.titleFont("High contention").getSize());
    }

    /** Up to three locks each get a band; with more, only the reference and the leading lock do. */
    @Test
    void bandsOnlyForTheReferenceAndTheLeaderWhenMoreThanThreeLocks() throws Exception {
        io.numaloom.bench.config.BenchConfig config = io.numaloom.bench.config.ConfigReader.parse("""
                { "benches": [ { "name": "randBash", "id": "b", "payload": { "threads": [1, 2],
                  "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" },
                             { "name": "SHFL" }, { "name": "NUMA_MCS" } ] } } ] }
                """, "b.json", 2, io.numaloom.bench.Mutex.names());
        io.numaloom.bench.config.BenchDefinition bench = config.activeBenches().getFirst();
        java.util.List<io.numaloom.bench.result.PointResult> rows = new java.util.ArrayList<>();
        double[] ops = {100, 50, 300, 80, 90};
        for (int i = 0; i < 5; i++) {
            for (int t : new int[] {1, 2}) {
                rows.add(SummaryTest.row("b", bench.locks().get(i), t, ops[i], ops[i] * 0.9, ops[i] * 1.1));
            }
        }
        assertEquals(java.util.Set.of("UNFAIR_REENTRANT", "SYNCHRONIZED"), Charts.bandedLocks(bench, rows));
        assertEquals(java.util.Set.of("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED"),
                Charts.bandedLocks(bench, rows.stream().filter(r -> !r.lock().equals("SHFL") && !r.lock().equals("NUMA_MCS")).toList()));
    }
}
