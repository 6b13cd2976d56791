package io.numaloom.bench.cli;

import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.report.MachineInfo;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.run.BenchRunner;
import io.numaloom.bench.run.PointExecutor;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A latency reads the same on the console (the line per point and the table at the end) as in the HTML report: a
 * wait within twice the timer's floor as the bound {@code ≤ X} in all three (the console printed the raw
 * {@code 0.0300} where the report printed {@code ≤ 0.0400}), any other in µs with the same digits.
 */
class LatencyFormatTest {

    /** VNA's waits all took {@code VNA_NS}, within any timer's floor; unfair ReentrantLock's took 5 µs. */
    private static final long VNA_NS = 1;
    private static final long RL_NS = 5_000;

    private static final PointExecutor EXECUTOR = (point, work, log) -> {
        Histogram h = new Histogram(2);
        h.recordValueWithCount(point.lock().equals("VNA") ? VNA_NS : RL_NS, 1_000);
        ForkReport report = new ForkReport(1, 1_000, List.of(1.0, 1.0, 1.0), List.of(1.0, 1.0, 1.0), ForkReport.encode(h),
                0, 0, "p", "c", "2 cpus, 1 nodes; test", null, null, 1_000L, null, null, null, null);
        return new PointExecutor.Measurement(List.of(List.of(10.0, 11.0, 9.0)), List.of(report));
    };

    @Test
    void theConsoleAndTheReportShowALatencyAlike(@TempDir Path out) throws Exception {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        List<PointResult> rows;
        try (ConsoleProgress progress = new ConsoleProgress(new PrintStream(console, true, StandardCharsets.UTF_8))) {
            rows = new BenchRunner(ConfigReader.parse("""
                    { "benches": [ { "name": "consumeCpu", "id": "c", "payload": { "threads": [2],
                      "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] } } ] }
                    """, "latency.json", 2, ConfigReader.lockNames()), out, false, EXECUTOR, progress).run();
        }
        Long floor = MachineInfo.timerFloorOf(out);
        assertNotNull(floor, "the run recorded its timer floor");
        assertTrue(floor > 0, "the timer steps here: " + floor);
        String lines = console.toString(StandardCharsets.UTF_8);
        String html = Files.readString(out.resolve(Report.INDEX));
        String table = Report.textTable(rows, floor);
        for (PointResult r : rows) {
            String shown = Report.microsOrFloor(r.latencyP99Ns(), floor);
            assertEquals(r.lock().equals("VNA"), shown.startsWith("≤ "), r.lock() + ": " + shown);
            assertTrue(lines.contains(r.lock() + " x2: ") && lines.contains("acquire p99 " + shown + " µs"),
                    r.lock() + "'s p99 " + shown + " in the console's line:\n" + lines);
            assertTrue(html.contains("<td>" + shown + "</td>"), r.lock() + "'s p99 " + shown + " in the report");
            assertTrue(table.lines().anyMatch(l -> l.contains(r.lock()) && l.contains(" " + shown + " ")),
                    r.lock() + "'s p99 " + shown + " in the table:\n" + table);
        }
        assertTrue(table.contains("≤ in a latency column: at the timer's floor"), table);
    }

    /** The case: 30 ns with a floor of 20 ns reads ≤ 0.0400 everywhere, never 0.0300. */
    @Test
    void aWaitAtTheFloorReadsAsTheBoundInTheTable(@TempDir Path out) throws Exception {
        List<PointResult> rows = new BenchRunner(ConfigReader.parse("""
                { "benches": [ { "name": "consumeCpu", "id": "c", "payload": { "threads": [2],
                  "locks": [ { "name": "VNA" } ] } } ] }
                """, "floor.json", 2, ConfigReader.lockNames()), out, false, (point, work, log) -> {
            Histogram h = new Histogram(2);
            h.recordValueWithCount(30, 1_000);
            return new PointExecutor.Measurement(List.of(List.of(10.0, 11.0, 9.0)), List.of(new ForkReport(1, 1_000,
                    List.of(1.0), List.of(1.0), ForkReport.encode(h), 0, 0, "p", "c", "t", null, null, 1_000L, null, null, null, null)));
        }, io.numaloom.bench.run.TestListeners.SILENT).run();
        assertEquals(30L, rows.getFirst().latencyP99Ns());
        String table = Report.textTable(rows, 20L);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("c ") && l.contains(" ≤ 0.0400 ")), table);
        assertFalse(table.contains("0.0300"), table);
        assertTrue(table.contains("(two System.nanoTime() readings are 20 ns apart here)"), table);
        assertFalse(Report.textTable(rows, 10L).contains("≤"), "30 ns is over twice a floor of 10 ns");
    }
}
