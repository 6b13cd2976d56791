package io.numaloom.bench.cli;

import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ./numaloom compare DIR LOCK OTHER}: its answer on a run written here, and its usage errors. */
class CompareCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static PointResult row(String lock, int threads, double... means) {
        double mean = java.util.Arrays.stream(means).average().orElseThrow();
        return new PointResult("b", "b", "consumeCpu", lock, threads, "virtual", 2, 0, "", 1, means.length, 1000,
                mean, mean, mean, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, PointResult.OK, null, null, null, "f", "t", 1.0)
                .withRounds(java.util.Arrays.stream(means).boxed().toList(), "budget", 4);
    }

    @Test
    void printsEachPointsRatioWithItsIntervalAndTheMean(@TempDir Path dir) throws Exception {
        ResultStore store = ResultStore.open(dir);
        store.add(row("VNA", 8, 100, 110, 90, 105));
        store.add(row("VNA-x", 8, 80, 88, 72, 84));
        assertEquals(0, run("compare", dir.toString(), "VNA-x", "VNA"), err.toString());
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("VNA-x / VNA"), text);
        assertTrue(text.contains("0.80x [0.80, 0.80]") && text.contains("slower"), text);
    }

    @Test
    void comparesTheRoundsLongestWaitsPairedByRound(@TempDir Path dir) throws Exception {
        ResultStore store = ResultStore.open(dir);
        // Throughput alike; the variant's longest wait of each round is four times the lock's, give or take.
        store.add(row("VNA", 8, 100, 110, 90, 105, 100, 98).withRoundLatencies(
                java.util.List.of(1_000_000L, 2_000_000L, 1_500_000L, 1_200_000L, 900_000L, 1_100_000L),
                java.util.List.of(100_000L, 200_000L, 150_000L, 120_000L, 90_000L, 110_000L)));
        store.add(row("VNA-x", 8, 101, 108, 92, 104, 99, 99).withRoundLatencies(
                java.util.List.of(4_100_000L, 7_800_000L, 6_000_000L, 5_000_000L, 3_500_000L, 4_500_000L),
                java.util.List.of(100_000L, 210_000L, 140_000L, 125_000L, 85_000L, 110_000L)));
        assertEquals(0, run("compare", dir.toString(), "VNA-x", "VNA", "--wait", "max"), err.toString());
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("VNA-x / VNA: longest acquire wait of each round, ratio per point"), text);
        assertTrue(text.contains("below 1: VNA-x waits less"), text);
        assertTrue(text.matches("(?s).*  b +8  (3\\.9|4\\.0|4\\.1)\\dx \\[.*\\] +longer +6.*"), text);
        out.reset();
        assertEquals(0, run("compare", "--wait", "p999", dir.toString(), "VNA-x", "VNA"), err.toString());
        text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("99.9th percentile") && text.contains(" tied "), text);
    }

    @Test
    void aRunWithoutTheRoundsWaitsSaysSo(@TempDir Path dir) throws Exception {
        ResultStore store = ResultStore.open(dir);
        store.add(row("VNA", 8, 1, 2));
        store.add(row("VNA-x", 8, 1, 2));
        assertEquals(2, run("compare", dir.toString(), "VNA-x", "VNA", "--wait", "max"));
        assertTrue(err.toString().contains("has its rounds' waits: the run recorded none"), err.toString());
        err.reset();
        assertEquals(2, run("compare", dir.toString(), "VNA-x", "VNA", "--wait", "p50"));
        assertTrue(err.toString().contains("--wait takes max or p999, got 'p50'"), err.toString());
    }

    @Test
    void usageErrorsSayWhatIsWrong(@TempDir Path dir) throws Exception {
        assertEquals(2, run("compare", dir.toString(), "VNA"));
        assertTrue(err.toString().contains("expected a results directory and two lock names, got 2 arguments"), err.toString());
        err.reset();
        assertEquals(2, run("compare", dir.resolve("none").toString(), "A", "B"));
        assertTrue(err.toString().contains("no such directory"), err.toString());
        err.reset();
        assertEquals(2, run("compare", dir.toString(), "A", "B"));
        assertTrue(err.toString().contains("has no results.json"), err.toString());
        err.reset();
        ResultStore.open(dir).add(row("VNA", 8, 1, 2));
        assertEquals(2, run("compare", dir.toString(), "VNB", "VNA"));
        assertTrue(err.toString().contains("numaloom compare: no lock 'VNB' in this run"), err.toString());
        assertEquals(0, run("compare", "--help"));
        assertTrue(out.toString().startsWith("Usage: ./numaloom compare RESULTS_DIR LOCK OTHER"));
    }
}
