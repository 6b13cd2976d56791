package io.numaloom.bench.run;

import io.numaloom.VnaLock;
import io.numaloom.bench.Mutex;
import io.numaloom.bench.Point;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.locks.KeyedSchemes;
import io.numaloom.bench.locks.Locks;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.result.PointResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** VnaLock's contended-path counters reach the CSV, the JSON and the report, per operation. */
class DiagnosticsColumnsTest {

    @Test
    void theDiagnosticsSettingTurnsTheCountersOnInTheMeasuredJvm() throws Exception {
        BenchConfig on = ConfigReader.parse("""
                { "defaults": { "diagnostics": true }, "benches": [ { "name": "randBash",
                  "payload": { "locks": [ { "name": "VNA" } ] } } ] }""", "on.json", 2, Mutex.names());
        BenchConfig off = ConfigReader.parse("""
                { "benches": [ { "name": "randBash", "payload": { "locks": [ { "name": "VNA" } ] } } ] }""", "off.json", 2, Mutex.names());
        assertTrue(on.benches().getFirst().measuredJvmArgs().contains("-Dnumaloom.diagnostics=true"));
        assertFalse(off.benches().getFirst().measuredJvmArgs().stream().anyMatch(a -> a.contains("diagnostics")));
        assertFalse(on.benches().getFirst().fingerprint().equals(off.benches().getFirst().fingerprint()),
                "counting changes what is measured, so it changes the fingerprint");
    }

    @Test
    void countsArePerOperationAndBlankWithoutDiagnostics(@TempDir Path out) throws Exception {
        BenchConfig config = ResumeTest.config();
        List<PointResult> rows = new BenchRunner(config, out, false, new FakeExecutor(), ResumeTest.SILENT).run();
        PointResult vna = rows.stream().filter(r -> r.key().equals("high/VNA/2")).findFirst().orElseThrow();
        PointResult reentrant = rows.stream().filter(r -> r.key().equals("high/UNFAIR_REENTRANT/2")).findFirst().orElseThrow();
        // FakeExecutor: 12,000 slow paths, 6,000 queued, 3,000 parks and wake-ups over 3 rounds of 10,000 operations.
        assertEquals(0.4, vna.slowPathsPerOp(), 1e-9);
        assertEquals(0.2, vna.queuedPerOp(), 1e-9);
        assertEquals(0.1, vna.parksPerOp(), 1e-9);
        assertEquals(0.1, vna.unparksPerOp(), 1e-9);
        assertEquals(5L, vna.reservations());
        assertEquals(7L, vna.yields());
        assertNull(reentrant.parksPerOp());
        String csv = Files.readString(out.resolve("results.csv"));
        assertTrue(csv.lines().findFirst().orElseThrow().contains("slowPathsPerOp,queuedPerOp,parksPerOp,unparksPerOp,reservations,yields"));
        String html = Files.readString(out.resolve("index.html"));
        assertTrue(html.contains("<th>parks/op</th>"));
        assertTrue(html.contains("<th>yields</th>"));
    }

    /**
     * Only numaloom's own locks count the diagnostics, so only they get the columns: a baseline's would read 0 parks
     * however often it parks. Every registered lock that is a {@code VnaLock} counts, and only those (and
     * {@code KeyedLock}'s scheme among the keyed ones).
     */
    @Test
    void onlyNumaloomsLocksCountDiagnostics() {
        for (String name : Locks.names()) {
            assertEquals(Locks.create(name) instanceof VnaLock, Locks.countsDiagnostics(name), name);
        }
        for (String name : KeyedSchemes.names()) {
            assertEquals(name.equals(KeyedSchemes.KEYED_LOCK), Locks.countsDiagnostics(name), name);
        }
        assertFalse(Locks.countsDiagnostics(Locks.SYNCHRONIZED));
    }

    /** On one node every handoff is local: the fraction would read 100% and mean nothing, so it is blank. */
    @Test
    void localHandoffsAreBlankOnOneNodeAndTimesHaveNoNanoseconds() throws Exception {
        Point point = BenchRunner.points(ResumeTest.config()).getFirst();
        ForkReport oneNode = report("2 cpus, 1 nodes; sysfs");
        ForkReport twoNodes = report("2 cpus, 2 nodes; numaloom.topology=nodes=2 (virtual)");
        java.time.Instant started = java.time.Instant.parse("2026-11-22T18:02:59.495897779Z");
        PointResult one = PointResult.measured(point, List.of(List.of(1.0, 1.0)), List.of(oneNode), started, 1);
        PointResult two = PointResult.measured(point, List.of(List.of(1.0, 1.0)), List.of(twoNodes), started, 1);
        assertNull(one.localHandoffFraction());
        assertEquals(0.5, two.localHandoffFraction(), 1e-9);
        assertEquals("2026-11-22T18:02:59.495Z", one.startedAt());
    }

    private static ForkReport report(String topology) {
        return new ForkReport(1, 1000, List.of(1.0), List.of(1.0), null, 100, 50, "p", "c", topology, null, null, null, null);
    }
}
