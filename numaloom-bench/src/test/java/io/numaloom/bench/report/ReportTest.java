package io.numaloom.bench.report;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.run.BenchRunner;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.Mutex;
import io.numaloom.bench.run.PointExecutor;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import io.numaloom.bench.run.TestListeners;
import io.numaloom.bench.result.ForkReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportTest {
    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G'};

    private static final String CONFIG = """
            { "description": "Report <test> & friends",
              "benches": [
                { "name": "consumeCpu", "id": "lines", "payload": { "title": "Lines <b>bold</b>", "threads": [1, 2, 4, 8], "forks": 3,
                  "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" } ] } },
                { "name": "sync", "id": "bars", "payload": { "title": "Bars",
                  "locks": [ { "name": "VNA" }, { "name": "SYNCHRONIZED" } ] } },
                { "name": "textStats", "id": "time", "payload": { "title": "Text", "threads": [1, 2], "lines": 100,
                  "locks": [ { "name": "FAIR_REENTRANT" } ] } },
                { "name": "consumeCpu", "id": "one", "payload": { "title": "One", "threads": [2],
                  "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" } ] } },
                { "name": "consumeCpu", "id": "noref", "payload": { "title": "No reference", "threads": [1, 2],
                  "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] } },
                { "name": "matrix", "id": "skipped", "payload": { "skip": true, "locks": [ { "name": "VNA" } ] } } ] }
            """;

    /**
     * Fake measurements; VNA fails at 8 threads, every point of "time" fails, and so does the reference of "noref",
     * which then has ratios to nothing.
     */
    private static final PointExecutor EXECUTOR = (point, work, log) -> {
        if (point.key().equals("lines/VNA/8") || point.bench().id().equals("time")
                || point.key().startsWith("noref/UNFAIR_REENTRANT/")) {
            throw new PointExecutor.PointFailedException("boom <at> " + point.key(), null);
        }
        double t = 5 + point.threads() * (1 + point.lock().length() % 3);
        return new PointExecutor.Measurement(List.of(List.of(t, t * 1.05, t * 0.95)),
                List.of(new ForkReport(1, 1000, List.of(0.99), List.of(0.9), null, 999, 600, "test placement", "test", "2 cpus", null, null, null, null)));
    };

    private static Path run(Path out) throws Exception {
        BenchConfig config = ConfigReader.parse(CONFIG, "report.json", 2, Mutex.names());
        new BenchRunner(config, out, false, EXECUTOR, TestListeners.onNotice(text -> {
            throw new AssertionError(text);
        })).run();
        return out;
    }

    @Test
    void writesPlotsTablesAndTheHtml(@TempDir Path out) throws Exception {
        run(out);
        for (String id : List.of("lines", "bars")) {
            byte[] png = Files.readAllBytes(out.resolve(id + ".png"));
            assertArrayEquals(PNG_MAGIC, java.util.Arrays.copyOf(png, 4), id + ".png is a PNG");
            assertTrue(png.length > 10_000, id + ".png has a chart in it");
            String svg = Files.readString(out.resolve(id + ".svg"));
            assertTrue(svg.contains("<svg") && svg.contains("</svg>"), id + ".svg is an SVG");
        }
        assertFalse(Files.exists(out.resolve("time.png")), "nothing to plot when every point failed");
        assertFalse(Files.exists(out.resolve("skipped.png")));
        for (String id : List.of("lines", "one")) {
            byte[] png = Files.readAllBytes(out.resolve(id + "-ratio.png"));
            assertArrayEquals(PNG_MAGIC, java.util.Arrays.copyOf(png, 4), id + "-ratio.png is a PNG");
            assertTrue(png.length > 10_000, id + "-ratio.png has a chart in it");
            String svg = Files.readString(out.resolve(id + "-ratio.svg"));
            assertTrue(svg.contains("<svg") && svg.contains("</svg>"), id + "-ratio.svg is an SVG");
        }
        for (String id : List.of("bars", "time", "noref", "skipped")) {
            assertFalse(Files.exists(out.resolve(id + "-ratio.png")) || Files.exists(out.resolve(id + "-ratio.svg")),
                    "no ratio plot for " + id + ": no reference, nothing measured, or skipped");
        }
        assertTrue(Files.exists(out.resolve("noref.png")), "noref's VNA points were measured");

        String html = Files.readString(out.resolve("index.html"), StandardCharsets.UTF_8);
        for (String fragment : List.of("id=\"lines\"", "id=\"bars\"", "id=\"time\"", "Lines &lt;b&gt;bold&lt;/b&gt;",
                "<img src=\"lines.png\"", "href=\"bars.svg\"", "Report &lt;test&gt; &amp; friends",
                "<img src=\"lines-ratio.png\"", "href=\"lines-ratio.svg\"", "<img src=\"one-ratio.png\"",
                "failed: boom &lt;at&gt; lines/VNA/8", "No point of this bench was measured successfully",
                "id=\"machine\"", "NUMA nodes", "JDK", "id=\"config\"", "&quot;benches&quot;",
                "--add-opens=java.base/java.lang=ALL-UNNAMED", "test placement")) {
            assertTrue(html.contains(fragment), "index.html lacks " + fragment);
        }
        assertFalse(html.contains("<b>bold</b>"), "titles are escaped");
        int verdict = html.indexOf("id=\"verdict\"");
        assertTrue(verdict > 0 && verdict < html.indexOf("id=\"summary\"") && verdict < html.indexOf("id=\"lines\""),
                "the verdict comes before the tables");
        assertTrue(html.contains("SYNCHRONIZED: ") && html.contains("x unfair ReentrantLock (geometric mean of 4 points); best "),
                "a verdict line per lock: " + html.substring(verdict, Math.min(html.length(), verdict + 600)));
        assertFalse(html.contains("id=\"skipped\""), "skipped benches are not reported");
        assertFalse(html.contains("bars-ratio") || html.contains("noref-ratio"), "no ratio plot, no image");
        assertFalse(html.contains("intervals do not overlap"), "the rule is the ratio's own interval");
        assertTrue(html.contains("▲ faster and ▼ slower where that interval excludes 1"), html);
        String whoWon = html.substring(html.indexOf("id=\"summary\""), html.indexOf("<h2 id=\"lines\""));
        // Every round of a fake point is the same: each ratio is known exactly, its interval [r, r].
        assertTrue(whoWon.matches("(?s).*<td>(\\d\\.\\d\\d) \\[\\1, \\1\\]( [▲▼])?</td>.*"),
                "a cell shows its ratio, interval and mark: " + whoWon);
        assertTrue(whoWon.contains("<p class=\"muted\">precision reached: median ±0.0%, widest ±0.0% (95% intervals of "
                + "7 ratios); groups: 4 ran fixed rounds.</p>"), "a precision line under each table: " + whoWon);
        assertTrue(whoWon.contains("<tr><td class=\"l\">VNA</td><td>1.29 [-]</td>"), "one fork, no interval: " + whoWon);
        assertTrue(html.substring(verdict, html.indexOf("id=\"summary\"")).contains("Over every ratio of <a href=\"#summary\">who won</a>, precision reached: median ±0.0%, widest "
                + "±0.0% (95% intervals of 7 ratios, 2 without); groups: 5 ran fixed rounds"),
                "the verdict states the precision reached: " + html.substring(verdict, html.indexOf("id=\"summary\"")));
        String lines = html.substring(html.indexOf("<h2 id=\"lines\""), html.indexOf("<h2 id=\"bars\""));
        assertTrue(lines.contains("<b>VNA against the best other lock</b>") && lines.contains("<b>Serial bound</b>"), lines);
        List<String> summaryCsv = Files.readAllLines(out.resolve(Summary.FILE));
        assertTrue(summaryCsv.stream().anyMatch(l -> l.startsWith("lines,VNA,1,") && l.endsWith(",best-other,SYNCHRONIZED,1.0000,1.0000")),
                "VNA's rounds take as long as SYNCHRONIZED's, UNFAIR_REENTRANT's longer: " + summaryCsv);
        assertTrue(summaryCsv.stream().anyMatch(l -> l.startsWith("lines,UNFAIR_REENTRANT,4,") && l.endsWith(",serial-bound,UNFAIR_REENTRANT,0.5385,0.5385")),
                summaryCsv.toString());
        assertTrue(Files.exists(out.resolve("machine.json")) && Files.exists(out.resolve("config.json")));
    }

    /** A paired server level shows the paired server's p99 and the point's p99 over it; other benches do not. */
    @Test
    void pairedServerPointsShowThePairedP99AndTheRatio(@TempDir Path out) throws Exception {
        String config = """
                { "benches": [
                    { "name": "server", "id": "paired", "payload": { "title": "Paired", "threads": [2], "loadPercent": 50,
                      "saturationPerSecond": 4000, "pairedWith": "UNFAIR_REENTRANT", "locks": [ { "name": "VNA" } ] } },
                    { "name": "consumeCpu", "id": "alone", "payload": { "title": "Alone", "threads": [2],
                      "locks": [ { "name": "VNA" } ] } } ] }
                """;
        PointExecutor executor = (point, work, log) -> {
            org.HdrHistogram.Histogram own = new org.HdrHistogram.Histogram(2);
            org.HdrHistogram.Histogram paired = new org.HdrHistogram.Histogram(2);
            for (int i = 0; i < 100; i++) {
                own.recordValue(3_000_000);
                paired.recordValue(4_000_000);
            }
            boolean server = point.bench().id().equals("paired");
            return new PointExecutor.Measurement(List.of(List.of(10.0, 10.0)), List.of(new ForkReport(1, 1000, List.of(1.0),
                    List.of(1.0), ForkReport.encode(own), 0, 0, "p", "c", "2 cpus", null, null, null, null, null, null, null,
                    server ? ForkReport.encode(paired) : null)));
        };
        new BenchRunner(ConfigReader.parse(config, "paired.json", 2, Mutex.names()), out, false, executor,
                TestListeners.onNotice(text -> {
                    throw new AssertionError(text);
                })).run();
        String html = Files.readString(out.resolve("index.html"), StandardCharsets.UTF_8);
        int paired = html.indexOf("id=\"paired\"");
        int alone = html.indexOf("id=\"alone\"");
        assertTrue(paired > 0 && alone > 0, "both benches are reported");
        String pairedSection = html.substring(paired, html.indexOf("<h2", paired + 1));
        String aloneSection = html.substring(alone, html.indexOf("<h2", alone + 1));
        assertTrue(pairedSection.contains("<th>paired p99 µs</th><th>p99 ÷ paired</th>"), pairedSection);
        assertTrue(pairedSection.contains("<code>UNFAIR_REENTRANT</code>"), "the note names the paired lock");
        // 3 ms over 4 ms (HdrHistogram's equivalent values of both, within 1%).
        assertTrue(pairedSection.contains("<td>0.75</td>"), pairedSection);
        assertFalse(aloneSection.contains("paired p99"), "a bench without a pair has no paired columns");
        List<PointResult> rows = ResultStore.load(out);
        assertEquals(2, rows.size());
        assertTrue(rows.stream().anyMatch(r -> r.pairedP99Ns() != null && r.pairedP99Ns() > 3_990_000));
    }

    @Test
    void redrawsFromTheFilesAlone(@TempDir Path out) throws Exception {
        run(out);
        List<String> files = List.of("index.html", "lines.png", "lines.svg", "bars.png", "bars.svg", "lines-ratio.png",
                "lines-ratio.svg", "one-ratio.png", "one-ratio.svg");
        for (String f : files) {
            Files.delete(out.resolve(f));
        }
        Report.write(out);
        for (String f : files) {
            assertTrue(Files.size(out.resolve(f)) > 0, f);
        }
    }

    @Test
    void textTableHasARowPerPoint(@TempDir Path out) throws Exception {
        run(out);
        List<PointResult> rows = ResultStore.load(out);
        String table = Report.textTable(rows);
        assertEquals(rows.size() + 1, table.lines().count());
        assertTrue(table.lines().anyMatch(l -> l.startsWith("lines") && l.contains("VNA") && l.contains("FAILED: boom")));
    }

    @Test
    void throughputIntervalNeverShowsANegativeLowerBound() {
        assertEquals("0* – 12.0", Report.throughputCi(-3.2, 12.0));
        assertEquals(Report.num(1.5) + " – " + Report.num(12.0), Report.throughputCi(1.5, 12.0));
        assertFalse(Report.throughputCi(-0.01, 5.0).startsWith("-"));
        assertEquals("", Report.throughputCi(null, null));
    }

    /** A latency within twice the timer's floor is shown as a bound, not as data; others as µs; no floor, no bound. */
    @Test
    void latenciesAtTheTimersFloorAreShownAsABound() {
        assertEquals("≤ " + Report.num(0.04), Report.microsOrFloor(35L, 20L));
        assertEquals("≤ " + Report.num(0.04), Report.microsOrFloor(40L, 20L));
        assertEquals(Report.micros(41L), Report.microsOrFloor(41L, 20L));
        assertEquals(Report.micros(35L), Report.microsOrFloor(35L, null));
        assertEquals("", Report.microsOrFloor(null, 20L));
        long floor = MachineInfo.measureTimerFloorNs();
        assertTrue(floor > 0 && floor < 1_000_000, "nanoTime steps by " + floor + " ns here");
    }

    /** A machine.json written before the floor was recorded still reads, with no floor. */
    @Test
    void aMachineFileWithoutTheFloorStillReads(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(MachineInfo.FILE), """
                { "host": "h", "cpuModel": "c", "cpus": 2, "nodes": 1, "topology": "t", "cpuSource": "s", "memory": "m",
                  "os": "o", "jdk": "j", "javaHome": "jh", "benchJvmArgs": [], "jmh": "1.37", "stalls": null }
                """);
        MachineInfo m = MachineInfo.readFrom(dir);
        assertEquals("h", m.host());
        assertEquals(null, m.timerFloorNs());
    }

    /** The locks of one report get colors of their own: the JDK's queues, last in the registry, do not take the JDK locks'. */
    @Test
    void theLocksOfAReportHaveDistinctColors() throws Exception {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [ { "name": "queue", "payload": { "threads": [2], "locks": [ { "name": "VNA" },
                  { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" }, { "name": "ARRAY_BLOCKING_QUEUE" },
                  { "name": "LINKED_BLOCKING_QUEUE" } ] } } ] }
                """, "colors.json", 2, ConfigReader.lockNames());
        List<String> order = Report.lockOrder(config);
        List<String> locks = config.benches().getFirst().locks();
        assertEquals(locks.size(), locks.stream().map(l -> Charts.colorOf(l, order)).distinct().count(), order.toString());
        List<String> registry = Report.lockOrder(ConfigReader.parse(CONFIG, "report.json", 2, Mutex.names()));
        for (String lock : List.of("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED")) {
            assertEquals(Charts.colorOf(lock, registry), Charts.colorOf(lock, order), lock + " keeps its color");
        }
    }
}
