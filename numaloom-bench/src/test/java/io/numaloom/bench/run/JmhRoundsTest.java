package io.numaloom.bench.run;

import io.numaloom.bench.result.PairedRatio.Verdict;
import io.numaloom.bench.run.JmhJarRun.Key;
import io.numaloom.bench.run.JmhJarRun.Outcome;
import io.numaloom.bench.run.JmhJarRun.Score;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The JMH route's rounds with forks that are not JVMs: order, twin, plans and stops, failures. */
class JmhRoundsTest {
    static final Key THRPT = new Key("com.acme.B.m", "thrpt", Map.of());
    static final Key AVGT = new Key("com.acme.B.m", "avgt", Map.of("size", "1"));

    /** A fork whose scores are {@code speed} of its value (times 1 +- noise), in throughput and in average time. */
    static JmhRounds.Fork fake(Map<String, Double> speed, double noise, List<String> calls) {
        SplittableRandom random = new SplittableRandom(1);
        return (name, value, index, round) -> {
            calls.add(round + ":" + name);
            double s = speed.get(value) * (1 + noise * (random.nextDouble() - 0.5));
            return new Outcome(List.of(new Score(THRPT, s, "ops/us"), new Score(AVGT, 1000 / s, "ns/op")), null, Path.of("x.log"));
        };
    }

    static BenchRunner.Method rounds(int n) {
        return new BenchRunner.Method(Double.NaN, BenchRunner.Method.DEFAULT_PILOT, n, null, 42);
    }

    @Test
    void everyRoundRunsEveryAlternativeOnceInItsOrderAndTheTwinIsTheAaControl() throws Exception {
        List<String> calls = new ArrayList<>();
        JmhRounds rounds = new JmhRounds(List.of("VNA", "SLOW"), true, rounds(5));
        assertEquals(Map.of("VNA", "VNA", "SLOW", "SLOW", "VNA_TWIN", "VNA"), rounds.alternatives());
        JmhRounds.Result r = rounds.run(fake(Map.of("VNA", 100.0, "SLOW", 50.0), 0.02, calls), new JmhRounds.Listener() {});
        assertEquals(15, calls.size());
        RoundPlan order = new RoundPlan(List.of("VNA", "SLOW", "VNA_TWIN"), "VNA", 42, 4, Double.NaN, 5, java.time.Duration.ofDays(1));
        for (int round = 0; round < 5; round++) {
            String prefix = round + ":";
            List<String> expected = order.order(round).stream().map(a -> prefix + a).toList();
            assertEquals(expected, calls.subList(3 * round, 3 * round + 3), "round " + round + " in RoundPlan's order");
        }
        assertEquals(2, r.comparisons().size());
        for (JmhRounds.Comparison c : r.comparisons()) {
            assertEquals(5, c.rounds());
            assertEquals("fixed", c.stop());
            var slow = c.estimates().get("SLOW");
            assertEquals(0.5, slow.ratio(), 0.03, c.key().label() + ": half as fast, in either mode");
            assertEquals(Verdict.SLOWER, slow.verdict());
            assertEquals(1.0, c.estimates().get("VNA_TWIN").ratio(), 0.03);
        }
        assertNotNull(r.aaControl());
        assertEquals(2, r.aaControl().points());
        assertTrue(r.forkFailures().isEmpty());
    }

    @Test
    void aPrecisionPlansTheRoundsAfterThePilot() throws Exception {
        List<String> calls = new ArrayList<>();
        JmhRounds rounds = new JmhRounds(List.of("A", "B"), true,
                new BenchRunner.Method(0.05, BenchRunner.Method.DEFAULT_PILOT, 30, null, 3));
        JmhRounds.Result r = rounds.run(fake(Map.of("A", 100.0, "B", 120.0), 0.01, calls), new JmhRounds.Listener() {});
        for (JmhRounds.Comparison c : r.comparisons()) {
            assertEquals("precision", c.stop(), "a quiet fork: the pilot's plan is met");
            assertEquals(4, c.rounds());
            assertTrue(c.estimates().get("B").within(0.05));
            assertEquals(Verdict.FASTER, c.estimates().get("B").verdict());
        }
        assertEquals(12, calls.size());
    }

    @Test
    void aFailedForkFailsItsValueWhichRunsNoMoreAndTheRunGoesOn() throws Exception {
        List<String> calls = new ArrayList<>();
        JmhRounds.Fork ok = fake(Map.of("A", 100.0, "B", 90.0, "C", 80.0), 0.02, new ArrayList<>());
        JmhRounds.Fork fork = (name, value, index, round) -> {
            calls.add(name);
            if (name.equals("B") && round == 1) {
                return new Outcome(List.of(), "B: JMH exited with status 1 and wrote no result (log: logs/v2-B-round02.log)",
                        Path.of("logs/v2-B-round02.log"));
            }
            if (name.equals("C")) { // its average-time benchmark fails in every fork
                Outcome o = ok.run(name, value, index, round);
                return new Outcome(o.scores().subList(0, 1), null, Path.of("logs/v3-C.log"));
            }
            return ok.run(name, value, index, round);
        };
        JmhRounds.Result r = new JmhRounds(List.of("A", "B", "C"), false, rounds(4)).run(fork, new JmhRounds.Listener() {});
        assertEquals(1 + 1, calls.stream().filter("B"::equals).count(), "B runs no more after its failed fork");
        assertEquals(4, calls.stream().filter("A"::equals).count());
        assertEquals(Map.of("B", "B: JMH exited with status 1 and wrote no result (log: logs/v2-B-round02.log)"), r.forkFailures());
        JmhRounds.Comparison thrpt = r.comparisons().stream().filter(c -> c.key().equals(THRPT)).findFirst().orElseThrow();
        JmhRounds.Comparison avgt = r.comparisons().stream().filter(c -> c.key().equals(AVGT)).findFirst().orElseThrow();
        assertEquals(Verdict.SLOWER, thrpt.estimates().get("C").verdict());
        assertTrue(thrpt.failures().get("B").contains("log: logs/v2-B-round02.log"));
        assertTrue(avgt.failures().get("C").startsWith("C: no score for com.acme.B.m (avgt, size=1) in round 1"),
                avgt.failures().toString());
        assertTrue(avgt.failures().get("C").contains("log: logs/v3-C.log"), avgt.failures().toString());
        assertEquals("failed", avgt.stop(), "B's and C's comparisons both failed: it ended");
        assertNull(r.aaControl(), "no twin, no A/A control");
    }

    @Test
    void theReferencesFailedForkEndsTheRun() throws Exception {
        List<String> calls = new ArrayList<>();
        JmhRounds.Fork fork = (name, value, index, round) -> {
            calls.add(name);
            return name.equals("A") ? new Outcome(List.of(), "A: boom (log: a.log)", Path.of("a.log"))
                    : new Outcome(List.of(new Score(THRPT, 1, "ops/s")), null, Path.of("b.log"));
        };
        JmhRounds.Result r = new JmhRounds(List.of("A", "B"), true, rounds(10)).run(fork, new JmhRounds.Listener() {});
        assertEquals(1, r.rounds());
        assertEquals(3, calls.size());
        assertTrue(r.comparisons().getFirst().failures().get("B").startsWith("A: boom"), "the reference's reason");
    }
}
