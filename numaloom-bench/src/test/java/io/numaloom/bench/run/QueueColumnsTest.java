package io.numaloom.bench.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The queue's futile wake-ups and signal-to-lock times reach results.csv and results.json (as their last columns),
 * the text table and the report, blank for the JDK's blocking queues; results of an older build, without them,
 * still load and resume.
 */
class QueueColumnsTest {
    private static final List<String> NEW_COLUMNS = List.of("futileWakeupsPerOp", "signalToLockP50Ns", "signalToLockP99Ns");

    private static BenchConfig config() throws Exception {
        return ConfigReader.parse("""
                { "benches": [ { "name": "queue", "id": "q", "payload": { "threads": [2, 4],
                  "locks": [ { "name": "VNA" }, { "name": "ARRAY_BLOCKING_QUEUE" } ] } } ] }
                """, "queue.json", 2, ConfigReader.lockNames());
    }

    /** 1000 signal-to-lock times: 980 of 5 µs, 20 of 80 µs. */
    private static Histogram signalTimes() {
        Histogram h = new Histogram(2);
        h.recordValueWithCount(5_000, 980);
        h.recordValueWithCount(80_000, 20);
        return h;
    }

    /** VNA points come back with 7,500 futile wake-ups over 3 rounds of 10,000 items; the JDK's queue with none. */
    private static final PointExecutor EXECUTOR = (point, work, log) -> {
        boolean counted = !point.lock().equals("ARRAY_BLOCKING_QUEUE");
        ForkReport report = new ForkReport(7, 10_000, List.of(1.0, 1.0, 1.0), List.of(1.0, 1.0, 1.0), null, 0, 0, "p", "c",
                "2 cpus, 1 nodes; test", null, null, 1_000L, null, null, null, null, null,
                counted ? 7_500L : null, counted ? ForkReport.encode(signalTimes()) : null, null);
        return new PointExecutor.Measurement(List.of(List.of(10.0, 11.0, 9.0)), List.of(report));
    };

    @Test
    void theColumnsReachTheCsvTheJsonTheTextTableAndTheReport(@TempDir Path out) throws Exception {
        List<PointResult> rows = new BenchRunner(config(), out, false, EXECUTOR, TestListeners.SILENT).run();
        assertEquals(4, rows.size());
        Histogram h = signalTimes();
        for (PointResult r : rows) {
            if (r.lock().equals("VNA")) {
                assertEquals(0.25, r.futileWakeupsPerOp(), 1e-9);
                assertEquals(h.highestEquivalentValue(5_000), r.signalToLockP50Ns());
                assertEquals(h.highestEquivalentValue(80_000), r.signalToLockP99Ns());
            } else {
                assertNull(r.futileWakeupsPerOp(), r.key());
                assertNull(r.signalToLockP50Ns(), r.key());
                assertNull(r.signalToLockP99Ns(), r.key());
            }
        }

        List<String> csv = Files.readAllLines(out.resolve(ResultStore.CSV_FILE));
        List<String> header = List.of(csv.getFirst().split(","));
        int session = header.indexOf("session");
        assertEquals(NEW_COLUMNS, header.subList(session - 3, session),
                "new columns come after the older ones, before the session (added later still)");
        assertEquals(List.of("ownerChangesPerOp", "gapNs", "handoffGapNs", "reacquireGapNs", "roundOpsPerMs", "roundsStop",
                "pilotRounds", "roundLatencyMaxNs", "roundLatencyP999Ns"), header.subList(session + 1, header.size()),
                "and the handoff timing's after the session, then the rounds', then the rounds' waits (added later still)");
        assertEquals("seconds", header.get(session - 4), "the older columns keep their places");
        String vna = csv.stream().filter(l -> l.startsWith("q,queue,queue,VNA,2,")).findFirst().orElseThrow();
        assertTrue(vna.contains(",0.25," + h.highestEquivalentValue(5_000) + "," + h.highestEquivalentValue(80_000) + ",1,,,,,"), vna);
        String abq = csv.stream().filter(l -> l.startsWith("q,queue,queue,ARRAY_BLOCKING_QUEUE,2,")).findFirst().orElseThrow();
        assertTrue(abq.contains(",,,,1,,,,,"), abq);
        ResumeTest.assertNoDuplicates(out);
        String json = Files.readString(out.resolve(ResultStore.JSON_FILE));
        assertTrue(json.contains("\"futileWakeupsPerOp\" : 0.25"), json);

        String table = Report.textTable(rows);
        assertTrue(table.lines().findFirst().orElseThrow().contains("futile/op"), table);
        assertTrue(table.lines().anyMatch(l -> l.contains("VNA") && l.contains("0.250")), table);

        String html = Files.readString(out.resolve(Report.INDEX));
        assertTrue(html.contains("<th>futile wake-ups/op</th><th>signal→lock p50 µs</th><th>signal→lock p99 µs</th>"), html);
        assertTrue(html.contains("<td>0.250</td>"), "VNA's futile wake-ups per item");
        assertTrue(html.contains("<b>futile wake-ups/op, signal→lock p50/p99</b>"), "the columns are explained");
    }

    @Test
    void otherWorkloadsShowNoQueueColumns(@TempDir Path out) throws Exception {
        List<PointResult> rows = new BenchRunner(ResumeTest.config(), out, false, new FakeExecutor(), TestListeners.SILENT).run();
        assertTrue(rows.stream().allMatch(r -> r.futileWakeupsPerOp() == null && r.signalToLockP50Ns() == null));
        assertFalse(Report.textTable(rows).contains("futile/op"));
        assertFalse(Files.readString(out.resolve(Report.INDEX)).contains("<th>futile wake-ups/op</th>"));
    }

    /** A results.json and fork reports written before the columns existed read back with them blank, and resume. */
    @Test
    void resultsOfAnOlderBuildLoadAndResume(@TempDir Path out) throws Exception {
        BenchConfig config = config();
        new BenchRunner(config, out, false, EXECUTOR, TestListeners.SILENT).run();
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode old = (ArrayNode) mapper.readTree(out.resolve(ResultStore.JSON_FILE).toFile());
        old.forEach(row -> ((ObjectNode) row).remove(NEW_COLUMNS));
        for (int i = 0; i < old.size(); i++) {
            if (old.get(i).path("lock").asText().equals("VNA") && old.get(i).path("threads").asInt() == 4) {
                old.remove(i); // this point was cut short
            }
        }
        mapper.writeValue(out.resolve(ResultStore.JSON_FILE).toFile(), old);

        List<PointResult> loaded = ResultStore.load(out);
        assertEquals(3, loaded.size());
        assertTrue(loaded.stream().allMatch(r -> r.futileWakeupsPerOp() == null && r.signalToLockP99Ns() == null));
        List<PointResult> resumed = new BenchRunner(config, out, true, EXECUTOR, TestListeners.SILENT).run();
        assertEquals(4, resumed.size());
        assertEquals(0.25, resumed.stream().filter(r -> r.key().equals("q/VNA/4")).findFirst().orElseThrow().futileWakeupsPerOp(), 1e-9,
                "the point measured on resume has them");
        ResumeTest.assertNoDuplicates(out);

        Path forks = Files.createDirectories(out.resolve("forks"));
        ObjectNode fork = mapper.valueToTree(new ForkReport(9, 100, List.of(1.0), List.of(1.0), null, 0, 0, "p", "c", "t", null,
                null, null, null));
        fork.remove(List.of("futileWakeups", "signalToLock"));
        mapper.writeValue(forks.resolve("fork-9.json").toFile(), fork);
        ForkReport read = ForkReport.readAll(forks).getFirst();
        assertNull(read.futileWakeups());
        assertNull(read.signalToLock());
    }
}
