package io.numaloom.bench.cli;

import io.numaloom.bench.result.ResultStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MainTest {
    /** A command's exit status and what it printed. */
    record Result(int status, String out, String err) {}

    static Result main(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpOnEveryCommand() {
        assertEquals(0, main("--help").status());
        assertTrue(main("--help").out().contains("bench [--config FILE] [--quick] [--out DIR] [--resume]"));
        Result bench = main("bench", "--help");
        assertEquals(0, bench.status());
        for (String s : new String[] {"--resume", "textStats", "randBash", "contend", "sync", "matrix", "consumeCpu",
            "remotePenaltyNs", "pinCarriers", "SYNCHRONIZED", "UNFAIR_REENTRANT"}) {
            assertTrue(bench.out().contains(s), "bench --help mentions " + s);
        }
        assertTrue(main("topology", "--help").out().contains("--topology SPEC"));
        assertTrue(main("plot", "--help").out().contains("RESULTS_DIR"));
        Result jmh = main("jmh", "-h");
        assertEquals(0, jmh.status());
        assertTrue(jmh.out().contains("UncontendedLockUnlock"));
        assertTrue(jmh.out().contains("-prof <profiler>"), "JMH's own options are printed where the command prints");
        Result jmhLong = main("jmh", "--help");
        assertEquals(0, jmhLong.status(), jmhLong.err());
        assertTrue(jmhLong.out().startsWith("Usage: ./numaloom jmh"), jmhLong.out());
        assertTrue(jmhLong.out().contains("-prof <profiler>"), jmhLong.out());
        assertTrue(jmhLong.err().isEmpty(), jmhLong.err());
    }

    /** BenchCommand with a folder of runs of its own and an executor that fails the test if it is used. */
    static Result bench(Path resultsRoot, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        io.numaloom.bench.run.PointExecutor untouchable = new io.numaloom.bench.run.PointExecutor() {
            @Override public Measurement measure(io.numaloom.bench.Point point, Path work, Path log) {
                throw new AssertionError("measured " + point.key());
            }
            @Override public io.numaloom.bench.result.MachineStalls probeStalls() {
                throw new AssertionError("probed the machine");
            }
        };
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        int status;
        try {
            status = new BenchCommand(new PrintStream(out, true, StandardCharsets.UTF_8), errStream, untouchable, resultsRoot).run(args);
        } catch (Main.UsageException e) { // as Main reports it
            errStream.println("numaloom bench: " + e.getMessage());
            status = Main.USAGE;
        }
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Every file of a folder with its size, a hash of its bytes and its modification time. */
    static java.util.Map<Path, String> snapshot(Path dir) throws java.io.IOException {
        java.util.Map<Path, String> files = new java.util.TreeMap<>();
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.toList()) {
                files.put(dir.relativize(p), Files.isDirectory(p) ? "dir"
                        : Files.getLastModifiedTime(p) + " " + java.util.Arrays.hashCode(Files.readAllBytes(p)) + " " + Files.size(p));
            }
        }
        return files;
    }

    static final io.numaloom.bench.run.PointExecutor INSTANT = (point, work, log) -> new io.numaloom.bench.run.PointExecutor.Measurement(
            java.util.List.of(java.util.List.of(1.0, 1.0)), java.util.List.of(new io.numaloom.bench.result.ForkReport(1, 100, java.util.List.of(1.0),
            java.util.List.of(1.0), null, 0, 0, "p", "c", "2 cpus, 1 nodes; test", null, null, null, null)));

    @Test
    void resumingAFinishedRunSaysSoAndLeavesItsFolderAsItWas(@TempDir Path results) throws Exception {
        io.numaloom.bench.config.BenchConfig config = io.numaloom.bench.config.ConfigReader.parse("""
                { "benches": [ { "name": "consumeCpu", "id": "c", "payload": { "threads": [1, 2],
                  "locks": [ { "name": "VNA" } ] } } ] }""", "c.json", 2, io.numaloom.bench.Mutex.names());
        Path run = results.resolve("20260101-000000");
        new io.numaloom.bench.run.BenchRunner(config, run, false, INSTANT, SILENT).run();
        assertTrue(Files.exists(run.resolve("index.html")) && Files.exists(run.resolve("machine.json")));
        var before = snapshot(run);
        Thread.sleep(20); // a rewrite would show in the modification times

        for (String[] args : new String[][] {{"--resume", "--out", run.toString()}, {"--resume"}}) {
            Result r = bench(results, args);
            assertEquals(0, r.status(), r.err());
            assertTrue(r.out().contains("nothing to resume") && r.out().contains("2 points measured"), r.out());
            assertEquals(before, snapshot(run), "nothing in the folder changed");
        }
    }

    @Test
    void resumingWhereThereIsNoRunIsAUsageErrorAndWritesNothing(@TempDir Path dir) throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Result r = main("bench", "--resume", "--out", empty.toString());
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().contains("there is no run in " + empty), r.err());
        try (var files = Files.list(empty)) {
            assertEquals(0, files.count(), "no fresh run was started there");
        }
        Path missing = dir.resolve("missing");
        Result m = main("bench", "--resume", "--out", missing.toString());
        assertEquals(2, m.status(), m.err());
        assertTrue(!Files.exists(missing));

        Result latest = bench(dir.resolve("no-results"), "--resume");
        assertEquals(2, latest.status(), "the help reserves 2 for bad usage: " + latest.err());
        assertTrue(latest.err().contains("nothing to resume"), latest.err());
        assertTrue(!Files.exists(dir.resolve("no-results")));
    }

    @Test
    void badUsageIsStatus2() {
        assertEquals(2, main().status());
        assertEquals(2, main("benchmark").status());
        Result r = main("bench", "--frobnicate");
        assertEquals(2, r.status());
        assertTrue(r.err().contains("unknown option '--frobnicate'"), r.err());
        assertEquals(2, main("bench", "--config").status());
        assertEquals(2, main("plot").status());
        Result typo = main("bnech");
        assertEquals(2, typo.status());
        assertTrue(typo.err().contains("unknown command 'bnech' (did you mean 'bench'?)"), typo.err());
    }

    /** The verdict method's options refuse what they cannot mean, with one line that says what they take. */
    @Test
    void theMethodsOptionsSayWhatTheyTake(@TempDir Path dir) {
        for (String[] bad : new String[][] {
                {"--precision", "0", "--precision must be a percentage from 0.1 to 50"},
                {"--precision", "five", "--precision must be a percentage from 0.1 to 50"},
                {"--budget", "5", "--budget must be a time of at least 10 s"},
                {"--budget", "soon", "--budget must be a time of at least 10 s"},
                {"--rounds", "0", "--rounds must be a whole number from 1 to 1000"},
                {"--seed", "x", "--seed must be a whole number"}}) {
            Result r = bench(dir, bad[0], bad[1], "--dry-run");
            assertEquals(2, r.status(), String.join(" ", bad));
            assertTrue(r.err().contains(bad[2]), r.err());
        }
        Result both = bench(dir, "--rounds", "3", "--precision", "5", "--dry-run");
        assertEquals(2, both.status());
        assertTrue(both.err().contains("--rounds and --precision exclude each other"), both.err());
        assertEquals(0.05, BenchCommand.Args.precision("5%"), 1e-12);
        assertEquals(java.time.Duration.ofMinutes(5), BenchCommand.Args.budget("5m"));
        assertEquals(java.time.Duration.ofSeconds(300), BenchCommand.Args.budget("300"));
        // A dry run of the built-in configuration lists the twin, the run's A/A control, beside the reference.
        Result dry = bench(dir, "--dry-run");
        assertEquals(0, dry.status(), dry.err());
        assertTrue(dry.out().contains("short-cs-virtual/UNFAIR_REENTRANT_TWIN/32"), dry.out());
    }

    @Test
    void aMistypedLockOrFieldGetsASuggestion(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("typo.json");
        Files.writeString(config, """
                { "benches": [ { "name": "consumeCpu", "payload": { "forkz": 2, "locks": [ { "name": "VnaLock" } ] } } ] }
                """);
        Result r = main("bench", "--config", config.toString(), "--dry-run");
        assertEquals(2, r.status());
        assertTrue(r.err().contains("unknown lock 'VnaLock' (did you mean 'VNA'?); known: VNA"), r.err());
        assertTrue(r.err().contains("benches[0].payload.forkz: unknown field (did you mean 'forks'?)"), r.err());

        Files.writeString(config, """
                { "benches": [ { "name": "consumeCpu", "payload": { "thread": [1, 2], "locks": [ { "name": "VNA" } ] } } ] }
                """);
        Result thread = main("bench", "--config", config.toString(), "--dry-run");
        assertEquals(2, thread.status());
        assertTrue(thread.err().contains("benches[0].payload.thread: unknown field (did you mean 'threads'?)"), thread.err());
    }

    @Test
    void aBadConfigRunsNothingAndNamesTheField(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("bad.json");
        Files.writeString(config, """
                { "benches": [ { "name": "consumeCpu", "payload": { "forks": -2, "locks": [ { "name": "NOPE" } ] } } ] }
                """);
        Path out = dir.resolve("out");
        Result r = main("bench", "--config", config.toString(), "--out", out.toString());
        assertEquals(2, r.status());
        assertTrue(r.err().contains("benches[0].payload.forks: must be >= 1, got -2"), r.err());
        assertTrue(r.err().contains("benches[0].payload.locks[0].name: unknown lock 'NOPE'; known: VNA"), r.err());
        assertTrue(!Files.exists(out), "nothing was written");
        Result missing = main("bench", "--config", dir.resolve("nope.json").toString());
        assertEquals(2, missing.status());
        assertTrue(missing.err().contains("no such file"), missing.err());
    }

    @Test
    void dryRunListsTheDefaultPoints() {
        Result r = main("bench", "--dry-run");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("built-in default configuration"), r.out());
        assertTrue(r.out().contains("short-cs-platform/VNA/2") && r.out().contains("cache-virtual/SYNCHRONIZED/8"), r.out());
    }

    @Test
    void dryRunEstimatesTheTimeFromEarlierRunsOfTheSamePoints(@TempDir Path results) throws Exception {
        io.numaloom.bench.config.BenchConfig config = io.numaloom.bench.config.ConfigReader.parse("""
                { "benches": [ { "name": "consumeCpu", "id": "c", "payload": { "threads": [1, 2],
                  "locks": [ { "name": "VNA" } ] } } ] }""", "c.json", 2, io.numaloom.bench.Mutex.names());
        var points = io.numaloom.bench.run.BenchRunner.points(config);
        String before = BenchCommand.estimate(points, results);
        assertTrue(before.startsWith("2 JVM starts and 16 rounds (no estimate"), before); // 1 fork x (3 + 5) rounds x 2 points

        io.numaloom.bench.run.PointExecutor instant = (point, work, log) -> new io.numaloom.bench.run.PointExecutor.Measurement(
                java.util.List.of(java.util.List.of(1.0, 1.0)), java.util.List.of(new io.numaloom.bench.result.ForkReport(1, 100, java.util.List.of(1.0),
                java.util.List.of(1.0), null, 0, 0, "p", "c", "2 cpus, 1 nodes; test", null, null, null, null)));
        new io.numaloom.bench.run.BenchRunner(config, results.resolve("20260101-000000"), false, instant, SILENT).run();
        String after = BenchCommand.estimate(points, results);
        assertTrue(after.startsWith("about 0:0"), "the two points took well under 10 s here: " + after);
    }

    static final io.numaloom.bench.run.BenchRunner.Listener SILENT = new io.numaloom.bench.run.BenchRunner.Listener() {
        @Override public void runStarted(Path out, int points, int alreadyDone) {}
        @Override public void pointStarted(io.numaloom.bench.Point point, int ordinal, int points, java.time.Duration elapsed,
                                           java.time.Duration eta) {}
        @Override public void pointFinished(io.numaloom.bench.result.PointResult result, int ordinal, int points) {}
        @Override public void notice(String text) {}
    };

    @Test
    void topologyAndPlotAndJmhList(@TempDir Path dir) {
        Result t = main("topology");
        assertEquals(0, t.status(), t.err());
        assertTrue(t.out().startsWith("Topology: ") && t.out().contains("Current CPU source"), t.out());
        assertEquals(2, main("topology", "--topology", "nodes=999").status());
        Result plot = main("plot", dir.toString());
        assertEquals(2, plot.status(), "a folder that is not a results folder is a usage error");
        assertTrue(plot.err().contains("no config.json"), plot.err());
        Result list = main("jmh", "-l");
        assertEquals(0, list.status(), list.err());
        assertTrue(list.out().contains("io.numaloom.bench.jmh.UncontendedLockUnlock.lockUnlock"), list.out());
        assertTrue(list.out().contains("UncontendedLockUnlock.casThenReleaseStore"), list.out());
        assertTrue(!list.out().contains("PointBenchmark"), "the bench harness is not a microbenchmark");
    }

    @Test
    void resumeWithoutConfigUsesTheSavedOne(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run");
        Files.createDirectories(out);
        Files.writeString(out.resolve("config.json"), """
                { "benches": [ { "name": "sync", "payload": { "actionsCount": 10, "warmupIterations": 0,
                  "measurementIterations": 1, "locks": [ { "name": "SYNCHRONIZED" } ] } } ] }
                """);
        Result r = main("bench", "--resume", "--out", out.toString(), "--dry-run");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("sync/SYNCHRONIZED/1"), r.out());
        assertTrue(ResultStore.JSON_FILE.equals("results.json"));
    }
}
