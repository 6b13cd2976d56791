package io.numaloom.bench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./numaloom bench --jmh-jar} end to end: a JMH benchmarks jar built here ({@link JmhTestJar}), run in rounds of
 * real JMH forks with very short settings; the console's verdict lines, {@code rounds.csv}, {@code summary.csv} and
 * {@code run.json}. No assertion on how fast anything is, beyond the direction of a tenfold difference.
 *
 * <p>An IT (about 35 s on 2 cores: 15 JVM pairs): {@code ./mvnw -pl numaloom-bench -am verify -Dtest=JmhJarRouteIT
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class JmhJarRouteIT {
    /** One warm-up and one measured iteration of 100 ms: the forks' JVM starts dominate. */
    static final String[] SHORT = {"--", "-wi", "1", "-i", "1", "-w", "100ms", "-r", "100ms"};

    @TempDir
    static Path build;
    static Path jar;

    static String ignoreLockBefore;

    @BeforeAll
    static void buildJar() throws Exception {
        jar = JmhTestJar.build(build);
        // Other builds on this machine may run JMH: the route passes this on to its forks, as the ITs do.
        ignoreLockBefore = System.setProperty("jmh.ignoreLock", "true");
    }

    @AfterAll
    static void restoreLock() {
        if (ignoreLockBefore == null) {
            System.clearProperty("jmh.ignoreLock");
        } else {
            System.setProperty("jmh.ignoreLock", ignoreLockBefore);
        }
    }

    static MainTest.Result bench(Path results, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        int status;
        try {
            status = new BenchCommand(new PrintStream(out, true, StandardCharsets.UTF_8), errStream, null, results).run(args);
        } catch (Main.UsageException e) {
            errStream.println("numaloom bench: " + e.getMessage());
            status = Main.USAGE;
        }
        return new MainTest.Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static String[] args(Path out, String values, int rounds) {
        List<String> a = new java.util.ArrayList<>(List.of("--jmh-jar", jar.toString(), "--jmh-param", "lock=" + values,
                "--jmh-benchmark", "Spin", "--rounds", Integer.toString(rounds), "--seed", "7", "--out", out.toString()));
        a.addAll(List.of(SHORT));
        return a.toArray(String[]::new);
    }

    @Test
    void twoValuesInRoundsGiveRatiosWithIntervalsVerdictsAndTheAaControl(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run");
        MainTest.Result r = bench(dir, args(out, "FAST,SLOW", 3));
        assertEquals(0, r.status(), r.out() + r.err());
        // Per benchmark and mode: the rounds, the stop, each alternative's ratio with its interval and verdict.
        assertTrue(r.out().contains("com.acme.Spin.spin (thrpt, size=1) [ops/us]: 3 rounds, stop: fixed"), r.out());
        assertTrue(r.out().contains("com.acme.Spin.spinTime (avgt, size=1) [ns/op]: 3 rounds, stop: fixed"), r.out());
        assertTrue(r.out().matches("(?s).*\\n  SLOW +\\d+\\.\\d\\dx \\[\\d+\\.\\d\\d, \\d+\\.\\d\\d\\]  (faster|slower|tied)\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\n  FAST_TWIN +\\d+\\.\\d\\dx \\[\\d+\\.\\d\\d, \\d+\\.\\d\\d\\]  (faster|slower|tied) \\(A/A control\\)\\n.*"), r.out());
        assertTrue(r.out().contains("above 1 is faster"), r.out());
        assertTrue(r.out().contains("A/A control: the reference's twin judged different at "), r.out());

        List<String> summary = Files.readAllLines(out.resolve("summary.csv"));
        assertEquals("benchmark,mode,params,alternative,value,reference,unit,rounds,stop,ratio,ratioLow,ratioHigh,verdict,failure",
                summary.getFirst());
        assertEquals(5, summary.size(), "two benchmarks x (SLOW, the twin): " + summary);
        for (String line : summary.subList(1, summary.size())) {
            String[] f = line.split(",", -1);
            double ratio = Double.parseDouble(f[9]);
            double low = Double.parseDouble(f[10]);
            double high = Double.parseDouble(f[11]);
            assertTrue(Double.isFinite(ratio) && ratio > 0 && low <= ratio && ratio <= high && Double.isFinite(high), line);
            assertTrue(List.of("faster", "slower", "tied").contains(f[12]), line);
            assertEquals("3", f[7], line);
            if (f[3].equals("SLOW")) {
                // Ten times the work per operation: slower in throughput, and in average time once inverted.
                assertTrue(ratio < 1, "SLOW's ratio, > 1 meaning faster whatever the mode: " + line);
            }
        }
        List<String> rounds = Files.readAllLines(out.resolve("rounds.csv"));
        assertEquals(1 + 3 * 3 * 2, rounds.size(), "3 rounds x 3 alternatives x 2 benchmarks: " + rounds);
        JsonNode run = new ObjectMapper().readTree(out.resolve("run.json").toFile());
        assertEquals(7, run.path("seed").asLong());
        assertEquals("FAST_TWIN", run.path("twin").asText());
        assertTrue(run.path("command").asText().contains("--jmh-jar"), run.toString());
        assertTrue(run.hasNonNull("finished"), run.toString());
        try (var logs = Files.list(out.resolve("logs"))) {
            assertEquals(9, logs.count(), "one JMH log per fork");
        }
        assertTrue(r.out().matches("(?s).*\\nSLOW: \\d+\\.\\d\\dx \\[.*\\] in geometric mean over 2 comparisons; .*"), r.out());
        assertTrue(r.out().contains("\nPrecision reached: median ±"), r.out());
        String html = Files.readString(out.resolve("index.html"));
        assertTrue(html.contains("<th>FAST_TWIN (A/A control)</th>") && html.contains("com.acme.Spin.spinTime (avgt, size=1)")
                && html.contains("<svg "), html);
    }

    /** {@code --jmh-agent}: the benchmarks as they are against the same through numaloom's agent, with the A/A control. */
    @Test
    void theAgentRouteComparesTheBenchmarksWithAndWithoutTheAgent(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run");
        List<String> a = new java.util.ArrayList<>(List.of("--jmh-jar", jar.toString(), "--jmh-agent=include=com.acme.",
                "--jmh-benchmark", "Plain", "--rounds", "2", "--seed", "7", "--out", out.toString()));
        a.addAll(List.of(SHORT));
        MainTest.Result r = bench(dir, a.toArray(String[]::new));
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("Ratio to stock (the benchmarks without numaloom's agent; agent: with it)"), r.out());
        assertTrue(r.out().matches("(?s).*\\n  agent +\\d+\\.\\d\\dx \\[\\d+\\.\\d\\d, \\d+\\.\\d\\d\\]  (faster|slower|tied)\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\n  stock_TWIN +\\d+\\.\\d\\dx .*\\(A/A control\\)\\n.*"), r.out());
        JsonNode run = new ObjectMapper().readTree(out.resolve("run.json").toFile());
        assertTrue(run.path("agent").asText().endsWith("numaloom-agent.jar"), run.toString());
        // The agent's report of each fork through it, beside the fork's log; none for the others.
        try (var files = Files.list(out.resolve("logs"))) {
            List<Path> all = files.toList();
            List<Path> reports = all.stream().filter(p -> p.getFileName().toString().endsWith(".agent-report.txt")).toList();
            assertEquals(2, reports.size(), "one per round's fork through the agent: " + all);
            for (Path report : reports) {
                assertTrue(report.getFileName().toString().contains("-agent-round"), report.toString());
                String text = Files.readString(report);
                assertTrue(text.contains("swapped com.acme.Plain.<init>"), report + ":\n" + text);
            }
        }
    }

    @Test
    void aValueWhoseBenchmarksFailFailsItsComparisonsAndTheRunGoesOn(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run");
        MainTest.Result r = bench(dir, args(out, "FAST,BOOM", 2));
        assertEquals(3, r.status(), r.out() + r.err());
        assertTrue(r.out().matches("(?s).*\\n  BOOM +failed: BOOM: .*\\(.*log: .*v2-BOOM-round01\\.log\\).*"), r.out());
        assertTrue(r.out().matches("(?s).*\\n  FAST_TWIN +\\d+\\.\\d\\dx \\[.*"), "the twin's comparisons go on: " + r.out());
        List<String> summary = Files.readAllLines(out.resolve("summary.csv"));
        assertTrue(summary.stream().anyMatch(l -> l.contains(",BOOM,BOOM,FAST,") && l.contains(",failed,")), summary.toString());
    }
}
