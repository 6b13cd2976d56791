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
