package io.numaloom.bench.report;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * VNA against the best other lock of each bench and every lock's serial-bound ratio, read from a results folder as the
 * report reads it: the named best lock and the ratios at each thread count, a bench without a 1-thread point, a lock
 * whose 1-thread point failed, and a bench without VNA; in summary.csv, index.html and the console's line. Then the
 * twin, the reference measured twice: never VNA's best other lock, its own line against the same best other lock where
 * the bench measured VNA too, shown wherever VNA's line is, and never recommended.
 */
class BestOtherTest {
    /**
     * Bench a: a different lock is best at each thread count, and NUMA_MCS's 1-thread point failed; bench b measured no
     * 1-thread point; bench c has no VNA.
     */
    private static final String CONFIG = """
            { "benches": [
              { "name": "randBash", "id": "a", "payload": { "threads": [1, 2, 8, 32], "locks": [ { "name": "VNA" },
                { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" }, { "name": "SHFL" }, { "name": "NUMA_MCS" } ] } },
              { "name": "randBash", "id": "b", "payload": { "threads": [2, 8], "locks": [ { "name": "VNA" },
                { "name": "UNFAIR_REENTRANT" } ] } },
              { "name": "randBash", "id": "c", "payload": { "threads": [1, 2], "locks": [ { "name": "UNFAIR_REENTRANT" },
                { "name": "SYNCHRONIZED" } ] } } ] }
            """;

    private static List<PointResult> rows() {
        List<PointResult> rows = new ArrayList<>(List.of(
                // x1: UNFAIR_REENTRANT is best, VNA below it (intervals apart).
                row("a", "VNA", 1, 100, 95, 105), row("a", "UNFAIR_REENTRANT", 1, 125, 120, 130),
                row("a", "SYNCHRONIZED", 1, 90, 85, 95), row("a", "SHFL", 1, 80, 75, 85),
                failed("a", "NUMA_MCS", 1),
                // x2: SHFL is best, VNA above it.
                row("a", "VNA", 2, 200, 190, 210), row("a", "UNFAIR_REENTRANT", 2, 100, 95, 105),
                row("a", "SYNCHRONIZED", 2, 120, 115, 125), row("a", "SHFL", 2, 160, 150, 170),
                row("a", "NUMA_MCS", 2, 150, 140, 160),
                // x8: NUMA_MCS is best, VNA a little below it but the intervals overlap: a tie.
                row("a", "VNA", 8, 100, 90, 110), row("a", "UNFAIR_REENTRANT", 8, 80, 75, 85),
                row("a", "SYNCHRONIZED", 8, 50, 45, 55), row("a", "SHFL", 8, 90, 85, 95),
                row("a", "NUMA_MCS", 8, 104, 100, 108),
                // x32: SYNCHRONIZED is best, VNA above it.
                row("a", "VNA", 32, 60, 55, 65), row("a", "UNFAIR_REENTRANT", 32, 40, 35, 45),
                row("a", "SYNCHRONIZED", 32, 50, 46, 54), row("a", "SHFL", 32, 45, 40, 50),
                row("a", "NUMA_MCS", 32, 30, 25, 35)));
        rows.addAll(List.of(row("b", "VNA", 2, 100, 95, 105), row("b", "UNFAIR_REENTRANT", 2, 50, 45, 55),
                row("b", "VNA", 8, 90, 85, 95), row("b", "UNFAIR_REENTRANT", 8, 45, 40, 50)));
        rows.addAll(List.of(row("c", "UNFAIR_REENTRANT", 1, 100, 95, 105), row("c", "UNFAIR_REENTRANT", 2, 50, 45, 55),
                row("c", "SYNCHRONIZED", 1, 80, 75, 85), row("c", "SYNCHRONIZED", 2, 80, 75, 85)));
        return rows;
    }

    /** A point that failed: no throughput. */
    static PointResult failed(String bench, String lock, int threads) {
        return new PointResult(bench, bench, "randBash", lock, threads, "virtual", 2, 0, "", 1, 0, 0,
                null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, PointResult.FAILED, "boom", null, null, "f", "t", 1.0);
    }

    /** The folder's configuration and rows, read back as the report reads them. */
    private static BenchConfig folder(Path dir, List<PointResult> rows) throws Exception {
        return folder(dir, CONFIG, rows);
    }

    /** The folder of {@code config} (a configuration's JSON) and rows, read back as the report reads them. */
    private static BenchConfig folder(Path dir, String config, List<PointResult> rows) throws Exception {
        RecommendationTest.resultsFolder(dir, config, rows);
        return ConfigReader.parseSaved(Files.readString(dir.resolve(ResultsDirectory.CONFIG_FILE)), "config.json");
    }

    @Test
    void namesTheBestOtherLockAtEachThreadCountWithTheRatioAndItsMark(@TempDir Path dir) throws Exception {
        BenchConfig config = folder(dir, rows());
        List<PointResult> rows = ResultStore.load(dir);
        List<BestOther.Line> lines = BestOther.of(config, rows);
        assertEquals(List.of("a", "b"), lines.stream().map(BestOther.Line::bench).toList(), "c has no VNA: no line");

        BestOther.Line a = lines.getFirst();
        assertEquals(List.of("UNFAIR_REENTRANT", "SHFL", "NUMA_MCS", "SYNCHRONIZED"),
                a.points().stream().map(BestOther.Point::best).toList());
        assertEquals(List.of(1, 2, 8, 32), a.points().stream().map(p -> p.cell().threads()).toList());
        assertEquals(List.of(0.8, 1.25, 100 / 104.0, 1.2), a.points().stream().map(p -> p.cell().ratio()).toList());
        assertEquals(List.of(125.0, 160.0, 104.0, 50.0), a.points().stream().map(p -> p.cell().baselineOpsPerMs()).toList(),
                "the best other lock's throughput");
        assertEquals(List.of(Summary.Verdict.SLOWER, Summary.Verdict.FASTER, Summary.Verdict.TIED, Summary.Verdict.FASTER),
                a.points().stream().map(p -> p.cell().verdict()).toList(), "a tie where the 95% intervals overlap");
        assertEquals(Math.pow(0.8 * 1.25 * (100 / 104.0) * 1.2, 0.25), a.geometricMean(), 1e-12);
        assertEquals(1, a.lowest().cell().threads());
        assertEquals("VNA / best other: x1 0.80 ▼ (UNFAIR_REENTRANT), x2 1.25 ▲ (SHFL), x8 0.96 (NUMA_MCS), "
                + "x32 1.20 ▲ (SYNCHRONIZED); geometric mean 1.04, lowest 0.80 at x1", a.text());
        assertEquals("VNA / best other: x2 2.00 ▲ (UNFAIR_REENTRANT), x8 2.00 ▲ (UNFAIR_REENTRANT); geometric mean 2.00, "
                + "lowest 2.00 at x2", lines.get(1).text(), "a bench without a 1-thread point still compares VNA");

        String console = BestOther.text(lines);
        assertEquals(List.of("VNA / the best other lock of each bench at each thread count (▲ faster, ▼ slower: the ratio's "
                        + "95% interval excludes 1)",
                "  a: x1 0.80 ▼ (UNFAIR_REENTRANT), x2 1.25 ▲ (SHFL), x8 0.96 (NUMA_MCS), x32 1.20 ▲ (SYNCHRONIZED); "
                        + "geometric mean 1.04, lowest 0.80 at x1",
                "  b: x2 2.00 ▲ (UNFAIR_REENTRANT), x8 2.00 ▲ (UNFAIR_REENTRANT); geometric mean 2.00, lowest 2.00 at x2"),
                console.lines().toList(), "one line per bench");
        assertEquals("", BestOther.text(List.of()), "no bench with VNA and another lock, nothing printed");
    }

    @Test
    void serialBoundIsEachLocksThroughputOverItsOwnAtOneThread(@TempDir Path dir) throws Exception {
        BenchConfig config = folder(dir, rows());
        List<SerialBound.BenchLine> benches = SerialBound.of(config, ResultStore.load(dir));
        assertEquals(List.of("a", "b", "c"), benches.stream().map(SerialBound.BenchLine::bench).toList());

        SerialBound.BenchLine a = benches.getFirst();
        assertTrue(a.measuresOneThread());
        assertEquals(List.of(2, 8, 32), a.threads());
        assertEquals(List.of("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED", "SHFL", "NUMA_MCS"),
                a.locks().stream().map(SerialBound.LockLine::lock).toList());
        SerialBound.LockLine vna = a.locks().getFirst();
        assertEquals(100.0, vna.oneThreadOpsPerMs());
        assertEquals(List.of(2.0, 1.0, 0.6), vna.entries().stream().map(e -> e.ratio().ratio()).toList());
        assertEquals(List.of(Summary.Verdict.FASTER, Summary.Verdict.TIED, Summary.Verdict.SLOWER),
                vna.entries().stream().map(e -> e.ratio().verdict()).toList());
        SerialBound.LockLine shfl = a.locks().get(3);
        assertEquals(List.of(2.0, 90 / 80.0, 45 / 80.0), shfl.entries().stream().map(e -> e.ratio().ratio()).toList());
        SerialBound.LockLine numaMcs = a.locks().get(4);
        assertFalse(numaMcs.hasOneThread(), "its 1-thread point failed");
        assertEquals(List.of(2, 8, 32), numaMcs.entries().stream().map(SerialBound.Entry::threads).toList());
        assertTrue(numaMcs.entries().stream().allMatch(e -> e.ratio() == null), "no other point stands in for it");

        SerialBound.BenchLine b = benches.get(1);
        assertFalse(b.measuresOneThread());
        assertTrue(b.locks().stream().noneMatch(SerialBound.LockLine::hasOneThread));
        assertNull(b.locks().getFirst().entries().getFirst().ratio());

        SerialBound.BenchLine c = benches.get(2);
        assertEquals(List.of(0.5, 1.0), c.locks().stream().map(l -> l.entries().getFirst().ratio().ratio()).toList(),
                "a bench without VNA still has its locks' serial bounds");
    }

    @Test
    void summaryCsvHoldsTheBestOtherAndSerialBoundRows(@TempDir Path dir) throws Exception {
        BenchConfig config = folder(dir, rows());
        List<PointResult> rows = ResultStore.load(dir);
        Summary.writeCsv(dir, Summary.of(config, rows), BestOther.of(config, rows), SerialBound.of(config, rows));
        List<String> csv = Files.readAllLines(dir.resolve(Summary.FILE));
        assertEquals("bench,lock,threads,opsPerMs,baselineOpsPerMs,ratio,verdict,worstWaitRatio,session,baselineSession,"
                + "comparison,reference,ratioLow,ratioHigh", csv.getFirst());
        for (String line : List.of(
                "a,VNA,1,100,125,0.8000,slower,,1,1,baseline,UNFAIR_REENTRANT,,",
                "a,VNA,1,100,125,0.8000,slower,,1,1,best-other,UNFAIR_REENTRANT,,",
                "a,VNA,2,200,160,1.2500,faster,,1,1,best-other,SHFL,,",
                "a,VNA,8,100,104,0.9615,tied,,1,1,best-other,NUMA_MCS,,",
                "a,VNA,32,60,50,1.2000,faster,,1,1,best-other,SYNCHRONIZED,,",
                "a,VNA,geomean,,,1.0364,,,,,best-other,,,",
                "b,VNA,2,100,50,2.0000,faster,,1,1,best-other,UNFAIR_REENTRANT,,",
                "a,VNA,2,200,100,2.0000,faster,,1,1,serial-bound,VNA,,",
                "a,VNA,8,100,100,1.0000,tied,,1,1,serial-bound,VNA,,",
                "a,VNA,32,60,100,0.6000,slower,,1,1,serial-bound,VNA,,",
                "a,SHFL,8,90,80,1.1250,tied,,1,1,serial-bound,SHFL,,",
                "a,NUMA_MCS,2,150,,,no-1-thread-point,,1,,serial-bound,,,",
                "b,VNA,2,100,,,no-1-thread-point,,1,,serial-bound,,,",
                "b,UNFAIR_REENTRANT,8,45,,,no-1-thread-point,,1,,serial-bound,,,",
                "c,SYNCHRONIZED,2,80,80,1.0000,tied,,1,1,serial-bound,SYNCHRONIZED,,")) {
            assertTrue(csv.contains(line), "summary.csv lacks " + line + ":\n" + String.join("\n", csv));
        }
        assertTrue(csv.stream().noneMatch(l -> l.startsWith("c,") && l.contains(",best-other,")), "c has no VNA");
        assertTrue(csv.stream().noneMatch(l -> l.contains(",serial-bound,") && l.split(",")[2].equals("1")),
                "no serial-bound row at 1 thread");
    }

    @Test
    void eachBenchOfTheReportShowsBothTablesOrSaysWhyNot(@TempDir Path dir) throws Exception {
        BenchConfig config = folder(dir, rows());
        List<PointResult> rows = ResultStore.load(dir);
        List<Report.Section> sections = config.activeBenches().stream()
                .map(b -> new Report.Section(b, rows.stream().filter(x -> x.bench().equals(b.id())).toList(), false)).toList();
        String html = Html.render(config, "{}", sections, Summary.of(config, rows), Recommendation.of(config, rows, null),
                null, null);
        String whoWon = html.substring(html.indexOf("id=\"summary\""), html.indexOf("id=\"a\""));
        assertTrue(whoWon.contains("<li>VNA / best other: x1 0.80 ▼ (UNFAIR_REENTRANT), x2 1.25 ▲ (SHFL), x8 0.96 (NUMA_MCS), "
                + "x32 1.20 ▲ (SYNCHRONIZED); geometric mean 1.04, lowest 0.80 at x1</li>"), whoWon);

        String a = section(html, "a");
        for (String fragment : List.of("<b>VNA against the best other lock</b>",
                "<tr><td class=\"l\">best other lock</td><td>UNFAIR_REENTRANT</td><td>SHFL</td><td>NUMA_MCS</td><td>SYNCHRONIZED</td></tr>",
                "<tr><td class=\"l\">VNA / best other</td><td>0.80 [-] ▼</td><td>1.25 [-] ▲</td><td>0.96 [-]</td>"
                        + "<td>1.20 [-] ▲</td></tr>",
                "Geometric mean 1.04, lowest 0.80 at 1 thread (UNFAIR_REENTRANT).",
                "<b>Serial bound</b>", "<th>2 threads</th><th>8 threads</th><th>32 threads</th>",
                "<tr><td class=\"l\">VNA</td><td>2.00 [-] ▲</td><td>1.00 [-]</td><td>0.60 [-] ▼</td></tr>",
                "<tr><td class=\"l\">NUMA_MCS</td><td class=\"l\" colspan=\"3\">no 1-thread point</td></tr>")) {
            assertTrue(a.contains(fragment), "bench a lacks " + fragment + ":\n" + a);
        }
        String b = section(html, "b");
        assertTrue(b.contains("Serial bound: no 1-thread point in this bench (threads 2, 8), so no ratio to one thread."), b);
        assertFalse(b.contains("<th>2 threads</th>") || b.contains("<b>Serial bound</b>"),
                "no serial-bound table without a 1-thread point: " + b);
        String c = section(html, "c");
        assertFalse(c.contains("best other"), "c has no VNA: " + c);
        assertTrue(c.contains("<tr><td class=\"l\">UNFAIR_REENTRANT</td><td>0.50 [-] ▼</td></tr>"), c);
    }

    /**
     * Bench t measured VNA, the reference, SHFL and the twin: the twin is the fastest lock at 1 thread, the reference
     * is the best other lock at 1 and 8 threads, SHFL at 2. Bench u has no twin; bench v has the twin but no VNA.
     */
    private static final String TWIN_CONFIG = """
            { "benches": [
              { "name": "randBash", "id": "t", "payload": { "threads": [1, 2, 8], "locks": [ { "name": "VNA" },
                { "name": "UNFAIR_REENTRANT" }, { "name": "SHFL" }, { "name": "UNFAIR_REENTRANT_TWIN" } ] } },
              { "name": "randBash", "id": "u", "payload": { "threads": [2], "locks": [ { "name": "VNA" },
                { "name": "UNFAIR_REENTRANT" } ] } },
              { "name": "randBash", "id": "v", "payload": { "threads": [2], "locks": [ { "name": "UNFAIR_REENTRANT" },
                { "name": "UNFAIR_REENTRANT_TWIN" }, { "name": "SHFL" } ] } } ] }
            """;

    private static List<PointResult> twinRows() {
        return List.of(
                // x1: the twin is the fastest of all, the reference the best of the others.
                row("t", "VNA", 1, 110, 105, 115), row("t", "UNFAIR_REENTRANT", 1, 120, 115, 125),
                row("t", "SHFL", 1, 100, 95, 105), row("t", "UNFAIR_REENTRANT_TWIN", 1, 140, 135, 145),
                // x2: SHFL is the best other lock; VNA is above everything, the twin below SHFL.
                row("t", "VNA", 2, 200, 190, 210), row("t", "UNFAIR_REENTRANT", 2, 100, 95, 105),
                row("t", "SHFL", 2, 160, 150, 170), row("t", "UNFAIR_REENTRANT_TWIN", 2, 90, 85, 95),
                // x8: the reference is the best other lock; the twin ties it, VNA is below it.
                row("t", "VNA", 8, 85, 80, 90), row("t", "UNFAIR_REENTRANT", 8, 100, 95, 105),
                row("t", "SHFL", 8, 80, 75, 85), row("t", "UNFAIR_REENTRANT_TWIN", 8, 98, 93, 103),
                row("u", "VNA", 2, 100, 95, 105), row("u", "UNFAIR_REENTRANT", 2, 50, 45, 55),
                row("v", "UNFAIR_REENTRANT", 2, 100, 95, 105), row("v", "UNFAIR_REENTRANT_TWIN", 2, 150, 145, 155),
                row("v", "SHFL", 2, 80, 75, 85));
    }

    private static BenchConfig twinFolder(Path dir, List<PointResult> rows) throws Exception {
        return folder(dir, TWIN_CONFIG, rows);
    }

    @Test
    void theTwinIsNeverVnasBestOtherLockEvenWhereItIsTheFastest(@TempDir Path dir) throws Exception {
        BenchConfig config = twinFolder(dir, twinRows());
        BenchDefinition t = config.activeBenches().getFirst();
        BestOther.Line vna = BestOther.of(t, ResultStore.load(dir)).orElseThrow();
        assertEquals("VNA", vna.lock());
        assertFalse(vna.isTwin());
        assertEquals(List.of("UNFAIR_REENTRANT", "SHFL", "UNFAIR_REENTRANT"),
                vna.points().stream().map(BestOther.Point::best).toList(), "the twin, fastest at x1, is not named");
        assertEquals(110 / 120.0, vna.points().getFirst().cell().ratio(), 1e-12);

        List<PointResult> withoutTwin = twinRows().stream().filter(r -> !r.lock().equals(BestOther.TWIN)).toList();
        assertEquals(vna, BestOther.of(t, withoutTwin).orElseThrow(), "VNA's line is the same without the twin's points");
    }

    @Test
    void theTwinsLineHoldsItAgainstTheSameBestOtherLockAsVnasLine(@TempDir Path dir) throws Exception {
        BenchConfig config = twinFolder(dir, twinRows());
        BenchDefinition t = config.activeBenches().getFirst();
        List<BestOther.Line> lines = BestOther.lines(t, ResultStore.load(dir));
        assertEquals(List.of("VNA", BestOther.TWIN), lines.stream().map(BestOther.Line::lock).toList(), "VNA's, then the twin's");
        BestOther.Line vna = lines.getFirst();
        BestOther.Line twin = lines.get(1);
        assertTrue(twin.isTwin());
        assertEquals(vna.points().stream().map(p -> p.cell().threads()).toList(),
                twin.points().stream().map(p -> p.cell().threads()).toList());
        assertEquals(vna.points().stream().map(BestOther.Point::best).toList(),
                twin.points().stream().map(BestOther.Point::best).toList(), "the same best other lock at each thread count");
        assertEquals(List.of(140 / 120.0, 90 / 160.0, 0.98), twin.points().stream().map(p -> p.cell().ratio()).toList());
        assertEquals(List.of(Summary.Verdict.FASTER, Summary.Verdict.SLOWER, Summary.Verdict.TIED),
                twin.points().stream().map(p -> p.cell().verdict()).toList());
        assertEquals(Math.pow((140 / 120.0) * (90 / 160.0) * 0.98, 1 / 3.0), twin.geometricMean(), 1e-12);
        assertEquals(2, twin.lowest().cell().threads());
        assertEquals("UNFAIR_REENTRANT_TWIN / best other: x1 1.17 ▲ (UNFAIR_REENTRANT), x2 0.56 ▼ (SHFL), "
                + "x8 0.98 (UNFAIR_REENTRANT); geometric mean 0.86, lowest 0.56 at x2", twin.text());
    }

    @Test
    void noTwinLineWithoutTheTwinOrWithoutVna(@TempDir Path dir) throws Exception {
        BenchConfig config = twinFolder(dir, twinRows());
        List<PointResult> rows = ResultStore.load(dir);
        List<BestOther.Line> lines = BestOther.of(config, rows);
        assertEquals(List.of("t VNA", "t " + BestOther.TWIN, "u VNA"),
                lines.stream().map(l -> l.bench() + " " + l.lock()).toList(), "u has no twin, v no VNA");
        BenchDefinition v = config.activeBenches().get(2);
        assertTrue(BestOther.twin(v, rows).isEmpty(), "the twin against SHFL alone, without VNA: no line");

        BenchDefinition t = config.activeBenches().getFirst();
        List<PointResult> vnaFailed = new ArrayList<>(rows.stream().filter(r -> !r.lock().equals("VNA")).toList());
        vnaFailed.add(failed("t", "VNA", 1));
        assertEquals(List.of(), BestOther.lines(t, vnaFailed), "VNA in the bench but never measured: no line, no twin line");
    }

    @Test
    void summaryCsvTheConsoleAndTheReportCarryTheTwinsLineUnderVnas(@TempDir Path dir) throws Exception {
        BenchConfig config = twinFolder(dir, twinRows());
        List<PointResult> rows = ResultStore.load(dir);
        Summary.writeCsv(dir, Summary.of(config, rows), BestOther.of(config, rows), SerialBound.of(config, rows));
        List<String> csv = Files.readAllLines(dir.resolve(Summary.FILE));
        for (String line : List.of(
                "t,VNA,1,110,120,0.9167,tied,,1,1,best-other,UNFAIR_REENTRANT,,",
                "t,UNFAIR_REENTRANT_TWIN,1,140,120,1.1667,faster,,1,1,twin-best-other,UNFAIR_REENTRANT,,",
                "t,UNFAIR_REENTRANT_TWIN,2,90,160,0.5625,slower,,1,1,twin-best-other,SHFL,,",
                "t,UNFAIR_REENTRANT_TWIN,8,98,100,0.9800,tied,,1,1,twin-best-other,UNFAIR_REENTRANT,,",
                "t,UNFAIR_REENTRANT_TWIN,geomean,,,0.8632,,,,,twin-best-other,,,",
                "t,UNFAIR_REENTRANT_TWIN,1,140,120,1.1667,faster,,1,1,baseline,UNFAIR_REENTRANT,,")) {
            assertTrue(csv.contains(line), "summary.csv lacks " + line + ":\n" + String.join("\n", csv));
        }
        assertTrue(csv.stream().filter(l -> l.contains(",best-other,")).allMatch(l -> l.split(",")[1].equals("VNA")),
                "best-other rows are VNA's only: " + csv);
        assertTrue(csv.stream().noneMatch(l -> (l.startsWith("u,") || l.startsWith("v,")) && l.contains("twin-best-other")));

        assertEquals(List.of("VNA / the best other lock of each bench at each thread count (▲ faster, ▼ slower: the ratio's "
                        + "95% interval excludes 1)",
                "  t: x1 0.92 (UNFAIR_REENTRANT), x2 1.25 ▲ (SHFL), x8 0.85 ▼ (UNFAIR_REENTRANT); geometric mean 0.99, "
                        + "lowest 0.85 at x8",
                "  t (twin, what a tie reads): x1 1.17 ▲ (UNFAIR_REENTRANT), x2 0.56 ▼ (SHFL), x8 0.98 (UNFAIR_REENTRANT); "
                        + "geometric mean 0.86, lowest 0.56 at x2",
                "  u: x2 2.00 ▲ (UNFAIR_REENTRANT); geometric mean 2.00, lowest 2.00 at x2"),
                BestOther.text(BestOther.of(config, rows)).lines().toList(), "the twin's line under VNA's");

        List<Report.Section> sections = config.activeBenches().stream()
                .map(b -> new Report.Section(b, rows.stream().filter(x -> x.bench().equals(b.id())).toList(), false)).toList();
        String html = Html.render(config, "{}", sections, Summary.of(config, rows), Recommendation.of(config, rows, null),
                null, null);
        String whoWon = html.substring(html.indexOf("id=\"summary\""), html.indexOf("id=\"t\""));
        assertTrue(whoWon.contains("<li>VNA / best other: x1 0.92 (UNFAIR_REENTRANT), x2 1.25 ▲ (SHFL), x8 0.85 ▼ "
                + "(UNFAIR_REENTRANT); geometric mean 0.99, lowest 0.85 at x8</li><li>UNFAIR_REENTRANT_TWIN / best other: "
                + "x1 1.17 ▲ (UNFAIR_REENTRANT), x2 0.56 ▼ (SHFL), x8 0.98 (UNFAIR_REENTRANT); geometric mean 0.86, lowest "
                + "0.56 at x2 (UNFAIR_REENTRANT_TWIN, a second, identical unfair ReentrantLock: what a lock that ties the "
                + "others reads here)</li>"), whoWon);
        String t = section(html, "t");
        for (String fragment : List.of(
                "<tr><td class=\"l\">VNA / best other</td><td>0.92 [-]</td><td>1.25 [-] ▲</td><td>0.85 [-] ▼</td></tr>\n"
                        + "<tr><td class=\"l\">UNFAIR_REENTRANT_TWIN / best other</td><td>1.17 [-] ▲</td>"
                        + "<td>0.56 [-] ▼</td><td>0.98 [-]</td></tr>",
                "Geometric mean 0.99, lowest 0.85 at 8 threads (UNFAIR_REENTRANT). UNFAIR_REENTRANT_TWIN, a second, "
                        + "identical unfair ReentrantLock: what a lock that ties the others reads here: geometric mean 0.86, "
                        + "lowest 0.56 at 2 threads (SHFL).")) {
            assertTrue(t.contains(fragment), "bench t lacks " + fragment + ":\n" + t);
        }
        assertFalse(section(html, "u").contains(BestOther.TWIN), "no twin row without the twin");
    }

    @Test
    void theVerdictNeverRanksNorRecommendsTheTwin(@TempDir Path dir) throws Exception {
        // v's twin is 1.5x the reference, faster at its point; t's at x1: a lock in its place would be recommended.
        twinFolder(dir, twinRows());
        Recommendation verdict = Recommendation.read(dir);
        assertTrue(verdict.standings().stream().noneMatch(s -> s.lock().equals(BestOther.TWIN)), verdict.text());
        assertTrue(verdict.lockLines().stream().noneMatch(l -> l.contains(BestOther.TWIN)), verdict.text());
        assertTrue(verdict.use() != null && !verdict.use().contains(BestOther.TWIN), verdict.text());
        assertTrue(verdict.header().contains("for all 3 locks"), "VNA, SHFL and the reference: " + verdict.header());
        assertTrue(verdict.notes().contains("Not in this verdict, compared in each bench's table: UNFAIR_REENTRANT_TWIN "
                + "(UNFAIR_REENTRANT measured twice: a noise gauge, not a choice)."), verdict.text());
        assertTrue(verdict.lines().size() <= Recommendation.MAX_LINES);

        List<PointResult> onlyTwin = List.of(row("v", "UNFAIR_REENTRANT", 2, 100, 95, 105),
                row("v", "UNFAIR_REENTRANT_TWIN", 2, 150, 145, 155));
        Recommendation alone = Recommendation.of(twinFolder(Files.createDirectories(dir.resolve("alone")), onlyTwin),
                onlyTwin, null);
        assertTrue(alone.standings().isEmpty() && (alone.use() == null || !alone.use().contains(BestOther.TWIN)),
                "the twin beside the reference alone is no verdict: " + alone.text());

        List<Summary.BenchSummary> summary = Summary.of(ConfigReader.parseSaved(
                Files.readString(dir.resolve(ResultsDirectory.CONFIG_FILE)), "config.json"), twinRows());
        assertTrue(Summary.text(summary).contains("  UNFAIR_REENTRANT_TWIN (the reference measured twice, a noise gauge): "),
                "its verdict line in who won says what it is: " + Summary.text(summary));
    }

    /** The part of index.html of one bench: from its heading to the next. */
    private static String section(String html, String id) {
        int start = html.indexOf("<h2 id=\"" + id + "\"");
        return html.substring(start, html.indexOf("<h2", start + 1));
    }
}
