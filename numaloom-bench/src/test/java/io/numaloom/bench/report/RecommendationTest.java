package io.numaloom.bench.report;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import io.numaloom.bench.result.ResultsDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.numaloom.bench.report.SummaryTest.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The last block of a run, read from a results folder as the console and the report read it: every lock on the same
 * points, what to use and by how much, or a tie; never more than {@link Recommendation#MAX_LINES} lines.
 */
class RecommendationTest {
    /** Writes a results folder: the effective configuration and the rows, as a run leaves them. */
    static Path resultsFolder(Path dir, String configJson, List<PointResult> rows) throws Exception {
        BenchConfig config = ConfigReader.parse(configJson, "verdict.json", 2, ConfigReader.lockNames());
        Files.writeString(dir.resolve(ResultsDirectory.CONFIG_FILE), config.effective().toPrettyString() + "\n");
        ResultStore store = ResultStore.open(dir);
        for (PointResult r : rows) {
            store.add(r);
        }
        return dir;
    }

    /** Reference points, 100 ops/ms with an interval of 95-105, at every given bench and thread count. */
    static List<PointResult> reference(String bench, int... threads) {
        List<PointResult> rows = new ArrayList<>();
        for (int t : threads) {
            rows.add(row(bench, "UNFAIR_REENTRANT", t, 100, 95, 105));
        }
        return rows;
    }

    /**
     * As in the default run, the locks measured different points (SYNCHRONIZED is not in bench c, FAIR_REENTRANT not in
     * b, SHFL only in a): all are compared on the two points of a that every one of them measured, although VNA alone
     * also measured a very good point and a very bad one elsewhere; a keyed bench is named as compared elsewhere.
     */
    @Test
    void everyLockIsComparedOnThePointsAllOfThemMeasured(@TempDir Path dir) throws Exception {
        List<PointResult> rows = new ArrayList<>();
        rows.addAll(reference("a", 1, 2));
        rows.addAll(List.of(
                row("a", "VNA", 1, 150, 140, 160), row("a", "VNA", 2, 200, 190, 210),
                row("a", "FAIR_REENTRANT", 1, 50, 45, 55), row("a", "FAIR_REENTRANT", 2, 40, 36, 44),
                row("a", "SYNCHRONIZED", 1, 102, 90, 110), row("a", "SYNCHRONIZED", 2, 98, 90, 106),
                row("a", "SHFL", 1, 120, 112, 128), row("a", "SHFL", 2, 130, 120, 140)));
        rows.addAll(reference("b", 8));
        rows.addAll(List.of(row("b", "VNA", 8, 1000, 900, 1100), row("b", "SYNCHRONIZED", 8, 10, 9, 11)));
        rows.addAll(reference("c", 4));
        rows.addAll(List.of(row("c", "VNA", 4, 10, 9, 11), row("c", "FAIR_REENTRANT", 4, 500, 450, 550)));
        rows.addAll(List.of(row("k", "CHM_REENTRANT", 2, 100, 95, 105), row("k", "KEYED_LOCK", 2, 150, 140, 160)));
        resultsFolder(dir, """
                { "benches": [
                  { "name": "randBash", "id": "a", "payload": { "threads": [1, 2], "locks": [ { "name": "VNA" },
                    { "name": "UNFAIR_REENTRANT" }, { "name": "FAIR_REENTRANT" }, { "name": "SYNCHRONIZED" }, { "name": "SHFL" } ] } },
                  { "name": "randBash", "id": "b", "payload": { "threads": [8], "locks": [ { "name": "VNA" },
                    { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" } ] } },
                  { "name": "randBash", "id": "c", "payload": { "threads": [4], "locks": [ { "name": "VNA" },
                    { "name": "UNFAIR_REENTRANT" }, { "name": "FAIR_REENTRANT" } ] } },
                  { "name": "keyed", "id": "k", "payload": { "threads": [2], "locks": [ { "name": "KEYED_LOCK" },
                    { "name": "CHM_REENTRANT" } ] } } ] }
                """, rows);

        Recommendation r = Recommendation.read(dir);
        assertEquals(2, r.points());
        assertEquals("Verdict on the same 2 points for all 5 locks (a x1, 2): throughput / unfair ReentrantLock, "
                + "geometric mean with its 95% interval; at each point a tie where the ratio's 95% interval contains 1", r.header());
        assertEquals(List.of("VNA", "SHFL", "SYNCHRONIZED", "FAIR_REENTRANT"),
                r.standings().stream().map(Recommendation.Standing::lock).toList(), "best first");
        assertEquals(Math.sqrt(1.5 * 2.0), r.standings().get(0).geometricMean(), 1e-9, "VNA over a x1, a x2 only");
        assertEquals(Math.sqrt(1.02 * 0.98), r.standings().get(2).geometricMean(), 1e-9, "SYNCHRONIZED without b x8");
        assertEquals(Math.sqrt(0.5 * 0.4), r.standings().get(3).geometricMean(), 1e-9, "FAIR_REENTRANT without c x4");
        assertEquals(List.of(
                "  VNA             1.73x  faster at 2, tied at 0, slower at 0 of the 2 points",
                "  SHFL            1.25x  faster at 2, tied at 0, slower at 0 of the 2 points",
                "  SYNCHRONIZED    1.00x  tied within noise at all 2 points",
                "  FAIR_REENTRANT  0.45x  faster at 0, tied at 0, slower at 2 of the 2 points"), r.lockLines());
        assertEquals("Use VNA: 1.73x unfair ReentrantLock on these 2 points (faster at 2, slower at none); ahead of SHFL "
                + "(1.25x) at 2.", r.use(), "ahead at every point: no 'tied at the rest'");
        assertEquals(List.of("Not in this verdict, compared in each bench's table: KEYED_LOCK (against a ConcurrentHashMap "
                + "of ReentrantLocks)."), r.notes());
        assertTrue(r.lines().size() <= Recommendation.MAX_LINES, r.text());
        assertEquals(r.lines(), r.text().lines().toList());

        // The report's top says the same, line for line (drawn without its plots, which take seconds).
        BenchConfig config = ConfigReader.parseSaved(Files.readString(dir.resolve(ResultsDirectory.CONFIG_FILE)), "config.json");
        List<Report.Section> sections = config.activeBenches().stream()
                .map(b -> new Report.Section(b, rows.stream().filter(x -> x.bench().equals(b.id())).toList(), false)).toList();
        String html = Html.render(config, "{}", sections, Summary.of(config, rows), r, null, null);
        String top = html.substring(html.indexOf("id=\"verdict\""), html.indexOf("id=\"summary\""));
        for (String line : r.lines()) {
            assertTrue(top.contains(Html.esc(line.strip())), "index.html's verdict lacks: " + line + "\n" + top);
        }
        assertTrue(top.indexOf(Html.esc(r.use())) < top.indexOf("Each lock over every point it measured"),
                "the verdict comes before the lines over each lock's own points");
    }

    /** Where every interval overlaps the reference's, no lock is called faster or slower. */
    @Test
    void overlappingIntervalsAreATie(@TempDir Path dir) throws Exception {
        List<PointResult> rows = new ArrayList<>(reference("a", 1, 8));
        rows.addAll(List.of(row("a", "VNA", 1, 104, 96, 112), row("a", "VNA", 8, 110, 98, 122),
                row("a", "SYNCHRONIZED", 1, 97, 90, 104), row("a", "SYNCHRONIZED", 8, 101, 94, 108)));
        resultsFolder(dir, """
                { "benches": [ { "name": "randBash", "id": "a", "payload": { "threads": [1, 8], "locks": [ { "name": "VNA" },
                    { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" } ] } } ] }
                """, rows);
        Recommendation r = Recommendation.read(dir);
        assertEquals(List.of("  VNA           1.07x  tied within noise at all 2 points",
                "  SYNCHRONIZED  0.99x  tied within noise at all 2 points"), r.lockLines());
        assertEquals("Tied within noise: no lock is faster or slower than unfair ReentrantLock at any of these 2 points; "
                + "keep unfair ReentrantLock or use any of them.", r.use());
        assertTrue(r.notes().isEmpty(), r.notes().toString());
    }

    /** Two locks both faster than the reference but not apart from each other: both are named, as a tie. */
    @Test
    void twoLeadersWhoseIntervalsOverlapAreNamedTogether(@TempDir Path dir) throws Exception {
        List<PointResult> rows = new ArrayList<>(reference("a", 1, 8));
        rows.addAll(List.of(row("a", "VNA", 1, 150, 140, 160), row("a", "VNA", 8, 130, 120, 140),
                row("a", "SHFL", 1, 145, 135, 155), row("a", "SHFL", 8, 128, 118, 138)));
        resultsFolder(dir, """
                { "benches": [ { "name": "randBash", "id": "a", "payload": { "threads": [1, 8], "locks": [ { "name": "VNA" },
                    { "name": "UNFAIR_REENTRANT" }, { "name": "SHFL" } ] } } ] }
                """, rows);
        assertEquals("Use VNA or SHFL, tied within noise with each other at all 2 points: 1.40x and 1.36x unfair "
                + "ReentrantLock (faster at 2 and 2 of these 2 points).", Recommendation.read(dir).use());
    }

    /** Where no lock is faster anywhere, the reference is what to use, and a tied lock is named as a tie. */
    @Test
    void whenNothingIsFasterTheReferenceIsTheAnswer(@TempDir Path dir) throws Exception {
        List<PointResult> rows = new ArrayList<>(reference("a", 2));
        rows.addAll(List.of(row("a", "VNA", 2, 80, 75, 85), row("a", "SYNCHRONIZED", 2, 100, 94, 106)));
        resultsFolder(dir, """
                { "benches": [ { "name": "randBash", "id": "a", "payload": { "threads": [2], "locks": [ { "name": "VNA" },
                    { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" } ] } } ] }
                """, rows);
        Recommendation r = Recommendation.read(dir);
        assertTrue(r.header().startsWith("Verdict on the same 1 point for all 3 locks (a x2)"), r.header());
        assertEquals("Use unfair ReentrantLock (UNFAIR_REENTRANT): no lock is faster at this point; "
                + "SYNCHRONIZED ties it within noise.", r.use());
    }

    /** A keyed run's twin (the map measured again, as the run adds it) is its A/A control, not a choice. */
    @Test
    void theTwinOfAKeyedReferenceIsTheRunsAaControl(@TempDir Path dir) throws Exception {
        List<PointResult> rows = List.of(row("k", "CHM_REENTRANT", 4, 100, 95, 105), row("k", "KEYED_LOCK", 4, 150, 140, 160),
                row("k", "CHM_REENTRANT_TWIN", 4, 300, 290, 310));
        resultsFolder(dir, """
                { "benches": [ { "name": "keyed", "id": "k", "payload": { "threads": [4], "locks": [ { "name": "KEYED_LOCK" },
                    { "name": "CHM_REENTRANT" }, { "name": "CHM_REENTRANT", "label": "CHM_REENTRANT_TWIN" } ] } } ] }
                """, rows);
        Recommendation r = Recommendation.read(dir);
        assertTrue(r.use().startsWith("Use KEYED_LOCK"), "the twin, three times as fast, is never the choice: " + r.use());
        String notes = String.join("\n", r.notes());
        assertTrue(notes.contains("CHM_REENTRANT_TWIN (CHM_REENTRANT measured twice: a noise gauge, not a choice)"), notes);
        assertTrue(notes.contains("A/A control: the reference's twin judged different at 1 of 1 points"), notes);
    }

    /** Nine locks fit: the block folds the ones past the fourth into one line and stays within its lines. */
    @Test
    void manyLocksStayWithinTheBlocksLines(@TempDir Path dir) throws Exception {
        List<String> locks = List.of("VNA", "FAIR_REENTRANT", "SYNCHRONIZED", "SHFL", "MCS", "CLH", "TAS", "TTAS", "TICKET");
        List<PointResult> rows = new ArrayList<>(reference("a", 1, 2));
        StringBuilder names = new StringBuilder("{ \"name\": \"UNFAIR_REENTRANT\" }");
        for (int i = 0; i < locks.size(); i++) {
            rows.add(row("a", locks.get(i), 1, 200 - 10 * i, 195 - 10 * i, 205 - 10 * i));
            rows.add(row("a", locks.get(i), 2, 200 - 10 * i, 195 - 10 * i, 205 - 10 * i));
            names.append(", { \"name\": \"").append(locks.get(i)).append("\" }");
        }
        resultsFolder(dir, "{ \"benches\": [ { \"name\": \"randBash\", \"id\": \"a\", \"payload\": { \"threads\": [1, 2], "
                + "\"locks\": [ " + names + " ] } } ] }", rows);
        Recommendation r = Recommendation.read(dir);
        assertEquals(9, r.standings().size());
        assertEquals(Recommendation.MAX_LOCK_LINES, r.lockLines().size());
        assertTrue(r.lockLines().getLast().startsWith("  and 5 more: MCS 1.60x, CLH 1.50x"), r.lockLines().getLast());
        assertTrue(r.lines().size() <= Recommendation.MAX_LINES, r.text());
    }

    /** A folder whose benches have no reference has no verdict, and says why in one line. */
    @Test
    void withoutTheReferenceThereIsNoVerdict(@TempDir Path dir) throws Exception {
        resultsFolder(dir, """
                { "benches": [ { "name": "randBash", "id": "a", "payload": { "threads": [1], "locks": [ { "name": "VNA" } ] } } ] }
                """, List.of(row("a", "VNA", 1, 100, 95, 105)));
        Recommendation r = Recommendation.read(dir);
        assertEquals(1, r.lines().size(), r.text());
        assertTrue(r.header().startsWith("No verdict: no bench has a lock measured beside its reference (UNFAIR_REENTRANT"),
                r.header());
    }
}
