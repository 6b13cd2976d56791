package io.numaloom.bench.cli;

import io.numaloom.bench.run.ChildProcesses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A bench run stopped at each stage of a point leaves no JVM of it running: the packaged jar ({@code numaloom.bench.jar},
 * as users run it: only a jar gets a class cache) in its own process group, one point of a user's section that never
 * returns, stopped by SIGTERM to the group (what Ctrl-C and {@code timeout} send) before the class cache, while it is
 * recorded, once it is written, and while the measured JVM runs; by SIGTERM to the bench alone (what {@code kill}
 * sends), which only its shutdown hook passes on; and by SIGKILL, after which the measured JVM halts by itself.
 *
 * <p>Every JVM the bench starts is recorded while it runs (its descendants, polled); once the bench has exited, none
 * may still run. Each stage is waited for by what the bench leaves (a file, a JVM's arguments), never by a sleep, so
 * that a slow machine only makes it slower.
 */
class BenchStopIT {
    /** The longest any wait of this test takes before it fails: far above what a busy 2-core machine needs. */
    private static final long PATIENCE_SECONDS = 120;

    @TempDir
    static Path build;
    static Path userJar;

    @BeforeAll
    static void buildTheUsersJar() throws IOException {
        // Stuck never returns; StuckWhenMeasured returns at once in the JVM that records the class cache, so that the
        // point reaches its measured JVM, and never there. Both asleep: a busy test machine stays as busy as it was.
        userJar = UserJar.build(build, Map.of("Stuck", UserJar.STUCK, "StuckWhenMeasured", """
                package com.acme;

                import java.lang.management.ManagementFactory;

                public class StuckWhenMeasured implements Runnable {
                    private static final boolean RECORDING =
                            ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-XX:AOTMode=record");

                    @Override
                    public void run() {
                        while (!RECORDING) {
                            try {
                                Thread.sleep(60_000);
                            } catch (InterruptedException e) {
                                // stuck: an interrupt does not free it
                            }
                        }
                    }
                }
                """));
    }

    /** How the bench is stopped. */
    private enum Stop { GROUP_SIGTERM, BENCH_SIGTERM, BENCH_SIGKILL }

    @Test
    void aStopBeforeTheClassCacheLeavesNoJvm(@TempDir Path tmp) throws Exception {
        stopAndCheck(tmp, "com.acme.Stuck", Stop.GROUP_SIGTERM,
                run -> Files.exists(run.out().resolve("config.json"))); // during the stall probe, before any point
    }

    /** The defect this test was written for: the point went on to its measured JVM, which outlived the bench. */
    @Test
    void aStopWhileTheClassCacheIsRecordedLeavesNoJvm(@TempDir Path tmp) throws Exception {
        stopAndCheck(tmp, "com.acme.Stuck", Stop.GROUP_SIGTERM, run -> run.seen(a -> a.contains("-XX:AOTMode=record")));
    }

    @Test
    void aStopOnceTheClassCacheIsWrittenLeavesNoJvm(@TempDir Path tmp) throws Exception {
        stopAndCheck(tmp, "com.acme.StuckWhenMeasured", Stop.GROUP_SIGTERM, run -> {
            Path caches = run.out().resolve("work").resolve("aot-cache");
            if (!Files.isDirectory(caches)) {
                return false;
            }
            try (Stream<Path> files = Files.list(caches)) {
                return files.anyMatch(f -> f.getFileName().toString().endsWith(".aot"));
            } catch (IOException e) {
                return false; // the run deleted it meanwhile: look again
            }
        });
    }

    @Test
    void aStopWhileTheMeasuredJvmRunsLeavesNoJvm(@TempDir Path tmp) throws Exception {
        stopAndCheck(tmp, "com.acme.StuckWhenMeasured", Stop.GROUP_SIGTERM, BenchStopIT::measuredJvmInTheSection);
    }

    /** Only the bench hears it: its shutdown hook ends the measured JVM. */
    @Test
    void aSigtermToTheBenchAloneEndsItsMeasuredJvm(@TempDir Path tmp) throws Exception {
        stopAndCheck(tmp, "com.acme.StuckWhenMeasured", Stop.BENCH_SIGTERM, BenchStopIT::measuredJvmInTheSection);
    }

    /** No shutdown hook runs: the measured JVM sees its parent gone and halts. */
    @Test
    void aMeasuredJvmWhoseBenchIsKilledHaltsByItself(@TempDir Path tmp) throws Exception {
        stopAndCheck(tmp, "com.acme.StuckWhenMeasured", Stop.BENCH_SIGKILL, BenchStopIT::measuredJvmInTheSection);
    }

    /**
     * A measured JVM (from the class cache, and not one that records or writes it) in the section: JMH has begun its
     * first iteration, which the log of the point's first round says.
     */
    private static boolean measuredJvmInTheSection(Run run) {
        Path log = run.out().resolve("logs").resolve("stop_VNA_1.round-1.log");
        try {
            return run.seen(a -> a.stream().anyMatch(s -> s.startsWith("-XX:AOTCache=")) && a.stream().noneMatch(s -> s.startsWith("-XX:AOTMode=")))
                    && Files.exists(log) && Files.readString(log).contains("Warmup Iteration   1:");
        } catch (IOException e) {
            return false; // being written: look again
        }
    }

    /** A bench JVM in its own process group, the JVMs it started, and where it writes. */
    private record Run(Process bench, Path out, Path console, Set<ProcessHandle> descendants) {
        /** Whether a JVM with such arguments has been seen running under the bench (and records any new one). */
        boolean seen(Predicate<List<String>> arguments) {
            record();
            return descendants.stream().filter(ProcessHandle::isAlive)
                    .anyMatch(p -> arguments.test(List.of(p.info().arguments().orElse(new String[0]))));
        }

        void record() {
            bench.toHandle().descendants().forEach(descendants::add);
        }

        String text() throws IOException {
            return Files.readString(console);
        }
    }

    /**
     * Starts the bench on one point of {@code section}, waits until {@code stage} holds, stops the bench, and checks
     * that once it has exited no JVM it started runs (after SIGKILL: within the time a measured JVM takes to see that
     * its parent is gone).
     */
    private static void stopAndCheck(Path tmp, String section, Stop stop, Predicate<Run> stage) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setsid")) || Files.isExecutable(Path.of("/bin/setsid")),
                "setsid, to give the bench a process group of its own");
        Path jar = Path.of(System.getProperty("numaloom.bench.jar", "target/numaloom-bench.jar"));
        assertTrue(Files.isRegularFile(jar), "no bench jar at " + jar.toAbsolutePath() + " (run after package)");
        Path config = Files.writeString(tmp.resolve("stop.json"), """
                { "benches": [ { "name": "runnable", "id": "stop", "payload": {
                    "workloadClass": "%s", "classpath": "%s", "actionsCount": 10, "threads": [1], "threadType": "platform",
                    "locks": [ { "name": "VNA" } ], "warmupIterations": 1, "measurementIterations": 1, "forks": 1,
                    "jvmArgs": ["-XX:+UseSerialGC", "-Xmx64m"] } } ] }
                """.formatted(section, userJar.toString().replace("\\", "\\\\")));
        Path out = tmp.resolve("out");
        Path console = tmp.resolve("console.log");
        // setsid makes the bench the leader of a new process group (it forks only when it is one already, which a
        // JVM's child is not): the group's id is the bench's pid, as a shell's job would have it.
        Process bench = new ProcessBuilder("setsid", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.awt.headless=true", "--sun-misc-unsafe-memory-access=allow", "-Djmh.ignoreLock=true", "-Xmx256m",
                "-jar", jar.toString(), "bench", "--config", config.toString(), "--out", out.toString())
                .redirectErrorStream(true).redirectOutput(console.toFile()).start();
        Run run = new Run(bench, out, console, ConcurrentHashMap.newKeySet());
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
            // setsid execs the JVM in its own process: the pid the group is named by is the bench's.
            while (!bench.toHandle().info().command().orElse("").endsWith("java")) {
                assertTrue(bench.isAlive() && System.nanoTime() < deadline, "setsid did not run the bench:\n" + run.text());
                Thread.sleep(5);
            }
            while (!stage.test(run)) {
                assertTrue(bench.isAlive(), "the bench exited before the stage:\n" + run.text());
                assertTrue(System.nanoTime() < deadline, "the stage never came in " + PATIENCE_SECONDS + " s:\n" + run.text());
                Thread.sleep(5);
            }
            run.record();
            signal(bench, stop);
            // Records what the bench starts until it exits: a JVM started after the signal is what the stop must prevent.
            while (!bench.waitFor(10, TimeUnit.MILLISECONDS)) {
                run.record();
                assertTrue(System.nanoTime() < deadline, "the bench did not exit in " + PATIENCE_SECONDS + " s:\n" + run.text());
            }
            if (stop == Stop.BENCH_SIGKILL) {
                // The measured JVM polls its parent, about every 5 s at most: give it three times that.
                long halted = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                while (run.descendants().stream().anyMatch(ChildProcesses::running) && System.nanoTime() < halted) {
                    Thread.sleep(20);
                }
            } else {
                assertTrue(run.text().contains("numaloom bench: stopped with 0 of 1 points measured"), run.text());
            }
            List<String> running = run.descendants().stream().filter(ChildProcesses::running)
                    .map(p -> p.pid() + " " + String.join(" ", p.info().arguments().orElse(new String[0]))).toList();
            assertEquals(List.of(), running, "JVMs of the bench still running after it exited (" + stop + "):\n" + run.text());
        } finally {
            bench.destroyForcibly();
            run.descendants().forEach(ProcessHandle::destroyForcibly);
        }
    }

    private static void signal(Process bench, Stop stop) throws IOException, InterruptedException {
        switch (stop) {
            case GROUP_SIGTERM -> {
                Process kill = new ProcessBuilder("kill", "-TERM", "--", "-" + bench.pid()).inheritIO().start();
                assertEquals(0, kill.waitFor(), "kill -TERM -- -" + bench.pid());
            }
            case BENCH_SIGTERM -> bench.destroy();
            case BENCH_SIGKILL -> bench.destroyForcibly();
        }
    }
}
