package io.numaloom.bench.workloads;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.run.Execution;
import io.numaloom.bench.run.ThreadPlacement;
import io.numaloom.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Every workload runs to a correct result on real threads, with a JDK lock, a monitor and VnaLock. */
class WorkloadsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** A bench of one workload with the given payload fields, validated like a configuration. */
    private static BenchDefinition bench(String workload, String fields) throws ConfigException {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [ { "name": "%s", "payload": { %s "threads": [1], "locks": [ { "name": "UNFAIR_REENTRANT" } ] } } ] }
                """.formatted(workload, fields), "test", 2, Mutex.names());
        return config.benches().getFirst();
    }

    private static Execution.Outcome run(BenchDefinition b, String lock, int threads, String threadType, boolean pin)
            throws InterruptedException {
        Round round = b.kind().create(b.settings()).newRound(new RoundContext(threads, lock, 0));
        try (ThreadPlacement placement = ThreadPlacement.create(threadType, 2, pin)) {
            return Execution.runOnce(round, threads, placement, true, TIMEOUT);
        }
    }

    private static void assertHandoffs(Execution.Outcome o, long acquisitions) {
        assertEquals(acquisitions - 1, o.handoffs());
        assertTrue(o.localHandoffs() >= 0 && o.localHandoffs() <= o.handoffs());
        if (Topology.current().nodeCount() == 1) {
            assertEquals(o.handoffs(), o.localHandoffs(), "on one node every handoff is local");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"UNFAIR_REENTRANT", "FAIR_REENTRANT", "SYNCHRONIZED", "VNA"})
    void consumeCpu(String lock) throws Exception {
        BenchDefinition b = bench("consumeCpu", "\"actionsCount\": 3001, \"beforeCpuTokens\": 20, \"inCpuTokens\": 20,");
        Execution.Outcome o = run(b, lock, 4, "virtual", false);
        assertEquals(3001, o.operations());
        assertEquals(3001, o.latency().getTotalCount());
        assertHandoffs(o, 3001);
    }

    @Test
    void consumeCpuOnPinnedCarriersAndPinnedPlatformThreads() throws Exception {
        BenchDefinition b = bench("consumeCpu", "\"actionsCount\": 2000, \"inCpuTokens\": 10,");
        assertHandoffs(run(b, "UNFAIR_REENTRANT", 3, "virtual", true), 2000);
        assertHandoffs(run(b, "UNFAIR_REENTRANT", 3, "platform", true), 2000);
        try (ThreadPlacement pinned = ThreadPlacement.create("virtual", 2, true)) {
            assertTrue(pinned.description().contains("pinned carriers"), pinned.description());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"UNFAIR_REENTRANT", "SYNCHRONIZED", "VNA"})
    void contend(String lock) throws Exception {
        BenchDefinition b = bench("contend", "\"actionsCount\": 2000, \"parallelNs\": 200, \"serialNs\": 200,");
        Execution.Outcome o = run(b, lock, 4, "platform", false);
        assertEquals(2000, o.operations());
        assertHandoffs(o, 2000);
    }

    @Test
    void matrixRoundsStayFinite() throws Exception {
        BenchDefinition b = bench("matrix", "\"actionsCount\": 400, \"outerSize\": 12, \"innerSize\": 9,");
        Execution.Outcome o = run(b, "VNA", 4, "virtual", false);
        assertEquals(400, o.operations());
        assertHandoffs(o, 400);
        assertEquals(100, run(bench("matrix", "\"actionsCount\": 100, \"outerSize\": 0, \"innerSize\": 0,"),
                "SYNCHRONIZED", 2, "virtual", false).operations());
    }

    @Test
    void matrixProductChangesItsValuesButKeepsThemInTheirRange() {
        Matrix.Product p = new Matrix.Product(10, 7);
        double[] before = p.values.clone();
        double min = java.util.Arrays.stream(before).min().orElseThrow();
        double max = java.util.Arrays.stream(before).max().orElseThrow();
        p.step();
        assertNotEquals(before[0], p.values[0], "a step multiplies");
        for (int i = 0; i < 20_000; i++) {
            p.step();
        }
        for (double v : p.values) {
            assertTrue(Double.isFinite(v) && v >= min - 1e-9 && v <= max + 1e-9, "value " + v + " left [" + min + ", " + max + "]");
        }
        for (int j = 0; j < 10; j++) {
            double column = 0;
            for (int i = 0; i < 10; i++) {
                column += p.factor[i * 10 + j];
            }
            assertEquals(1.0, column, 1e-12, "the factor is column-stochastic");
        }
        assertEquals(null, p.firstNonFinite());
        p.values[13] = Double.NaN;
        assertEquals("[1][3] = NaN", p.firstNonFinite());
    }

    @ParameterizedTest
    @ValueSource(strings = {"UNFAIR_REENTRANT", "FAIR_REENTRANT", "SYNCHRONIZED", "VNA"})
    void textStatsCountsEveryWordExactly(String lock) throws Exception {
        BenchDefinition b = bench("textStats", "\"lines\": 3000, \"wordsPerLine\": 7, \"vocabulary\": 500, \"maps\": 5,");
        // finish() runs the exact check of every count; a lost update fails it.
        Execution.Outcome o = run(b, lock, 6, "virtual", false);
        assertEquals(21_000, o.operations());
        assertEquals(21_000, o.latency().getTotalCount());
        assertEquals(21_000 - 5, o.handoffs(), "one handoff less than acquisitions per map");
    }

    @Test
    void textStatsTextIsDeterministicAndItsExpectedCountsAreRight() {
        TextStats a = new TextStats(1000, 9, 200, 4, 42);
        TextStats b = new TextStats(1000, 9, 200, 4, 42);
        assertEquals(a.lines(), b.lines());
        assertNotEquals(a.lines(), new TextStats(1000, 9, 200, 4, 43).lines());
        Map<String, Integer> counted = new HashMap<>();
        for (String line : a.lines()) {
            String[] words = line.split(" ");
            assertEquals(9, words.length);
            for (String w : words) {
                counted.merge(w, 1, Integer::sum);
            }
        }
        assertEquals(counted, a.expectedCounts());
        assertEquals(9000, counted.values().stream().mapToInt(Integer::intValue).sum());
        // Zipf-like: the most frequent word is far more frequent than the median one.
        List<Integer> sorted = counted.values().stream().sorted().toList();
        assertTrue(sorted.getLast() > 10 * sorted.get(sorted.size() / 2), sorted.toString());
        assertEquals(200, java.util.stream.IntStream.range(0, 200).mapToObj(TextStats::word).distinct().count());
    }

    @Test
    void textStatsCheckCatchesWrongCounts() {
        Map<String, Integer> expected = Map.of("ka", 3, "lo", 1, "mi", 2);
        List<HashMap<String, Integer>> good = stripes(expected, 2);
        TextStats.verifyCounts(good, expected);

        List<HashMap<String, Integer>> lost = stripes(expected, 2);
        lost.get(TextStats.stripe("ka", 2)).put("ka", 2);
        assertTrue(assertThrows(IllegalStateException.class, () -> TextStats.verifyCounts(lost, expected))
                .getMessage().contains("word 'ka' counted 2 times, expected 3"));

        List<HashMap<String, Integer>> missing = stripes(expected, 2);
        missing.get(TextStats.stripe("lo", 2)).remove("lo");
        assertTrue(assertThrows(IllegalStateException.class, () -> TextStats.verifyCounts(missing, expected))
                .getMessage().contains("2 distinct words counted, expected 3"));

        List<HashMap<String, Integer>> extra = stripes(expected, 2);
        extra.getFirst().put("zz", 1);
        assertTrue(assertThrows(IllegalStateException.class, () -> TextStats.verifyCounts(extra, expected))
                .getMessage().contains("not in the text: 'zz'"));

        List<HashMap<String, Integer>> misplaced = stripes(expected, 2);
        int right = TextStats.stripe("mi", 2);
        misplaced.get(right).remove("mi");
        misplaced.get(1 - right).put("mi", 2);
        assertTrue(assertThrows(IllegalStateException.class, () -> TextStats.verifyCounts(misplaced, expected))
                .getMessage().contains("word 'mi' counted in map " + (1 - right)));
    }

    private static List<HashMap<String, Integer>> stripes(Map<String, Integer> counts, int n) {
        List<HashMap<String, Integer>> maps = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            maps.add(new HashMap<>());
        }
        counts.forEach((w, c) -> maps.get(TextStats.stripe(w, n)).put(w, c));
        return maps;
    }

    @ParameterizedTest
    @ValueSource(strings = {"UNFAIR_REENTRANT", "SYNCHRONIZED", "VNA"})
    void randBashEndsInTheStateOfNSteps(String lock) throws Exception {
        BenchDefinition b = bench("randBash", "\"actionsCount\": 30000,");
        Execution.Outcome o = run(b, lock, 6, "virtual", false);
        assertEquals(30_000, o.operations());
        assertHandoffs(o, 30_000);
    }

    @Test
    void randBashJumpAheadMatchesStepping() {
        RandBash.Generator g = new RandBash.Generator();
        for (long n = 0; n <= 5000; n++) {
            assertEquals(g.seed, RandBash.advance(RandBash.INITIAL_SEED, n), "after " + n + " steps");
            g.next();
        }
        assertNotEquals(RandBash.advance(RandBash.INITIAL_SEED, 1_000_000), RandBash.advance(RandBash.INITIAL_SEED, 999_999));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void syncPlainAndNested(int depth) throws Exception {
        BenchDefinition b = bench("sync", "\"actionsCount\": 50000, \"depth\": " + depth + ",");
        for (String lock : List.of("UNFAIR_REENTRANT", "SYNCHRONIZED", "VNA")) {
            if (depth > 1 && !Mutex.create(lock).isReentrant()) {
                continue;
            }
            Execution.Outcome o = run(b, lock, 2, "virtual", false);
            assertEquals(50_000, o.operations());
            assertEquals(0, o.handoffs(), "sync has no shared region");
        }
    }

    @Test
    void nestedSyncRefusesANonReentrantLock() throws Exception {
        String nonReentrant = Mutex.names().stream().filter(n -> {
            try {
                return !Mutex.create(n).isReentrant();
            } catch (RuntimeException e) {
                return false;
            }
        }).findFirst().orElse(null);
        assumeTrue(nonReentrant != null, "no non-reentrant lock is registered");
        BenchDefinition b = bench("sync", "\"actionsCount\": 10, \"depth\": 2,");
        Workload w = b.kind().create(b.settings());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> w.newRound(new RoundContext(1, nonReentrant, 0)));
        assertTrue(e.getMessage().contains(nonReentrant + " is not reentrant"), e.getMessage());
    }
}
