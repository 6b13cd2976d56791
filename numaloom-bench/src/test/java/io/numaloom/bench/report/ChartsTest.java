package io.numaloom.bench.report;

import org.junit.jupiter.api.Test;

import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /**
     * A bench with its reference gets a ratio plot, as a line chart over thread counts or bars at one thread count;
     * none where no lock has a ratio (the reference measured nothing).
     */
    @Test
    void aRatioPlotIsDrawnWhereThereAreRatiosAndOnlyThere(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        io.numaloom.bench.config.BenchConfig config = io.numaloom.bench.config.ConfigReader.parse("""
                { "benches": [ { "name": "randBash", "id": "m", "payload": { "threads": [1, 2, 4],
                  "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] } },
                  { "name": "randBash", "id": "s", "payload": { "threads": [4],
                  "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] } } ] }
                """, "r.json", 2, io.numaloom.bench.Mutex.names());
        java.util.List<io.numaloom.bench.result.PointResult> rows = new java.util.ArrayList<>();
        for (String b : java.util.List.of("m", "s")) {
            for (int t : b.equals("m") ? new int[] {1, 2, 4} : new int[] {4}) {
                rows.add(SummaryTest.rounds(b, "UNFAIR_REENTRANT", t, "precision", 100, 104, 97, 99));
                rows.add(SummaryTest.rounds(b, "VNA", t, t == 2 ? "budget" : "precision",
                        t == 2 ? new double[] {120} : new double[] {120, 130, 118, 121}));
            }
        }
        java.util.List<String> order = Report.lockOrder(config);
        java.util.List<Summary.BenchSummary> summaries = Summary.of(config, rows);
        for (int i = 0; i < 2; i++) {
            io.numaloom.bench.config.BenchDefinition bench = config.activeBenches().get(i);
            assertTrue(Charts.drawRatio(bench, summaries.get(i), order, dir), bench.id());
            assertTrue(java.nio.file.Files.size(Charts.ratioPng(dir, bench)) > 10_000, bench.id());
            assertTrue(java.nio.file.Files.readString(Charts.ratioSvg(dir, bench)).contains("</svg>"), bench.id());
        }
        assertEquals(dir.resolve("m-ratio.png"), Charts.ratioPng(dir, config.activeBenches().getFirst()));

        io.numaloom.bench.config.BenchDefinition m = config.activeBenches().getFirst();
        java.nio.file.Path empty = java.nio.file.Files.createDirectory(dir.resolve("empty"));
        Summary.BenchSummary noReference = Summary.of(config, rows.stream()
                .filter(r -> !r.lock().equals("UNFAIR_REENTRANT")).toList()).getFirst();
        assertFalse(Charts.drawRatio(m, noReference, order, empty), "no ratio without the reference's points");
        assertFalse(java.nio.file.Files.exists(Charts.ratioPng(empty, m)) || java.nio.file.Files.exists(Charts.ratioSvg(empty, m)));
    }
}
