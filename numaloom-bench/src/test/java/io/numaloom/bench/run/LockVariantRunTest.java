package io.numaloom.bench.run;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.result.PointResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lock variant in real measured JVMs: its own JVM arguments reach its forks and no other lock's. A variant given a
 * flag the JVM does not know fails its point, naming the flag, while the same lock without it and a variant with a
 * valid flag are measured under their labels. A few seconds.
 */
class LockVariantRunTest {

    @Test
    void aVariantsArgumentsReachItsForksOnly(@TempDir Path out) throws Exception {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [ { "name": "consumeCpu", "id": "v", "payload": {
                    "actionsCount": 400, "inCpuTokens": 50, "warmupIterations": 0, "measurementIterations": 1,
                    "threads": [2], "startupCache": false, "timeoutSeconds": 60,
                    "locks": [ { "name": "UNFAIR_REENTRANT" },
                               { "name": "UNFAIR_REENTRANT", "label": "UR-bad-flag", "jvmArgs": ["-XX:+NoSuchNumaloomFlag"] },
                               { "name": "SYNCHRONIZED", "label": "SYNC-small-stack", "jvmArgs": ["-Xss512k"] } ] } } ] }
                """, "variants.json", Runtime.getRuntime().availableProcessors(), ConfigReader.lockNames());
        List<String> notices = new java.util.ArrayList<>();
        List<PointResult> rows = new BenchRunner(config, out, false, new JmhPointExecutor(notices::add, BenchRunner.aotCacheDir(out)),
                TestListeners.onNotice(notices::add)).run();
        Map<String, PointResult> byLock = rows.stream().collect(Collectors.toMap(PointResult::lock, Function.identity()));
        assertEquals(java.util.Set.of("UNFAIR_REENTRANT", "UR-bad-flag", "SYNC-small-stack"), byLock.keySet());
        assertTrue(byLock.get("UNFAIR_REENTRANT").ok(), byLock.get("UNFAIR_REENTRANT").error());
        assertTrue(byLock.get("SYNC-small-stack").ok(), byLock.get("SYNC-small-stack").error());
        assertFalse(byLock.get("UR-bad-flag").ok());
        assertTrue(java.nio.file.Files.readString(out.resolve("logs/v_UR-bad-flag_2.log")).contains("NoSuchNumaloomFlag"),
                "the JVM refused the variant's flag: " + byLock.get("UR-bad-flag").error());
    }
}
