package io.numaloom.bench.run;

import io.numaloom.bench.Point;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.report.Recommendation;
import io.numaloom.bench.report.Summary;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.Mutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run measures each group (one bench at one thread count) in interleaved rounds, and its verdicts come from the
 * ratios paired by round: the order of the forks, the rows' round series, the plan's stop, a failing lock, and the
 * summary's intervals.
 */
class RoundsRunTest {
    static final String CONFIG = """
            { "benches": [ { "name": "consumeCpu", "id": "g", "payload": { "threads": [2, 8],
                "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" }, { "name": "UNFAIR_REENTRANT_TWIN" },
                           { "name": "SYNCHRONIZED" } ] } } ] }
            """;

    /**
     * Forks whose round time is the lock's true time times the machine's weather of the moment (shared by the forks
     * that run close together) and a little noise of their own: VNA 1.3x the reference, SYNCHRONIZED 0.8x, the twin
     * 1.0x.
     */
    static class NoisyExecutor implements PointExecutor {
        final List<String> asked = new ArrayList<>();
        final Set<String> failing;
        private final Random random = new Random(11);
        private double weather = 1;

        NoisyExecutor(Set<String> failing) {
            this.failing = failing;
        }

        @Override
        public Measurement measure(Point point, Path workDir, Path logFile) throws PointFailedException {
            asked.add(point.key());
            assertEquals(1, point.bench().forks(), "one fork per lock and round");
            if (failing.contains(point.key()) && asked.stream().filter(point.key()::equals).count() == 2) {
                throw new PointFailedException("java.lang.IllegalStateException: broke in its second round", null);
            }
            weather = weather * 0.9 + 0.1 * Math.exp(0.3 * random.nextGaussian()); // drifts slowly
            double speed = switch (point.lock()) {
                case "VNA" -> 1.3;
                case "SYNCHRONIZED" -> 0.8;
                default -> 1.0;
            };
            double t = 10 / speed / weather * Math.exp(0.01 * random.nextGaussian());
            // Its longest wait: the fork's number among the point's forks, in µs, so a row's rounds can be told apart.
            long longest = 1000L * asked.stream().filter(point.key()::equals).count();
            org.HdrHistogram.Histogram waits = new org.HdrHistogram.Histogram(3);
            waits.recordValue(10);
            waits.recordValue(longest);
            ForkReport report = new ForkReport(1, 1000, List.of(1.0), List.of(1.0), ForkReport.encode(waits), 0, 0, "p",
                    "c", "2 cpus", null, null, null, null);
            return new Measurement(List.of(List.of(t, t, t)), List.of(report));
        }
    }

    private static BenchConfig config() throws Exception {
        return ConfigReader.parse(CONFIG, "rounds.json", 2, Mutex.names());
    }

    @Test
    void eachRoundRunsEveryLockOnceInAShuffledOrderAndTheVerdictsComeFromThePairedRatios(@TempDir Path out) throws Exception {
        NoisyExecutor executor = new NoisyExecutor(Set.of());
        BenchRunner.Method method = BenchRunner.Method.precise(42);
        List<PointResult> rows = new BenchRunner(config(), out, false, executor, TestListeners.SILENT).withMethod(method).run();

        assertEquals(8, rows.size());
        Map<Integer, Integer> roundsOf = new HashMap<>();
        for (PointResult r : rows) {
            assertTrue(r.ok(), r.key() + ": " + r.error());
            assertEquals("precision", r.roundsStop(), r.key());
            assertEquals(4, r.pilotRounds());
            roundsOf.merge(r.threads(), r.roundOpsPerMs().size(), (a, b) -> {
                assertEquals(a, b, "every lock of a group has the same rounds");
                return a;
            });
            assertEquals(3 * r.roundOpsPerMs().size(), r.rounds(), "every fork's measured iterations count");
            for (int round = 0; round < r.roundOpsPerMs().size(); round++) {
                assertEquals(1000.0 * (round + 1), r.roundLatencyMaxNs().get(round), 1000.0 * (round + 1) * 0.002,
                        r.key() + ": each round's longest wait is its own fork's, in round order");
            }
        }
        // The groups ran in passes, a round of each in turn: the run begins with a round of x2, then one of x8, then x2.
        assertEquals(Set.of("g/VNA/2", "g/UNFAIR_REENTRANT/2", "g/UNFAIR_REENTRANT_TWIN/2", "g/SYNCHRONIZED/2"),
                Set.copyOf(executor.asked.subList(0, 4)));
        assertEquals(Set.of("g/VNA/8", "g/UNFAIR_REENTRANT/8", "g/UNFAIR_REENTRANT_TWIN/8", "g/SYNCHRONIZED/8"),
                Set.copyOf(executor.asked.subList(4, 8)));
        assertEquals(Set.of("g/VNA/2", "g/UNFAIR_REENTRANT/2", "g/UNFAIR_REENTRANT_TWIN/2", "g/SYNCHRONIZED/2"),
                Set.copyOf(executor.asked.subList(8, 12)));
        // A group's forks ran round by round: each block of 4 of its asks holds each lock once, in varying orders.
        List<String> x2 = executor.asked.stream().filter(k -> k.endsWith("/2")).toList();
        assertEquals(4 * roundsOf.get(2), x2.size());
        List<List<String>> orders = new ArrayList<>();
        for (int r = 0; r < roundsOf.get(2); r++) {
            List<String> round = x2.subList(4 * r, 4 * r + 4);
            assertEquals(Set.of("g/VNA/2", "g/UNFAIR_REENTRANT/2", "g/UNFAIR_REENTRANT_TWIN/2", "g/SYNCHRONIZED/2"),
                    Set.copyOf(round), "round " + r);
            orders.add(round);
        }
        assertTrue(orders.stream().distinct().count() > 1, "the order changes between rounds: " + orders);

        List<Summary.BenchSummary> summaries = Summary.of(config(), rows);
        Map<String, Summary.LockLine> lines = new HashMap<>();
        summaries.getFirst().locks().forEach(l -> lines.put(l.lock(), l));
        for (Summary.Cell c : lines.get("VNA").cells()) {
            assertEquals(Summary.Verdict.FASTER, c.verdict(), c.withInterval());
            // Stein's interval is within +-5% by plan; its hull with the rank interval may be a little wider.
            assertTrue(c.low() <= 1.3 && 1.3 <= c.high() && c.high() / c.low() < 1.07 * 1.07, c.withInterval());
        }
        for (Summary.Cell c : lines.get("SYNCHRONIZED").cells()) {
            assertEquals(Summary.Verdict.SLOWER, c.verdict(), c.withInterval());
        }
        List<String> csv = Files.readAllLines(out.resolve(Summary.FILE));
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("g,VNA,2,") && l.contains(",faster,") && !l.endsWith(",,")),
                "summary.csv carries the interval: " + csv);
        assertEquals(42, new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.resolve("run.json").toFile())
                .get("seed").asLong(), "run.json records the seed");

        Recommendation verdict = Recommendation.read(out);
        assertTrue(verdict.notes().stream().anyMatch(n -> n.startsWith("A/A control: the reference's twin judged different at 0 of 2")
                && n.contains("passed")), verdict.notes().toString());
        assertTrue(verdict.lines().stream().anyMatch(l -> l.startsWith("Use VNA")), verdict.lines().toString());
    }

    /** A twin that is not identical to its reference (here 1.2x) is what a noisy machine looks like: no verdict to act on. */
    @Test
    void aTwinJudgedDifferentTooOftenWithholdsTheVerdict(@TempDir Path out) throws Exception {
        NoisyExecutor executor = new NoisyExecutor(Set.of()) {
            @Override
            public Measurement measure(Point point, Path workDir, Path logFile) throws PointFailedException {
                Measurement m = super.measure(point, workDir, logFile);
                if (!point.lock().equals("UNFAIR_REENTRANT_TWIN")) {
                    return m;
                }
                double t = m.forkRoundTimesMs().getFirst().getFirst() / 1.2;
                return new Measurement(List.of(List.of(t, t, t)), m.forkReports());
            }
        };
        new BenchRunner(config(), out, false, executor, TestListeners.SILENT).withMethod(BenchRunner.Method.precise(5)).run();
        Recommendation verdict = Recommendation.read(out);
        assertTrue(verdict.notes().stream().anyMatch(n -> n.contains("judged different at 2 of 2 points")
                && n.contains("this machine was too noisy for the verdicts")), verdict.notes().toString());
        assertTrue(verdict.lines().stream().anyMatch(l -> l.startsWith("No verdict to act on: this machine was too noisy")),
                verdict.lines().toString());
        assertTrue(verdict.lines().stream().noneMatch(l -> l.startsWith("Use ")), verdict.lines().toString());
    }

    @Test
    void aLockWhoseForkFailsLeavesTheRoundsAndFailsItsRowAlone(@TempDir Path out) throws Exception {
        NoisyExecutor executor = new NoisyExecutor(Set.of("g/SYNCHRONIZED/2"));
        List<PointResult> rows = new BenchRunner(config(), out, false, executor, TestListeners.SILENT)
                .withMethod(BenchRunner.Method.precise(7)).run();
        PointResult sync = rows.stream().filter(r -> r.key().equals("g/SYNCHRONIZED/2")).findFirst().orElseThrow();
        assertEquals(PointResult.FAILED, sync.status());
        assertTrue(sync.error().contains("broke in its second round") && sync.error().contains("in round 2"), sync.error());
        assertEquals(2, executor.asked.stream().filter("g/SYNCHRONIZED/2"::equals).count(), "not run after it failed");
        assertTrue(rows.stream().filter(r -> !r.key().equals("g/SYNCHRONIZED/2")).allMatch(PointResult::ok));
        PointResult vna = rows.stream().filter(r -> r.key().equals("g/VNA/2")).findFirst().orElseThrow();
        assertTrue(vna.roundOpsPerMs().size() >= 4, vna.roundOpsPerMs().toString());
    }
}
