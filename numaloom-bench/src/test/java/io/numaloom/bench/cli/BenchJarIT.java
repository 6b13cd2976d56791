package io.numaloom.bench.cli;

import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./numaloom bench} as users run it: the packaged jar ({@code numaloom.bench.jar}, set by the
 * {@code jar} execution of this module's pom, after {@code package}) in its own JVM, on a configuration of four
 * short points. Besides the run itself, this checks what only the jar can show: its measured JVMs start from
 * the run's class cache (a class path of directories, as under the test runner, gets none), with no complaint
 * from the JVM in any log; and that a point fails in the JVM that records the cache when it fails there.
 */
class BenchJarIT {
    private static final String CONFIG = """
            { "description": "the bench jar, end to end",
              "benches": [ { "name": "consumeCpu", "id": "jar", "payload": {
                "actionsCount": 2000, "inCpuTokens": 20, "warmupIterations": 1, "measurementIterations": 1,
                "threads": [1, 2], "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] } } ] }
            """;

    @Test
    void runsABenchWhoseJvmsStartFromTheClassCache(@TempDir Path tmp) throws Exception {
        Path jar = Path.of(System.getProperty("numaloom.bench.jar", "target/numaloom-bench.jar"));
        assertTrue(Files.isRegularFile(jar), "no bench jar at " + jar.toAbsolutePath() + " (run after package)");
        Path config = Files.writeString(tmp.resolve("jar.json"), CONFIG);
        Path out = tmp.resolve("out");
        Path console = tmp.resolve("console.log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.awt.headless=true", "--sun-misc-unsafe-memory-access=allow", "-Djmh.ignoreLock=true",
                "-jar", jar.toString(), "bench", "--config", config.toString(), "--out", out.toString(), "--rounds", "2")
                .redirectErrorStream(true).redirectOutput(console.toFile()).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("no exit in 300 s:\n" + Files.readString(console));
        }
        String text = Files.readString(console);
        assertEquals(0, p.exitValue(), text);
        assertTrue(text.contains("6 points, 0 failed"), "2 locks and the reference's twin at 2 thread counts:\n" + text);
        assertFalse(text.contains("class cache"), "the cache was made:\n" + text);

        for (String point : List.of("jar_VNA_1", "jar_VNA_2", "jar_UNFAIR_REENTRANT_1", "jar_UNFAIR_REENTRANT_2",
                "jar_UNFAIR_REENTRANT_TWIN_1", "jar_UNFAIR_REENTRANT_TWIN_2")) {
            String log = Files.readString(out.resolve("logs").resolve(point + ".log"));
            String vmOptions = log.lines().filter(l -> l.startsWith("# VM options:")).findFirst().orElseThrow();
            assertTrue(vmOptions.contains("-XX:AOTCache="), point + ": " + vmOptions);
            assertTrue(!log.contains("[error]") && !log.contains("[warning]"), point + " logged a JVM complaint:\n" + log);
        }
        assertFalse(Files.exists(out.resolve("work")), "the run deleted its work directory and class cache");
        assertTrue(Files.readString(out.resolve("config.json")).contains("\"startupCache\" : true"));
    }

    /**
     * {@code --timeout}: a section that never returns fails its point in the JVM that records the class cache, after
     * one round's timeout, and the measured JVM is not started to fail the same way after another; that JVM's log is
     * the point's.
     */
    @Test
    void aSectionThatNeverReturnsFailsInTheRoundThatRecordsTheClassCache(@TempDir Path tmp) throws Exception {
        Path jar = Path.of(System.getProperty("numaloom.bench.jar", "target/numaloom-bench.jar"));
        assertTrue(Files.isRegularFile(jar), "no bench jar at " + jar.toAbsolutePath() + " (run after package)");
        Path userJar = UserJar.build(tmp.resolve("build"), Map.of("Stuck", UserJar.STUCK));
        Path out = tmp.resolve("out");
        Path console = tmp.resolve("console.log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.awt.headless=true", "--sun-misc-unsafe-memory-access=allow", "-Djmh.ignoreLock=true",
                "-jar", jar.toString(), "bench", "--workload-class", "com.acme.Stuck", "--classpath", userJar.toString(),
                "--locks", "VNA", "--threads", "1", "--virtual", "--quick", "--timeout", "5", "--out", out.toString())
                .redirectErrorStream(true).redirectOutput(console.toFile()).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("no exit in 300 s:\n" + Files.readString(console));
        }
        String text = Files.readString(console);
        assertEquals(3, p.exitValue(), text);
        PointResult row = ResultStore.load(out).getFirst();
        assertTrue(row.error().startsWith("round timed out after 5 s"), row.error());
        assertTrue(row.error().contains("(in the unmeasured round that records the class cache)"), row.error());
        Path log = out.resolve("logs").resolve("Stuck-virtual_VNA_1.log");
        assertTrue(row.error().endsWith("(log: " + log + ")"), row.error());
        String vmOptions = Files.readString(log).lines().filter(l -> l.startsWith("# VM options:")).findFirst().orElseThrow();
        assertTrue(vmOptions.contains("-XX:AOTMode=record"), "the recording JVM's log: " + vmOptions);
        assertFalse(text.contains("without a class cache"), "no measured JVM started without one:\n" + text);
    }
}
