package io.numaloom.bench.run;

import io.numaloom.bench.Point;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.report.MachineInfo;
import io.numaloom.bench.report.Recommendation;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.report.Summary;
import io.numaloom.bench.result.MachineStalls;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import io.numaloom.bench.result.Session;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run cut short and resumed is measured in two sessions: both are recorded (start, load, stall probe), every row
 * names its session, and no ratio compares points of two sessions without saying so.
 */
class SessionsTest {

    /** {@code fake}'s measurements, and {@code stalls} as the machine's probe. */
    private static PointExecutor probing(FakeExecutor fake, MachineStalls stalls) {
        return new PointExecutor() {
            @Override
            public Measurement measure(Point point, Path workDir, Path logFile) throws PointFailedException {
                return fake.measure(point, workDir, logFile);
            }

            @Override
            public MachineStalls probeStalls() {
                return stalls;
            }
        };
    }

    @Test
    void aResumedRunRecordsBothSessionsAndComparesOnlyWithinOne(@TempDir Path out) throws Exception {
        BenchConfig config = ResumeTest.config();
        MachineStalls quiet = new MachineStalls(2, 2.0, 1, 1_200_000);
        MachineStalls loaded = new MachineStalls(2, 2.0, 40, 9_000_000);
        // Cut in the third fork: the group high x1 (VNA, UNFAIR_REENTRANT) is recorded, high x2 is not.
        assertThrows(FakeExecutor.Killed.class,
                () -> new BenchRunner(config, out, false, probing(new FakeExecutor(3, Set.of()), quiet), ResumeTest.SILENT).run());
        Session first = MachineInfo.readFrom(out).sessions().getFirst();
        assertEquals(1, MachineInfo.readFrom(out).sessions().size());

        List<String> notices = new ArrayList<>();
        new BenchRunner(config, out, true, probing(new FakeExecutor(), loaded), TestListeners.onNotice(notices::add)).run();
        // A group is measured in one session; a run written before rounds could split one across two (high x2: VNA
        // in session 1, UNFAIR_REENTRANT in session 2). Rewrite VNA's row so, to check how such a ratio is shown.
        ResultStore rewritten = ResultStore.open(out);
        rewritten.add(rewritten.find("high/VNA/2").orElseThrow().withSession(1));
        Report.write(out);

        // Both sessions, each with its own probe; the first one's is kept, not replaced.
        MachineInfo machine = MachineInfo.readFrom(out);
        assertEquals(List.of(1, 2), machine.sessions().stream().map(Session::number).toList());
        assertEquals(first, machine.sessions().getFirst(), "session 1 as it was recorded");
        assertEquals(quiet, machine.sessions().get(0).stalls());
        assertEquals(loaded, machine.sessions().get(1).stalls());
        assertEquals(quiet, machine.stalls(), "the run's probe is still the first session's");
        assertNotNull(machine.sessions().get(1).started());
        assertTrue(notices.stream().anyMatch(n -> n.startsWith("this is session 2 ") && n.contains("session 1 (started ")),
                notices.toString());

        // Every row names the session that measured it, in the JSON and the CSV.
        Map<String, Integer> sessionOf = new LinkedHashMap<>();
        ResultStore.load(out).forEach(r -> sessionOf.put(r.key(), r.session()));
        assertEquals(Map.of("high/VNA/1", 1, "high/UNFAIR_REENTRANT/1", 1, "high/VNA/2", 1, "high/UNFAIR_REENTRANT/2", 2,
                "high/VNA/4", 2, "high/UNFAIR_REENTRANT/4", 2, "sync/SYNCHRONIZED/1", 2, "sync/VNA/1", 2), sessionOf);
        List<String> csv = Files.readAllLines(out.resolve(ResultStore.CSV_FILE));
        assertTrue(csv.getFirst().endsWith(",session,ownerChangesPerOp,gapNs,handoffGapNs,reacquireGapNs,roundOpsPerMs,roundsStop,"
                + "pilotRounds,roundLatencyMaxNs,roundLatencyP999Ns"), csv.getFirst());
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("high,") && l.contains(",VNA,2,") && l.contains(",1,,,,,")), csv.toString());
        ResumeTest.assertNoDuplicates(out);

        // VNA at 2 threads (session 1) against UNFAIR_REENTRANT at 2 threads (session 2): shown, never counted.
        List<PointResult> rows = ResultStore.load(out);
        Summary.LockLine vna = Summary.of(config, rows).getFirst().locks().getFirst();
        assertEquals(List.of(false, true, false), vna.cells().stream().map(Summary.Cell::spansSessions).toList());
        double x1 = vna.cells().get(0).ratio();
        double x4 = vna.cells().get(2).ratio();
        assertEquals(Math.sqrt(x1 * x4), vna.geometricMean(), 1e-9, "the mean is over the points of one session");
        assertTrue(vna.verdict().contains("left out at 2 threads: measured in another session"), vna.verdict());
        assertTrue(Files.readAllLines(out.resolve(Summary.FILE)).stream()
                .anyMatch(l -> l.startsWith("high,VNA,2,") && l.contains(",sessions-differ,") && l.endsWith(",1,2,baseline,UNFAIR_REENTRANT,,")));

        // The verdict compares on the two points of one session and says why the third is left out.
        Recommendation verdict = Recommendation.read(out);
        assertEquals(2, verdict.points());
        assertTrue(verdict.header().contains("(high x1, 4)"), verdict.header());
        String sessions = verdict.notes().stream().filter(n -> n.startsWith("⚠ Measured in 2 sessions")).findFirst()
                .orElseThrow(() -> new AssertionError("no sessions note: " + verdict.notes()));
        assertTrue(sessions.startsWith("⚠ Measured in 2 sessions (session 1 (started " + first.started())
                && sessions.contains("1 ratio at 1 point would compare two sessions and is left out"), sessions);
        assertTrue(sessions.contains("longest stall 1.2 ms") && sessions.contains("longest stall 9.0 ms"), sessions);

        // The report lists both sessions, the session of each point, and puts the ratio across sessions in parentheses.
        String html = Files.readString(out.resolve(Report.INDEX), StandardCharsets.UTF_8);
        assertTrue(html.contains("<th class=\"l\">Session 1</th>") && html.contains("<th class=\"l\">Session 2</th>"), html);
        assertTrue(html.contains(quiet.describe()) && html.contains(loaded.describe()), "both probes are in the report");
        assertTrue(html.contains("<th>session</th>"), "the table of a bench measured in two sessions names each point's");
        assertTrue(html.contains("<td>(" + String.format(java.util.Locale.ROOT, "%.2f", vna.cells().get(1).ratio()) + ")</td>"),
                "the ratio across sessions is in parentheses, without interval or mark");
        assertTrue(html.contains("1 ratio at 1 point would compare two sessions"), "the verdict's warning is in the report");
    }

    /** A run in one session says nothing of sessions, and its rows are all session 1. */
    @Test
    void aRunInOneSessionIsSessionOne(@TempDir Path out) throws Exception {
        new BenchRunner(ResumeTest.config(), out, false, new FakeExecutor(), ResumeTest.SILENT).run();
        assertTrue(ResultStore.load(out).stream().allMatch(r -> Integer.valueOf(1).equals(r.session())));
        assertEquals(1, MachineInfo.readFrom(out).sessions().size());
        assertTrue(Recommendation.read(out).notes().stream().noneMatch(n -> n.contains("session")),
                Recommendation.read(out).notes().toString());
    }

    /**
     * A run written before sessions were recorded (no session in its rows or machine file) resumes as its session 2:
     * its rows are session 1's, with the probe and the start the folder had.
     */
    @Test
    void aRunWrittenBeforeSessionsResumesAsSessionTwo(@TempDir Path out) throws Exception {
        BenchConfig config = ResumeTest.config();
        MachineStalls old = new MachineStalls(2, 2.0, 5, 3_000_000);
        assertThrows(FakeExecutor.Killed.class,
                () -> new BenchRunner(config, out, false, probing(new FakeExecutor(3, Set.of()), old), ResumeTest.SILENT).run());
        // Rewrite the folder as an older version left it: no session anywhere.
        MachineInfo m = MachineInfo.readFrom(out);
        new MachineInfo(m.host(), m.cpuModel(), m.cpus(), m.nodes(), m.topology(), m.cpuSource(), m.memory(), m.os(), m.jdk(),
                m.javaHome(), m.benchJvmArgs(), m.jmh(), m.stalls(), m.timerFloorNs(), null).writeTo(out);
        List<PointResult> rows = ResultStore.load(out);
        Files.delete(out.resolve(ResultStore.JSON_FILE));
        ResultStore store = ResultStore.open(out);
        for (PointResult r : rows) {
            store.add(new PointResult(r.bench(), r.title(), r.workload(), r.lock(), r.threads(), r.threadType(), r.carriers(),
                    r.remotePenaltyNs(), r.topology(), r.forks(), r.rounds(), r.opsPerRound(), r.opsPerMs(), r.opsPerMsCiLow(),
                    r.opsPerMsCiHigh(), r.timeMs(), r.timeMsCiLow(), r.timeMsCiHigh(), r.jain(), r.minMaxRatio(),
                    r.latencyP50Ns(), r.latencyP99Ns(), r.latencyP999Ns(), r.latencyMaxNs(), r.handoffs(),
                    r.localHandoffFraction(), r.slowPathsPerOp(), r.queuedPerOp(), r.parksPerOp(), r.unparksPerOp(),
                    r.reservations(), r.yields(), r.bytesPerOp(), r.retainedBytes(), r.status(), r.error(), r.placement(),
                    r.cpuSource(), r.fingerprint(), r.startedAt(), r.seconds(), r.foreignAcquisitionFraction(),
                    r.migrationsPerOp(), r.pairedP99Ns(), r.futileWakeupsPerOp(), r.signalToLockP50Ns(), r.signalToLockP99Ns()));
        }
        assertTrue(ResultStore.load(out).stream().allMatch(r -> r.session() == null));

        new BenchRunner(config, out, true, new FakeExecutor(), ResumeTest.SILENT).run();
        MachineInfo after = MachineInfo.readFrom(out);
        assertEquals(List.of(1, 2), after.sessions().stream().map(Session::number).toList());
        assertEquals(old, after.sessions().getFirst().stalls(), "the old probe is session 1's");
        assertEquals(old, after.stalls());
        String started = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(out.resolve(io.numaloom.bench.result.ResultsDirectory.RUN_FILE).toFile()).get("started").asText();
        assertEquals(started, after.sessions().getFirst().started(), "session 1 started when the run did");
        assertEquals(2, ResultStore.load(out).stream().filter(r -> r.sessionOrFirst() == 1).count(), "the group high x1");
        assertTrue(Recommendation.read(out).notes().stream().noneMatch(n -> n.contains("would compare two sessions")),
                "a group is measured in one session, so no ratio spans two: " + Recommendation.read(out).notes());
    }
}
