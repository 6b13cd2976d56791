package io.numaloom.bench.report;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.Mutex;
import io.numaloom.bench.result.PointResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ratios to unfair ReentrantLock, their marks, the verdict lines and summary.csv. */
class SummaryTest {
    static final String CONFIG = """
            { "benches": [
                { "name": "randBash", "id": "rb", "payload": { "threads": [1, 2, 8],
                  "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" }, { "name": "FAIR_REENTRANT" } ] } },
                { "name": "randBash", "id": "no-baseline", "payload": { "threads": [1],
                  "locks": [ { "name": "VNA" } ] } } ] }
            """;

    static PointResult row(String bench, String lock, int threads, double ops, double lo, double hi) {
        return row(bench, lock, threads, ops, lo, hi, null);
    }

    static PointResult row(String bench, String lock, int threads, double ops, double lo, double hi, Long maxWaitNs) {
        return new PointResult(bench, bench, "randBash", lock, threads, "virtual", 2, 0, "", 1, 5, 1000,
                ops, lo, hi, null, null, null, null, null, null, null, null, maxWaitNs, null, null,
                null, null, null, null, null, null, null, null, PointResult.OK, null, null, null, "f", "t", 1.0);
    }

    @Test
    void marksOnlyRatiosWhoseIntervalsAreApart(@TempDir Path dir) throws Exception {
        BenchConfig config = ConfigReader.parse(CONFIG, "s.json", 2, Mutex.names());
        List<PointResult> rows = List.of(
                row("rb", "UNFAIR_REENTRANT", 1, 100, 95, 105), row("rb", "VNA", 1, 102, 90, 110),   // tied
                row("rb", "UNFAIR_REENTRANT", 2, 100, 95, 105, 4_000_000L),
                row("rb", "VNA", 2, 150, 140, 160, 1_000_000L),                                    // faster
                row("rb", "UNFAIR_REENTRANT", 8, 100, 95, 105), row("rb", "VNA", 8, 50, 45, 55),     // slower
                row("rb", "FAIR_REENTRANT", 1, 10, 9, 11),
                row("no-baseline", "VNA", 1, 10, 9, 11));
        List<Summary.BenchSummary> s = Summary.of(config, rows);
        assertEquals(1, s.size(), "a bench without the baseline has no summary");
        Summary.LockLine vna = s.getFirst().locks().getFirst();
        assertEquals("VNA", vna.lock());
        assertEquals(List.of(Summary.Verdict.TIED, Summary.Verdict.FASTER, Summary.Verdict.SLOWER),
                vna.cells().stream().map(Summary.Cell::verdict).toList());
        assertEquals(Math.cbrt(1.02 * 1.5 * 0.5), vna.geometricMean(), 1e-9);
        assertEquals("VNA: 0.91x unfair ReentrantLock (geometric mean); faster at 2 threads; slower at 8 threads;"
                + " tied at 1 thread", vna.verdict());
        Summary.LockLine fair = s.getFirst().locks().get(1);
        assertEquals(1, fair.cells().size(), "only thread counts measured for both locks");
        assertEquals(Summary.Verdict.SLOWER, fair.cells().getFirst().verdict());

        String text = Summary.text(s);
        assertTrue(text.contains("1.50 [-] ▲") && text.contains("0.50 [-] ▼") && text.contains("1.02 [-]"),
                "rows without rounds have no interval, and keep the mark of their time: " + text);
        assertTrue(text.contains("  precision reached: no ratio has an interval"), text);

        Summary.writeCsv(dir, s, List.of(), List.of());
        List<String> csv = Files.readAllLines(dir.resolve(Summary.FILE));
        assertEquals("bench,lock,threads,opsPerMs,baselineOpsPerMs,ratio,verdict,worstWaitRatio,session,baselineSession,"
                + "comparison,reference,ratioLow,ratioHigh", csv.getFirst());
        assertTrue(csv.contains("rb,VNA,2,150,100,1.5000,faster,0.2500,1,1,baseline,UNFAIR_REENTRANT,,"), csv.toString());
        assertTrue(csv.contains("rb,VNA,1,102,100,1.0200,tied,,1,1,baseline,UNFAIR_REENTRANT,,"), "no latency, no worst-wait ratio: " + csv);
        assertTrue(csv.contains("rb,VNA,geomean,,,0.9146,,,,,baseline,UNFAIR_REENTRANT,,"), csv.toString());
    }

    /**
     * The overall line of a lock pools its points of every bench with the same baseline, and names its best and
     * worst; a lock compared with two baselines gets a line per baseline.
     */
    @Test
    void overallLinesPoolEveryBenchAndNameTheBestAndWorstPoint() throws Exception {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [
                  { "name": "randBash", "id": "a", "payload": { "threads": [1, 8],
                    "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] } },
                  { "name": "randBash", "id": "b", "payload": { "threads": [2],
                    "locks": [ { "name": "UNFAIR_REENTRANT" }, { "name": "VNA" }, { "name": "SYNCHRONIZED" } ] } } ] }
                """, "o.json", 2, Mutex.names());
        List<Summary.BenchSummary> s = Summary.of(config, List.of(
                row("a", "UNFAIR_REENTRANT", 1, 100, 95, 105), row("a", "VNA", 1, 200, 190, 210),
                row("a", "UNFAIR_REENTRANT", 8, 100, 95, 105), row("a", "VNA", 8, 50, 45, 55),
                row("b", "UNFAIR_REENTRANT", 2, 100, 95, 105), row("b", "VNA", 2, 100, 95, 105),
                row("b", "SYNCHRONIZED", 2, 80, 75, 85)));
        List<Summary.Overall> overall = Summary.overall(s);
        assertEquals(List.of("VNA", "SYNCHRONIZED"), overall.stream().map(Summary.Overall::lock).toList());
        Summary.Overall vna = overall.getFirst();
        assertEquals(3, vna.points());
        assertEquals(1.0, vna.geometricMean(), 1e-9, "cbrt(2 * 0.5 * 1)");
        assertEquals("VNA: 1.00x unfair ReentrantLock (geometric mean of 3 points); best 2.00x a x1, worst 0.50x a x8",
                vna.line());
        assertEquals("SYNCHRONIZED: 0.80x unfair ReentrantLock (geometric mean of 1 point)", overall.get(1).line());
        assertTrue(Summary.text(s).startsWith("a: throughput / unfair ReentrantLock"),
                "the console prints no overall lines, which average different points per lock: " + Summary.text(s));
    }

    /** The stall warning appears when the longest stall is at least half a point's worst wait, and only then. */
    @Test
    void stallWarningOnlyWhereAStallCouldHaveMadeAWorstWait() {
        List<PointResult> rows = List.of(row("a", "VNA", 1, 100, 95, 105, 30_000_000L),
                row("a", "UNFAIR_REENTRANT", 1, 100, 95, 105, 9_000_000L));
        io.numaloom.bench.result.MachineStalls small = new io.numaloom.bench.result.MachineStalls(2, 2, 3, 4_000_000L);
        io.numaloom.bench.result.MachineStalls large = new io.numaloom.bench.result.MachineStalls(2, 2, 3, 5_000_000L);
        assertTrue(Summary.stallWarning(small, rows).isEmpty(), "4 ms is under half of 9 ms and of 30 ms");
        String w = Summary.stallWarning(large, rows).orElseThrow();
        assertTrue(w.contains("up to 5.0 ms") && w.contains("1 of 2 points (a UNFAIR_REENTRANT x1)"), w);
        assertTrue(Summary.stallWarning(null, rows).isEmpty(), "no probe, no warning");
        assertTrue(Summary.stallWarning(new io.numaloom.bench.result.MachineStalls(2, 2, 0, 0), rows).isEmpty());
    }

    /** A keyed bench is compared with the map of ReentrantLocks, and says so. */
    @Test
    void keyedBenchesAreComparedWithTheMapOfLocks() throws Exception {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [ { "name": "keyed", "id": "k", "payload": { "threads": [4],
                  "locks": [ { "name": "KEYED_LOCK" }, { "name": "CHM_REENTRANT" } ] } } ] }
                """, "k.json", 2, ConfigReader.lockNames());
        List<Summary.BenchSummary> s = Summary.of(config, List.of(
                row("k", "CHM_REENTRANT", 4, 100, 95, 105), row("k", "KEYED_LOCK", 4, 50, 45, 55)));
        assertEquals("CHM_REENTRANT", s.getFirst().baseline());
        assertEquals("KEYED_LOCK: 0.50x a ConcurrentHashMap of ReentrantLocks (geometric mean); slower at 4 threads",
                s.getFirst().locks().getFirst().verdict());
        assertEquals("KEYED_LOCK: 0.50x a ConcurrentHashMap of ReentrantLocks (geometric mean of 1 point)",
                Summary.overall(s).getFirst().line());
        assertTrue(Summary.text(s).startsWith("k: throughput / a ConcurrentHashMap of ReentrantLocks"), Summary.text(s));
    }

    /** A lock whose every point ties says so, in words, instead of a ratio that reads as a verdict. */
    @Test
    void aLockTiedAtEveryPointIsCalledTiedWithinNoise() throws Exception {
        BenchConfig config = ConfigReader.parse(CONFIG, "s.json", 2, Mutex.names());
        List<Summary.BenchSummary> s = Summary.of(config, List.of(
                row("rb", "UNFAIR_REENTRANT", 1, 100, 95, 105), row("rb", "VNA", 1, 104, 96, 112),
                row("rb", "UNFAIR_REENTRANT", 2, 100, 95, 105), row("rb", "VNA", 2, 108, 100, 116)));
        assertEquals("VNA: tied within noise with unfair ReentrantLock at 1, 2 threads (1.06x, geometric mean)",
                s.getFirst().locks().getFirst().verdict());
    }

    /**
     * A ratio whose two points two sessions of a resumed run measured is shown in brackets, named in the verdict line,
     * marked in summary.csv and counted in no mean.
     */
    @Test
    void aRatioAcrossSessionsIsShownButNeverCounted(@TempDir Path dir) throws Exception {
        BenchConfig config = ConfigReader.parse(CONFIG, "s.json", 2, Mutex.names());
        List<Summary.BenchSummary> s = Summary.of(config, List.of(
                row("rb", "UNFAIR_REENTRANT", 1, 100, 95, 105).withSession(1), row("rb", "VNA", 1, 150, 140, 160).withSession(1),
                row("rb", "UNFAIR_REENTRANT", 2, 100, 95, 105).withSession(2), row("rb", "VNA", 2, 2, 1, 3).withSession(1),
                row("rb", "UNFAIR_REENTRANT", 8, 100, 95, 105).withSession(2), row("rb", "VNA", 8, 200, 190, 210).withSession(2)));
        Summary.LockLine vna = s.getFirst().locks().getFirst();
        assertEquals(3, vna.cells().size());
        assertEquals(List.of(false, true, false), vna.cells().stream().map(Summary.Cell::spansSessions).toList());
        assertEquals(Math.sqrt(1.5 * 2.0), vna.geometricMean(), 1e-9, "the ratio across sessions (0.02) is not in the mean");
        assertEquals("VNA: 1.73x unfair ReentrantLock (geometric mean); faster at 1, 8 threads; left out at 2 threads: "
                + "measured in another session of the resumed run than unfair ReentrantLock's point", vna.verdict());
        String text = Summary.text(s);
        assertTrue(text.contains("(0.02)") && !text.contains("0.02 [") && text.contains(Summary.SESSIONS_NOTE), text);
        assertEquals(Math.sqrt(1.5 * 2.0), Summary.overall(s).getFirst().geometricMean(), 1e-9);
        assertEquals(2, Summary.overall(s).getFirst().points());
        Summary.writeCsv(dir, s, List.of(), List.of());
        List<String> csv = Files.readAllLines(dir.resolve(Summary.FILE));
        assertTrue(csv.contains("rb,VNA,2,2,100,0.0200,sessions-differ,,1,2,baseline,UNFAIR_REENTRANT,,"), csv.toString());
        assertTrue(csv.contains("rb,VNA,geomean,,,1.7321,,,,,baseline,UNFAIR_REENTRANT,,"), csv.toString());
    }

    /** A row measured in {@code means.length} rounds whose group stopped on {@code stop}, its mean the rounds' mean. */
    static PointResult rounds(String bench, String lock, int threads, String stop, double... means) {
        double mean = java.util.Arrays.stream(means).average().orElseThrow();
        return row(bench, lock, threads, mean, mean * 0.95, mean * 1.05)
                .withRounds(java.util.Arrays.stream(means).boxed().toList(), stop, 4);
    }

    /**
     * The console's ratio table shows each ratio with its paired 95% interval and its mark, in aligned columns, and
     * under it the precision reached and how each group stopped.
     */
    @Test
    void theConsoleTableShowsEachRatiosIntervalAndThePrecisionReached() throws Exception {
        BenchConfig config = ConfigReader.parse(CONFIG, "s.json", 2, Mutex.names());
        List<PointResult> rows = List.of(
                rounds("rb", "UNFAIR_REENTRANT", 1, "budget", 100, 104, 96, 100),
                rounds("rb", "VNA", 1, "budget", 101, 103, 97, 102),                         // tied
                rounds("rb", "FAIR_REENTRANT", 1, "budget", 10, 10.5, 9.5, 10),             // slower
                rounds("rb", "UNFAIR_REENTRANT", 2, "precision", 100, 102, 98, 100, 101),
                rounds("rb", "VNA", 2, "precision", 150, 151, 149, 152, 150),               // faster
                rounds("rb", "UNFAIR_REENTRANT", 8, "max-rounds", 100),
                rounds("rb", "VNA", 8, "max-rounds", 90));                                  // one round: no interval
        List<Summary.BenchSummary> s = Summary.of(config, rows);
        assertEquals(List.of("budget", "precision", "max-rounds"), s.getFirst().stops());
        Summary.Cell faster = s.getFirst().locks().getFirst().cells().get(1);
        assertEquals(Summary.Verdict.FASTER, faster.verdict());
        String n = System.lineSeparator();
        assertEquals("rb: throughput / unfair ReentrantLock (ratio [95% interval]; ▲ faster, ▼ slower: the interval "
                + "excludes 1; [-]: no interval)" + n
                + "  threads                           1                    2         8" + n
                + "  VNA             1.01 [0.99, 1.03]    1.50 [1.47, 1.53] ▲  0.90 [-]" + n
                + "  FAIR_REENTRANT  0.10 [0.10, 0.10] ▼     -                    -" + n
                + "  precision reached: median ±1.8%, widest ±2.0% (95% intervals of 3 ratios, 1 without); groups: "
                + "1 reached the precision, 1 stopped on the budget, 1 stopped at the cap" + n
                + "  VNA: 1.11x unfair ReentrantLock (geometric mean); faster at 2 threads; tied at 1 thread; no interval "
                + "at 8 threads" + n
                + "  FAIR_REENTRANT: 0.10x unfair ReentrantLock (geometric mean); slower at 1 thread" + n, Summary.text(s));
        assertEquals(faster.halfWidth(), Math.sqrt(faster.high() / faster.low()) - 1, 1e-12);
        assertEquals("1.50 [1.47, 1.53] ▲", Summary.withInterval(faster));

        Summary.Precision fixed = new Summary.Precision(List.of(), 0, List.of("fixed", "fixed"));
        assertEquals("precision reached: no ratio has an interval (one round per point, or results written before "
                + "rounds); groups: 2 ran fixed rounds", fixed.text());
        assertTrue(Double.isNaN(fixed.median()) && Double.isNaN(fixed.widest()));
    }

    /** Each point is held against the stall probe of the session that measured it. */
    @Test
    void theStallWarningUsesEachPointsOwnSession() {
        io.numaloom.bench.result.MachineStalls quiet = new io.numaloom.bench.result.MachineStalls(2, 2, 1, 1_500_000L);
        io.numaloom.bench.result.MachineStalls loaded = new io.numaloom.bench.result.MachineStalls(2, 2, 40, 9_000_000L);
        MachineInfo machine = new MachineInfo("h", "c", 2, 1, "t", "s", "m", "o", "j", "jh", List.of(), "1.37", quiet, 20L,
                List.of(new io.numaloom.bench.result.Session(1, "2026-11-27T10:00:00Z", quiet, 0.2, 2),
                        new io.numaloom.bench.result.Session(2, "2026-11-27T12:00:00Z", loaded, 3.1, 2)));
        List<PointResult> rows = List.of(row("a", "VNA", 1, 100, 95, 105, 10_000_000L).withSession(1),
                row("a", "UNFAIR_REENTRANT", 1, 100, 95, 105, 12_000_000L).withSession(2));
        String w = Summary.stallWarningFor(machine, rows).orElseThrow();
        assertTrue(w.contains("up to 9.0 ms (session 2, ") && w.contains("1 of 2 points (a UNFAIR_REENTRANT x1)"), w);
        assertTrue(Summary.stallWarningFor(machine, List.of(rows.getFirst())).isEmpty(),
                "session 1's probe saw 1.5 ms, under half of 10 ms");
    }
}
