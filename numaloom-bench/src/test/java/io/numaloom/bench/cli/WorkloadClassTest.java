package io.numaloom.bench.cli;

import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./numaloom bench --workload-class}: a user's class in a jar built here (javac and a jar file, as a user's
 * build would make it) measured by the command line in this JVM, its points in forked JVMs that load the jar; and the
 * message of every mistake, naming the option.
 */
class WorkloadClassTest {
    @TempDir
    static Path build;
    static Path jar;

    @BeforeAll
    static void buildTheUsersJar() throws IOException {
        Path src = Files.createDirectories(build.resolve("src/com/acme"));
        Files.writeString(src.resolve("Counter.java"), """
                package com.acme;

                import java.util.HashMap;
                import java.util.Map;

                /** What an application runs under its lock today. */
                public class Counter implements Runnable {
                    private final Map<Integer, Integer> counts = new HashMap<>();
                    private int next;

                    @Override
                    public void run() {
                        counts.merge(next++ % 32, 1, Integer::sum);
                    }
                }
                """);
        Files.writeString(src.resolve("NotRunnable.java"), "package com.acme; public class NotRunnable { public void run() {} }\n");
        Files.writeString(src.resolve("NeedsArgument.java"), """
                package com.acme;
                public class NeedsArgument implements Runnable {
                    public NeedsArgument(int size) {}
                    @Override public void run() {}
                }
                """);
        Files.writeString(src.resolve("Stuck.java"), UserJar.STUCK);
        Files.writeString(src.resolve("Prepared.java"), """
                package com.acme;

                /** A section that needs its thread to have prepared an order outside the lock first. */
                public class Prepared implements Runnable {
                    private final ThreadLocal<int[]> prepared = ThreadLocal.withInitial(() -> new int[1]);
                    private long total;

                    public int prepare() {
                        return ++prepared.get()[0];
                    }

                    public static void helper() {}

                    @Override
                    public void run() {
                        int[] p = prepared.get();
                        if (p[0] != 1) {
                            throw new IllegalStateException("run() without one prepare() before it: " + p[0]);
                        }
                        p[0] = 0;
                        total++;
                    }
                }
                """);
        for (int status : new int[] {0, 3}) {
            Files.writeString(src.resolve("Exits" + status + ".java"), """
                    package com.acme;
                    public class Exits%d implements Runnable {
                        @Override public void run() {
                            System.exit(%d);
                        }
                    }
                    """.formatted(status, status));
        }
        Path classes = Files.createDirectories(build.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "a JDK runs the tests");
        List<String> args = new java.util.ArrayList<>(List.of("-d", classes.toString(), "-proc:none"));
        try (Stream<Path> files = Files.list(src)) {
            files.map(Path::toString).forEach(args::add);
        }
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        assertEquals(0, javac.run(null, null, diagnostics, args.toArray(String[]::new)), diagnostics.toString());
        jar = build.resolve("app.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> walk = Files.walk(classes)) {
            for (Path c : walk.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(c).toString().replace('\\', '/')));
                Files.copy(c, out);
                out.closeEntry();
            }
        }
    }

    @Test
    void measuresTheUsersClassFromItsJarAndWritesTheReport(@TempDir Path out) throws IOException {
        MainTest.Result r = MainTest.main("bench", "--workload-class", "com.acme.Counter", "--classpath", jar.toString(),
                "--locks", "UNFAIR_REENTRANT", "--threads", "2", "--operations", "40", "--quick", "--out", out.toString());
        assertEquals(0, r.status(), r.err() + r.out());
        List<PointResult> rows = ResultStore.load(out);
        assertEquals(2, rows.size(), "1 lock x 1 thread count x 2 thread types: " + rows);
        Set<String> points = new HashSet<>();
        for (PointResult row : rows) {
            assertTrue(row.ok(), row.key() + ": " + row.error());
            assertEquals("runnable", row.workload());
            points.add(row.lock() + "/" + row.threadType());
        }
        assertEquals(Set.of("UNFAIR_REENTRANT/virtual", "UNFAIR_REENTRANT/platform"), points);
        assertTrue(Files.size(out.resolve(Report.INDEX)) > 0);
        assertTrue(Files.readString(out.resolve("config.json")).contains("\"workloadClass\" : \"com.acme.Counter\""));
        assertTrue(r.out().contains("2 points, 0 failed"), r.out());
    }

    @Test
    void theDefaultRunComparesVnaReentrantLockAndSynchronizedOnBothThreadTypes() {
        MainTest.Result r = MainTest.main("bench", "--workload-class", "com.acme.Counter", "--classpath", jar.toString(), "--dry-run");
        assertEquals(0, r.status(), r.err());
        for (String type : List.of("virtual", "platform")) {
            for (String lock : List.of("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED")) {
                assertTrue(r.out().contains("  Counter-" + type + "/" + lock + "/1\n"), r.out());
            }
        }
        long several = r.out().lines().filter(l -> l.startsWith("  Counter-virtual/VNA/") && !l.endsWith("/1")).count();
        assertTrue(several >= 1, "VNA at several threads too: " + r.out());
    }

    @Test
    void virtualOrPlatformRestrictsTheThreadTypes() {
        for (String type : List.of("virtual", "platform")) {
            MainTest.Result r = MainTest.main("bench", "--workload-class", "com.acme.Counter", "--classpath", jar.toString(),
                    "--" + type, "--locks", "VNA", "--threads", "1,4", "--dry-run");
            assertEquals(0, r.status(), r.err());
            List<String> points = r.out().lines().filter(l -> l.startsWith("  ")).map(String::strip).toList();
            assertEquals(List.of("Counter-" + type + "/VNA/1", "Counter-" + type + "/VNA/4"), points, r.out());
        }
        MainTest.Result both = MainTest.main("bench", "--workload-class", "com.acme.Counter", "--classpath", jar.toString(),
                "--virtual", "--platform", "--locks", "VNA", "--threads", "1", "--dry-run");
        assertEquals(0, both.status(), both.err());
        List<String> points = both.out().lines().filter(l -> l.startsWith("  ")).map(String::strip).sorted().toList();
        assertEquals(List.of("Counter-platform/VNA/1", "Counter-virtual/VNA/1"), points, both.out());
    }

    @Test
    void everyMistakeNamesItsOption(@TempDir Path out) throws IOException {
        String cp = jar.toString();
        expectUsage(out, "--classpath: no such jar file or directory: ", "--workload-class", "com.acme.Counter", "--classpath", "missing.jar");
        expectUsage(out, "--workload-class: no class com.acme.Nope in " + cp, "--workload-class", "com.acme.Nope", "--classpath", cp);
        expectUsage(out, "--workload-class: com.acme.NotRunnable does not implement java.lang.Runnable",
                "--workload-class", "com.acme.NotRunnable", "--classpath", cp);
        expectUsage(out, "--workload-class: com.acme.NeedsArgument has no public no-argument constructor",
                "--workload-class", "com.acme.NeedsArgument", "--classpath", cp);
        expectUsage(out, "--workload-class and --config exclude each other",
                "--workload-class", "com.acme.Counter", "--classpath", cp, "--config", "configs/default.json");
        expectUsage(out, "--locks applies to --workload-class only", "--locks", "VNA");
        expectUsage(out, "--virtual applies to --workload-class only", "--virtual");
        expectUsage(out, "--platform applies to --workload-class only", "--platform", "--config", "configs/default.json");
        expectUsage(out, "--locks: unknown lock 'BOGUS'", "--workload-class", "com.acme.Counter", "--classpath", cp, "--locks", "VNA,BOGUS");
        expectUsage(out, "--threads: not a whole number: 'x'", "--workload-class", "com.acme.Counter", "--classpath", cp, "--threads", "1,x");
        expectUsage(out, "--workload-class needs a value", "--workload-class");
        try (Stream<Path> left = Files.list(out)) {
            assertEquals(0, left.count(), "a mistake runs and writes nothing");
        }
    }

    @Test
    void timeoutBoundsARoundOfASectionThatNeverReturns(@TempDir Path out) throws IOException {
        MainTest.Result r = MainTest.main("bench", "--workload-class", "com.acme.Stuck", "--classpath", jar.toString(),
                "--locks", "VNA", "--threads", "1", "--virtual", "--quick", "--timeout", "2", "--out", out.toString());
        assertEquals(3, r.status(), r.err() + r.out());
        PointResult row = ResultStore.load(out).getFirst();
        assertTrue(row.error().startsWith("round timed out after 2 s"), row.error());
        assertTrue(row.error().contains("com.acme.Stuck.run"), "where the thread was: " + row.error());
        // One round's timeout, the JVM's start and the fork's end on a busy machine; not two rounds, not 60 s. (Unless
        // the point waited for another JMH run on this machine to end, which it says.)
        assertTrue(row.seconds() >= 2, "the point took " + row.seconds() + " s");
        assertTrue(row.seconds() < 40 || r.err().contains("waiting for another JMH run"), "the point took " + row.seconds() + " s");
        assertTrue(Files.readString(out.resolve("config.json")).contains("\"timeoutSeconds\" : 2"));
    }

    /** {@code --outside}: the class's method runs before every acquisition; without it the same class fails its point. */
    @Test
    void outsideCallsTheClasssMethodBeforeEachAcquisition(@TempDir Path out) throws IOException {
        String[] common = {"bench", "--workload-class", "com.acme.Prepared", "--classpath", jar.toString(), "--locks", "VNA",
                "--threads", "2", "--operations", "200", "--virtual", "--quick"};
        MainTest.Result with = MainTest.main(Stream.concat(Stream.of(common),
                Stream.of("--outside", "prepare", "--out", out.resolve("with").toString())).toArray(String[]::new));
        assertEquals(0, with.status(), with.err() + with.out());
        PointResult row = ResultStore.load(out.resolve("with")).getFirst();
        assertTrue(row.ok(), row.error());
        assertTrue(Files.readString(out.resolve("with/config.json")).contains("\"outsideMethod\" : \"prepare\""));

        MainTest.Result without = MainTest.main(Stream.concat(Stream.of(common),
                Stream.of("--out", out.resolve("without").toString())).toArray(String[]::new));
        assertEquals(3, without.status(), without.err() + without.out());
        PointResult failed = ResultStore.load(out.resolve("without")).getFirst();
        assertTrue(failed.error().contains("run() without one prepare() before it"), failed.error());
    }

    @Test
    void aBadOutsideMethodIsAUsageError(@TempDir Path out) throws IOException {
        String cp = jar.toString();
        expectUsage(out, "--outside: com.acme.Prepared has no public no-argument method nope()", "--workload-class",
                "com.acme.Prepared", "--classpath", cp, "--outside", "nope");
        expectUsage(out, "--outside: com.acme.Prepared.helper() is static", "--workload-class", "com.acme.Prepared",
                "--classpath", cp, "--outside", "helper");
        expectUsage(out, "--outside: run() is the critical section", "--workload-class", "com.acme.Prepared",
                "--classpath", cp, "--outside", "run");
        expectUsage(out, "--outside applies to --workload-class only", "--outside", "prepare");
        try (Stream<Path> left = Files.list(out)) {
            assertEquals(0, left.count(), "a mistake runs and writes nothing");
        }
        assertTrue(BenchCommand.help().contains("--outside METHOD"), BenchCommand.help());
    }

    @Test
    void aSectionRoundEndsAfterAMinuteUnlessTimeoutSaysOtherwise() {
        String[] route = {"--workload-class", "com.acme.Counter", "--classpath", jar.toString()};
        for (var bench : BenchCommand.Args.parse(route).workload().config().activeBenches()) {
            assertEquals(60, bench.timeoutSeconds(), bench.id());
        }
        String[] withTimeout = {"--workload-class", "com.acme.Counter", "--classpath", jar.toString(), "--timeout", "600"};
        for (var bench : BenchCommand.Args.parse(withTimeout).workload().config().activeBenches()) {
            assertEquals(600, bench.timeoutSeconds(), bench.id());
        }
        assertTrue(BenchCommand.help().contains("--timeout SECONDS"), BenchCommand.help());
    }

    @Test
    void aBadTimeoutIsAUsageError(@TempDir Path out) throws IOException {
        String cp = jar.toString();
        expectUsage(out, "--timeout: not a whole number: 'soon'", "--workload-class", "com.acme.Counter", "--classpath", cp,
                "--timeout", "soon");
        expectUsage(out, "--timeout: must be 1 to 600 seconds, got 0", "--workload-class", "com.acme.Counter", "--classpath", cp,
                "--timeout", "0");
        expectUsage(out, "--timeout: must be 1 to 600 seconds, got 601", "--workload-class", "com.acme.Counter", "--classpath", cp,
                "--timeout", "601");
        expectUsage(out, "--timeout: must be 1 to 600 seconds, got -5", "--workload-class", "com.acme.Counter", "--classpath", cp,
                "--timeout", "-5");
        expectUsage(out, "--timeout needs a value", "--workload-class", "com.acme.Counter", "--classpath", cp, "--timeout");
        expectUsage(out, "--timeout applies to --workload-class only", "--timeout", "5");
        try (Stream<Path> left = Files.list(out)) {
            assertEquals(0, left.count(), "a mistake runs and writes nothing");
        }
    }

    /** JMH says "Benchmark caught the exception" (status 0) or the exit code: the reason names System.exit and its caller. */
    @Test
    void aSectionThatExitsTheJvmIsNamed(@TempDir Path out) throws IOException {
        for (int status : new int[] {0, 3}) {
            Path dir = out.resolve("exits" + status);
            MainTest.Result r = MainTest.main("bench", "--workload-class", "com.acme.Exits" + status, "--classpath", jar.toString(),
                    "--locks", "VNA", "--threads", "1", "--virtual", "--quick", "--out", dir.toString());
            assertEquals(3, r.status(), r.err() + r.out());
            PointResult row = ResultStore.load(dir).getFirst();
            assertTrue(row.error().startsWith("the measured JVM was exited by System.exit(" + status + ") at com.acme.Exits"
                    + status + ".run(Exits" + status + ".java:4) while its point ran"), row.error());
        }
    }

    private static void expectUsage(Path out, String message, String... options) {
        List<String> args = new java.util.ArrayList<>(List.of("bench", "--out", out.toString()));
        args.addAll(List.of(options));
        MainTest.Result r = MainTest.main(args.toArray(String[]::new));
        assertEquals(2, r.status(), String.join(" ", args) + ": " + r.err());
        assertTrue(r.err().contains(message), "'" + r.err() + "' should contain '" + message + "'");
    }

    @Test
    void aConfigurationNamesTheClassInARunnableBench() {
        ConfigException missing = assertThrows(ConfigException.class, () -> ConfigReader.parse("""
                { "benches": [ { "name": "runnable", "payload": { "locks": [ { "name": "VNA" } ] } } ] }
                """, "t.json"));
        assertTrue(missing.getMessage().contains("benches[0].payload.workloadClass: is required"), missing.getMessage());
        ConfigException notRunnable = assertThrows(ConfigException.class, () -> ConfigReader.parse("""
                { "benches": [ { "name": "runnable", "payload": { "workloadClass": "com.acme.NotRunnable", "classpath": "%s",
                  "locks": [ { "name": "VNA" } ] } } ] }
                """.formatted(jar.toString().replace("\\", "\\\\")), "t.json"));
        assertTrue(notRunnable.getMessage().contains("benches[0].payload.workloadClass: com.acme.NotRunnable does not implement"),
                notRunnable.getMessage());
    }

}
