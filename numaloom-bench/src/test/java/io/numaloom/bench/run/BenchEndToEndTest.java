package io.numaloom.bench.run;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.result.MachineStalls;
import io.numaloom.bench.result.PointResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real thing, small: JMH forks a measured JVM per point, with a virtual two-node topology, the NUMA
 * penalty and pinned carriers, and the run leaves every output file. A few seconds.
 */
class BenchEndToEndTest {

    @Test
    void measuresThroughJmhAndWritesEverything(@TempDir Path out) throws Exception {
        BenchConfig config = ConfigReader.parse("""
                { "description": "end-to-end test",
                  "benches": [ { "name": "consumeCpu", "id": "e2e", "payload": {
                    "actionsCount": 400, "inCpuTokens": 50, "warmupIterations": 0, "measurementIterations": 2,
                    "threads": [1, 3], "pinCarriers": true, "topology": "nodes=2", "remotePenaltyNs": 1000,
                    "jvmArgs": ["-Xmx256m"], "timeoutSeconds": 60,
                    "locks": [ { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" } ] } },
                  { "name": "sync", "id": "e2e-sync", "payload": { "actionsCount": 1000, "depth": 2,
                    "warmupIterations": 0, "measurementIterations": 1, "startupCache": false, "locks": [ { "name": "FAIR_REENTRANT" } ] } },
                  { "name": "keyed", "id": "e2e-keyed", "payload": { "actionsCount": 20000, "keys": 5000, "threads": [2],
                    "warmupIterations": 0, "measurementIterations": 1, "startupCache": false,
                    "locks": [ { "name": "KEYED_LOCK" }, { "name": "CHM_REENTRANT" } ] } } ] }
                """, "e2e.json", Runtime.getRuntime().availableProcessors(), ConfigReader.lockNames());
        List<String> notices = new java.util.ArrayList<>();
        List<PointResult> rows = new BenchRunner(config, out, false, new JmhPointExecutor(notices::add, BenchRunner.aotCacheDir(out)),
                TestListeners.onNotice(notices::add)).run();
        assertEquals(7, rows.size());
        MachineStalls stalls = io.numaloom.bench.report.MachineInfo.readFrom(out).stalls();
        assertEquals(Runtime.getRuntime().availableProcessors(), stalls.threads(), "the real run probes the machine first");
        assertTrue(notices.stream().anyMatch(n -> n.startsWith("machine stalls: ")), notices.toString());
        for (PointResult r : rows) {
            assertTrue(r.ok(), r.key() + ": " + r.error() + " " + notices);
            assertEquals(r.key().startsWith("e2e/") ? 2 : 1, r.rounds());
            assertTrue(r.opsPerMs() > 0 && r.timeMs() > 0);
            assertNotNull(r.jain());
            assertTrue(r.bytesPerOp() != null && r.bytesPerOp() >= 0, r.key() + " B/op " + r.bytesPerOp());
        }
        // What a keyed scheme keeps: an idle KeyedLock holds no key; the map holds all 5000 keys and their locks.
        PointResult keyed = rows.get(5);
        PointResult map = rows.get(6);
        assertEquals("KEYED_LOCK", keyed.lock());
        assertTrue(keyed.retainedBytes() > 0 && keyed.retainedBytes() < 4096, "idle KeyedLock: " + keyed.retainedBytes());
        assertTrue(map.retainedBytes() > 5000 * (16 + 48), "map of 5000 keys: " + map.retainedBytes());
        assertNull(rows.getFirst().retainedBytes(), "no footprint outside keyed benches");
        for (PointResult r : rows.subList(0, 4)) {
            assertTrue(r.localHandoffFraction() >= 0 && r.localHandoffFraction() <= 1, r.toString());
            assertNotNull(r.latencyP99Ns());
            assertTrue(r.placement().contains("pinned carriers"), r.placement());
            assertEquals("nodes=2", r.topology());
        }
        PointResult sync = rows.get(4);
        assertEquals(null, sync.localHandoffFraction(), "sync has no handoffs");
        for (String f : List.of("results.csv", "results.json", "config.json", "machine.json", "e2e.png", "e2e.svg",
                "e2e-sync.png", "e2e-sync.svg", Report.INDEX, "logs/e2e_SYNCHRONIZED_3.log")) {
            assertTrue(Files.size(out.resolve(f)) > 0, f);
        }
        String html = Files.readString(out.resolve(Report.INDEX));
        assertTrue(html.contains("id=\"e2e\"") && html.contains("id=\"e2e-sync\"") && html.contains("end-to-end test"));
        assertTrue(!Files.exists(out.resolve("work")), "the side files and the class cache were cleaned up");

        // The first bench asks for a class cache; under the test runner the class path is directories, which a cache
        // cannot hold, so the run says so once and measures as usual (AotCacheTest makes and uses a real one).
        assertEquals(1, notices.stream().filter(n -> n.contains("without a class cache (the class path holds directories")).count(),
                notices.toString());
        for (PointResult r : rows) {
            String log = Files.readString(out.resolve("logs").resolve(r.key().replace('/', '_') + ".log"));
            assertTrue(!log.contains("-XX:AOT") && !log.contains("[error]") && !log.contains("[warning]"),
                    r.key() + " logged a JVM complaint:\n" + log);
        }
    }
}
