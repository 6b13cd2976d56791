package io.numaloom.bench;

import org.junit.jupiter.api.Test;
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
class ResumeTest {
    static final String CONFIG = """
            { "benches": [
                { "name": "consumeCpu", "id": "high", "payload": { "threads": [1, 2, 4],
                  "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] } },
                { "name": "sync", "id": "sync", "payload": { "locks": [ { "name": "SYNCHRONIZED" }, { "name": "VNA" } ] } } ] }
            """;

    static BenchConfig config() throws ConfigException {
        return ConfigReader.parse(CONFIG, "resume.json", 2, Mutex.names());
    }

    static final BenchRunner.Listener SILENT = new BenchRunner.Listener() {
        @Override
        public void runStarted(Path out, int points, int alreadyDone) {}

        @Override
        public void pointStarted(Point point, int ordinal, int points, Duration elapsed, Duration eta) {}

        @Override
        public void pointFinished(PointResult result, int ordinal, int points) {}

        @Override
        public void notice(String text) {}
    };

    @Test
    void resumeMeasuresOnlyWhatTheKilledRunDidNot(@TempDir Path out) throws Exception {
        BenchConfig config = config();
        List<String> all = BenchRunner.points(config).stream().map(Point::key).toList();
        assertEquals(8, all.size());

        FakeExecutor first = new FakeExecutor(3, Set.of());
        assertThrows(FakeExecutor.Killed.class, () -> new BenchRunner(config, out, false, first, SILENT).run());
        assertEquals(all.subList(0, 3), first.asked);
        assertEquals(all.subList(0, 3), ResultStore.load(out).stream().map(PointResult::key).toList());
        // The killed process also left a half-written temporary file and a CSV line cut short.
        Files.writeString(out.resolve("results.json.tmp"), "[ { \"bench\": ");
        Files.writeString(out.resolve("results.csv"), Files.readString(out.resolve("results.csv")) + "high,Consu",
                java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);

        FakeExecutor second = new FakeExecutor();
        List<PointResult> rows = new BenchRunner(config, out, true, second, SILENT).run();
        assertEquals(all.subList(3, 8), second.asked, "only the points without a result were measured");
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
        assertEquals(List.of(failing), again.asked);
        assertTrue(rows.stream().allMatch(PointResult::ok));
        assertNoDuplicates(out);
    }

    @Test
    void aChangedBenchIsMeasuredAgain(@TempDir Path out) throws Exception {
        new BenchRunner(config(), out, false, new FakeExecutor(), SILENT).run();
        BenchConfig changed = ConfigReader.parse(CONFIG.replace("\"threads\": [1, 2, 4],", "\"threads\": [1, 2, 4], \"inCpuTokens\": 5,"),
                "changed.json", 2, Mutex.names());
        FakeExecutor again = new FakeExecutor();
        new BenchRunner(changed, out, true, again, SILENT).run();
        assertEquals(6, again.asked.size(), "every point of the changed bench, none of the unchanged one");
        assertTrue(again.asked.stream().allMatch(k -> k.startsWith("high/")));
        assertNoDuplicates(out);
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
