package io.numaloom.bench.run;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.Point;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import io.numaloom.bench.result.ResultsDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A run killed after some points continues with {@code --resume} without measuring any point twice. */
public class ResumeTest {
    static final String CONFIG = """
            { "benches": [
                { "name": "consumeCpu", "id": "high", "payload": { "threads": [1, 2, 4],
                  "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] } },
                { "name": "sync", "id": "sync", "payload": { "locks": [ { "name": "SYNCHRONIZED" }, { "name": "VNA" } ] } } ] }
            """;

    public static BenchConfig config() throws ConfigException {
        return ConfigReader.parse(CONFIG, "resume.json", 2, Mutex.names());
    }

    static final BenchRunner.Listener SILENT = TestListeners.SILENT;

    @Test
    void resumeMeasuresOnlyWhatTheKilledRunDidNot(@TempDir Path out) throws Exception {
        BenchConfig config = config();
        List<String> all = BenchRunner.points(config).stream().map(Point::key).toList();
        assertEquals(8, all.size());

        // Killed in the third fork: the first group (high x1: two locks, one round) is recorded, the second is not.
        FakeExecutor first = new FakeExecutor(3, Set.of());
        assertThrows(FakeExecutor.Killed.class, () -> new BenchRunner(config, out, false, first, SILENT).run());
        assertEquals(Set.copyOf(all.subList(0, 2)), Set.copyOf(first.asked.subList(0, 2)));
        assertEquals(all.subList(0, 2), ResultStore.load(out).stream().map(PointResult::key).toList());
        // The killed process also left a half-written temporary file and a CSV line cut short.
        Files.writeString(out.resolve("results.json.tmp"), "[ { \"bench\": ");
        Files.writeString(out.resolve("results.csv"), Files.readString(out.resolve("results.csv")) + "high,Consu",
                java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);

        FakeExecutor second = new FakeExecutor();
        List<PointResult> rows = new BenchRunner(config, out, true, second, SILENT).run();
        assertEquals(Set.copyOf(all.subList(2, 8)), Set.copyOf(second.asked),
                "only the groups without every result were measured, each whole");
        assertEquals(6, second.asked.size());
        assertEquals(all, rows.stream().map(PointResult::key).toList());
        assertNoDuplicates(out);
        assertEquals(8, ResultStore.load(out).size());

        FakeExecutor third = new FakeExecutor();
        new BenchRunner(config, out, true, third, SILENT).run();
        assertEquals(List.of(), third.asked, "a finished run has nothing left to measure");
    }

    @Test
    void failedPointsAreMeasuredAgainOnResumeAndReplaceTheirRow(@TempDir Path out) throws Exception {
        BenchConfig config = config();
        String failing = "high/VNA/2";
        List<PointResult> rows = new BenchRunner(config, out, false, new FakeExecutor(Integer.MAX_VALUE, Set.of(failing)), SILENT).run();
        PointResult failed = rows.stream().filter(r -> r.key().equals(failing)).findFirst().orElseThrow();
        assertEquals(PointResult.FAILED, failed.status());
        assertEquals("java.lang.UnsupportedOperationException: not yet", failed.error());

        FakeExecutor again = new FakeExecutor();
        rows = new BenchRunner(config, out, true, again, SILENT).run();
        assertEquals(Set.of(failing, "high/UNFAIR_REENTRANT/2"), Set.copyOf(again.asked),
                "the failed point's group is measured again whole: its ratios pair its locks' forks by round");
        assertEquals(2, again.asked.size());
        assertTrue(rows.stream().allMatch(PointResult::ok));
        assertNoDuplicates(out);
    }

    @Test
    void resumingWithAnotherConfigurationIsRefusedAndTouchesNothing(@TempDir Path out) throws Exception {
        new BenchRunner(config(), out, false, new FakeExecutor(), SILENT).run();
        String configBefore = Files.readString(out.resolve(ResultsDirectory.CONFIG_FILE));
        String rowsBefore = Files.readString(out.resolve("results.csv"));
        String runBefore = Files.readString(out.resolve(ResultsDirectory.RUN_FILE));
        BenchConfig other = ConfigReader.parse(CONFIG.replace("\"threads\": [1, 2, 4],", "\"threads\": [1, 2, 4], \"inCpuTokens\": 5,"),
                "other.json", 2, Mutex.names());
        FakeExecutor again = new FakeExecutor();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new BenchRunner(other, out, true, again, SILENT).run());
        assertEquals(List.of(), again.asked);
        assertTrue(e.getMessage().contains("other.json") && e.getMessage().contains("resume.json"), "names both: " + e.getMessage());
        assertTrue(e.getMessage().contains("'high' had inCpuTokens 1000, not 5"), "names the difference: " + e.getMessage());
        assertTrue(e.getMessage().contains("start a new run"), e.getMessage());
        assertEquals(configBefore, Files.readString(out.resolve(ResultsDirectory.CONFIG_FILE)));
        assertEquals(rowsBefore, Files.readString(out.resolve("results.csv")));
        assertEquals(runBefore, Files.readString(out.resolve(ResultsDirectory.RUN_FILE)));

        assertEquals(null, BenchRunner.firstDifference(config().effective(), config().effective()));
        assertEquals("it has a bench 'sync' that this configuration lacks",
                BenchRunner.firstDifference(config().effective(), onlyFirstBench(config().effective())));
        assertEquals("has no bench 'sync'",
                BenchRunner.firstDifference(onlyFirstBench(config().effective()), config().effective()));
    }

    private static com.fasterxml.jackson.databind.JsonNode onlyFirstBench(com.fasterxml.jackson.databind.node.ObjectNode effective) {
        com.fasterxml.jackson.databind.node.ObjectNode copy = effective.deepCopy();
        ((com.fasterxml.jackson.databind.node.ArrayNode) copy.get("benches")).remove(1);
        return copy;
    }

    @Test
    void aResumedRunKeepsItsFirstStartTime(@TempDir Path out) throws Exception {
        BenchConfig config = config();
        assertThrows(FakeExecutor.Killed.class, () -> new BenchRunner(config, out, false, new FakeExecutor(3, Set.of()), SILENT).run());
        String started = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.resolve(ResultsDirectory.RUN_FILE).toFile()).get("started").asText();
        Thread.sleep(5);
        new BenchRunner(config, out, true, new FakeExecutor(), SILENT).run();
        var run = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.resolve(ResultsDirectory.RUN_FILE).toFile());
        assertEquals(started, run.get("started").asText());
        assertTrue(run.hasNonNull("finished"));
    }

    /**
     * Ctrl-C as it happens: the signal reaches the measured JVM too, which dies (its point fails) before
     * this JVM's shutdown hook has said a word. The hook then stops the run: the killed point is not
     * recorded as failed, no point starts after it, and the report, work directory and lock are dealt
     * with once the run has let go of the directory. {@code stopGrace} is long here so that a busy machine
     * cannot start the hook thread too late.
     */
    @ParameterizedTest(name = "the measured JVM {0}")
    @ValueSource(strings = {"dies before the hook runs", "ends its point after the hook stopped the run"})
    void aStoppedRunSaysHowToContinueAndLeavesNoLockOrWork(String fate, @TempDir Path out) throws Exception {
        BenchConfig config = config();
        FakeExecutor fake = new FakeExecutor();
        BenchRunner[] runner = new BenchRunner[1];
        Thread[] hook = new Thread[1];
        String[] said = new String[1];
        List<String> started = new ArrayList<>();
        PointExecutor ctrlCInTheFourth = (point, work, log) -> {
            started.add(point.key());
            if (started.size() < 4) {
                return fake.measure(point, work, log);
            }
            assertTrue(Files.exists(out.resolve(BenchRunner.LOCK_FILE)));
            assertTrue(Files.isDirectory(work));
            hook[0] = Thread.ofPlatform().start(() -> said[0] = runner[0].abandon());
            if (fate.startsWith("dies")) {
                throw new PointExecutor.PointFailedException("the measured JVM exited with code 130", null);
            }
            while (!runner[0].stopped()) {
                sleepQuietly();
            }
            return fake.measure(point, work, log);
        };
        runner[0] = new BenchRunner(config, out, false, ctrlCInTheFourth, SILENT, Duration.ofSeconds(60));
        List<PointResult> rows = runner[0].run();
        hook[0].join();

        assertTrue(runner[0].stopped());
        assertEquals(4, started.size(), "no fork starts after the stop: " + started);
        assertEquals(2, rows.size(), "the group cut short (high x2) is not recorded: " + rows);
        assertEquals(2, ResultStore.load(out).size());
        assertTrue(said[0].contains("2 of 8 points"), said[0]);
        assertTrue(said[0].contains("./numaloom bench --resume --out " + out), said[0]);
        assertTrue(Files.notExists(out.resolve("work")), "the point in progress was removed");
        assertTrue(Files.notExists(out.resolve(BenchRunner.LOCK_FILE)), "the lock file was removed");
        assertTrue(Files.exists(out.resolve("index.html")), "the report of the points done was written");
        assertEquals(null, runner[0].abandon(), "nothing to say once the run has ended");

        FakeExecutor rest = new FakeExecutor();
        new BenchRunner(config, out, true, rest, SILENT).run();
        assertEquals(6, rest.asked.size(), "--resume measures the cut group and the two after it");
        assertTrue(Files.notExists(out.resolve(BenchRunner.LOCK_FILE)), "a finished run leaves no lock file");
    }

    /**
     * Ctrl-C in a resumed run, in the order that printed nothing one time in five: the hook stops the run
     * (its first step), the measured JVM dies of the same signal, and the run ends before the hook, slowed by
     * ending the measured JVMs, asks the runner what to say. The hook still says how to continue, once.
     */
    @Test
    void aStoppedResumedRunThatEndedBeforeTheHookAskedStillSaysHowToContinue(@TempDir Path out) throws Exception {
        BenchConfig config = config();
        assertThrows(FakeExecutor.Killed.class, () -> new BenchRunner(config, out, false, new FakeExecutor(3, Set.of()), SILENT).run());
        FakeExecutor fake = new FakeExecutor();
        BenchRunner[] runner = new BenchRunner[1];
        PointExecutor ctrlCInTheSecond = (point, work, log) -> {
            if (fake.asked.size() < 1) {
                return fake.measure(point, work, log);
            }
            runner[0].stop(); // the hook's first step
            throw new PointExecutor.PointFailedException("the measured JVM exited with code 130", null);
        };
        runner[0] = new BenchRunner(config, out, true, ctrlCInTheSecond, SILENT, Duration.ofSeconds(60));
        List<PointResult> rows = runner[0].run();
        assertTrue(runner[0].cutShort());
        assertEquals(2, rows.size(), "the first run's group, none of the resumed one (cut short in its group): " + rows);

        String said = runner[0].abandon(); // the hook, after run() let go of the directory
        assertTrue(said != null && said.startsWith("stopped with 2 of 8 points measured"), said);
        assertTrue(said.contains("continue with: ./numaloom bench --resume --out " + out), said);
        assertTrue(Files.exists(out.resolve("index.html")), "the report of the points done was written");
        assertTrue(Files.notExists(out.resolve("work")) && Files.notExists(out.resolve(BenchRunner.LOCK_FILE)));
        assertEquals(null, runner[0].abandon(), "said once");
    }

    /** A stop before the run started (Ctrl-C while the configuration was read) has nothing to say, and no run starts. */
    @Test
    void aRunStoppedBeforeItStartedMeasuresNothing(@TempDir Path out) throws Exception {
        FakeExecutor fake = new FakeExecutor();
        BenchRunner runner = new BenchRunner(config(), out, false, fake, SILENT);
        assertEquals(null, runner.abandon());
        assertEquals(List.of(), runner.run());
        assertEquals(List.of(), fake.asked);
        assertTrue(Files.notExists(out.resolve(ResultsDirectory.CONFIG_FILE)));
    }

    /** A run that ended on its own before a late stop: nothing to say, and the run is not cut short. */
    @Test
    void aStopAfterTheRunEndedOnItsOwnSaysNothing(@TempDir Path out) throws Exception {
        BenchRunner runner = new BenchRunner(config(), out, false, new FakeExecutor(), SILENT);
        assertEquals(8, runner.run().size());
        assertEquals(null, runner.abandon());
        assertTrue(!runner.cutShort());
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Without a stop, a failed point is recorded once the grace has passed, and the run goes on. */
    @Test
    void aFailedPointWithoutAStopIsRecorded(@TempDir Path out) throws Exception {
        FakeExecutor fake = new FakeExecutor(Integer.MAX_VALUE, Set.of("high/VNA/2"));
        List<PointResult> rows = new BenchRunner(config(), out, false, fake, SILENT, Duration.ofMillis(1)).run();
        assertEquals(8, rows.size());
        assertEquals(1, rows.stream().filter(r -> !r.ok()).count());
    }

    @Test
    void withoutResumeAnOccupiedDirectoryIsRefused(@TempDir Path out) throws Exception {
        new BenchRunner(config(), out, false, new FakeExecutor(), SILENT).run();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new BenchRunner(config(), out, false, new FakeExecutor(), SILENT).run());
        assertTrue(e.getMessage().contains("--resume"), e.getMessage());
    }

    @Test
    void twoRunsNeverWriteOneDirectoryAtOnce(@TempDir Path out) throws Exception {
        // A second run starts while the first one is measuring its first point.
        List<String> secondRun = new ArrayList<>();
        PointExecutor first = (point, work, log) -> {
            if (secondRun.isEmpty()) {
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> new BenchRunner(config(), out, true, new FakeExecutor(), SILENT).run());
                secondRun.add(e.getMessage());
            }
            return new FakeExecutor().measure(point, work, log);
        };
        new BenchRunner(config(), out, false, first, SILENT).run();
        assertTrue(secondRun.getFirst().startsWith("another ./numaloom bench is writing"), secondRun.toString());
        assertNoDuplicates(out);
    }

    /** results.json and results.csv hold every point at most once, and the CSV matches the JSON. */
    static void assertNoDuplicates(Path out) throws IOException {
        List<PointResult> json = ResultStore.load(out);
        Set<String> keys = new HashSet<>();
        for (PointResult r : json) {
            assertTrue(keys.add(r.key()), "duplicate row for " + r.key());
        }
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertEquals(String.join(",", PointResult.CSV_HEADER), csv.getFirst());
        List<String> expected = new ArrayList<>();
        json.forEach(r -> expected.add(r.csvLine()));
        assertEquals(expected, csv.subList(1, csv.size()));
    }
}
