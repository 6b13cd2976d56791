package io.numaloom.bench.run;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.Point;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.workloads.LoopbackServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server load level with {@code saturationFrom} is offered a percent of one rate for the whole run: the one unfair
 * ReentrantLock reached in the named closed loop at the same thread count, whichever lock the level measures.
 */
class SaturationFromTest {
    private static final String CONFIG = """
            { "defaults": { "threadType": "virtual", "threads": [2, 4],
                            "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] },
              "benches": [
                { "name": "server", "id": "closed", "payload": { "actionsCount": 100 } },
                { "name": "server", "id": "load-50", "payload": { "actionsCount": 100, "loadPercent": 50, "saturationFrom": "closed" } },
                { "name": "server", "id": "own-rate", "payload": { "actionsCount": 100, "loadPercent": 50 } } ] }
            """;

    private static BenchConfig config() throws Exception {
        return ConfigReader.parse(CONFIG, "saturation.json", 2, Mutex.names());
    }

    @Test
    void everyLockOfALoadLevelIsOfferedTheReferenceLocksClosedLoopRate(@TempDir Path out) throws Exception {
        FakeExecutor executor = new FakeExecutor();
        List<PointResult> rows = new BenchRunner(config(), out, false, executor, TestListeners.SILENT).run();
        assertTrue(rows.stream().allMatch(PointResult::ok), "every point measured: " + rows);
        for (int threads : List.of(2, 4)) {
            double reference = row(rows, "closed", "UNFAIR_REENTRANT", threads).opsPerMs();
            double vna = row(rows, "closed", "VNA", threads).opsPerMs();
            assertTrue(Math.abs(reference - vna) > 1, "the fake measures the two locks apart: " + reference + " " + vna);
            for (String lock : List.of("VNA", "UNFAIR_REENTRANT")) {
                assertEquals(Math.round(reference * 1000), given(executor, "load-50", lock, threads), "load-50/" + lock + "/" + threads);
                assertEquals(0, given(executor, "own-rate", lock, threads), "without saturationFrom, measured per round");
            }
        }
    }

    @Test
    void aLoadLevelWhoseReferencePointFailedFailsSayingSoWithoutRunning(@TempDir Path out) throws Exception {
        FakeExecutor executor = new FakeExecutor(Integer.MAX_VALUE, Set.of("closed/UNFAIR_REENTRANT/4"));
        List<PointResult> rows = new BenchRunner(config(), out, false, executor, TestListeners.SILENT).run();
        for (String lock : List.of("VNA", "UNFAIR_REENTRANT")) {
            PointResult failed = row(rows, "load-50", lock, 4);
            assertFalse(failed.ok(), lock);
            assertTrue(failed.error().contains("saturationFrom 'closed'") && failed.error().contains("UNFAIR_REENTRANT point at 4 threads"),
                    failed.error());
            assertFalse(executor.asked.contains("load-50/" + lock + "/4"), "not run without its rate");
            assertTrue(row(rows, "load-50", lock, 2).ok(), "the 2-thread reference passed");
        }
    }

    private static PointResult row(List<PointResult> rows, String bench, String lock, int threads) {
        return rows.stream().filter(r -> r.key().equals(Point.key(bench, lock, threads))).findFirst().orElseThrow();
    }

    private static long given(FakeExecutor executor, String bench, String lock, int threads) {
        Point p = executor.handed.stream().filter(h -> h.key().equals(Point.key(bench, lock, threads))).findFirst().orElseThrow();
        return p.bench().settings().getLong(LoopbackServer.SATURATION_PER_SECOND);
    }
}
