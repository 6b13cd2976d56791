package io.numaloom.bench.cli;

import io.numaloom.bench.report.Recommendation;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.run.PointExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A run's output ends with the verdict of its results folder and the closing line: at most 10 lines. */
class LastBlockTest {

    /** VNA twice as fast as everything else, whose rounds all take 1 ms (1% apart). */
    private static final PointExecutor FAKE = (point, work, log) -> {
        double t = point.lock().equals("VNA") ? 0.5 : 1.0;
        return new PointExecutor.Measurement(List.of(List.of(t, t * 1.01, t * 0.99)), List.of(new ForkReport(1, 100,
                List.of(1.0), List.of(1.0), null, 0, 0, "p", "c", "2 cpus, 1 nodes; test", null, null, null, null)));
    };

    @Test
    void theRunEndsWithTheVerdictOfItsFolder(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("c.json"), """
                { "benches": [
                  { "name": "randBash", "id": "a", "payload": { "threads": [1, 2], "locks": [ { "name": "VNA" },
                    { "name": "UNFAIR_REENTRANT" }, { "name": "SYNCHRONIZED" }, { "name": "SHFL" }, { "name": "FAIR_REENTRANT" } ] } },
                  { "name": "randBash", "id": "b", "payload": { "threads": [4], "locks": [ { "name": "VNA" },
                    { "name": "UNFAIR_REENTRANT" } ] } } ] }
                """);
        Path run = dir.resolve("run");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new BenchCommand(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                FAKE, dir.resolve("results")).run(new String[] {"--config", config.toString(), "--out", run.toString()});
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(Main.OK, status, err.toString(StandardCharsets.UTF_8));

        List<String> lines = text.lines().toList();
        int start = lines.size() - 1;
        while (start > 0 && !lines.get(start - 1).isEmpty()) {
            start--;
        }
        List<String> block = lines.subList(start, lines.size());
        assertTrue(block.size() <= 10, "the last block has " + block.size() + " lines:\n" + String.join("\n", block));
        assertTrue(block.getFirst().startsWith("Verdict on the same 2 points for all 5 locks (a x1, 2)"), block.getFirst());
        assertTrue(block.getLast().startsWith("15 points, 0 failed, in "), block.getLast());
        assertTrue(block.contains("Use VNA: 2.00x unfair ReentrantLock on these 2 points (faster at 2, slower at none)."),
                String.join("\n", block));
        assertEquals(Recommendation.read(run).lines(), block.subList(0, block.size() - 1),
                "the console says what the results folder (and so index.html) says");
        assertFalse(text.contains("Overall"), "no line averages different points per lock: " + text);
        assertTrue(block.contains("  VNA            2.00x [2.00, 2.00]  faster at 2, tied at 0, slower at 0 of the 2 points"),
                "the geometric mean with its interval: " + String.join("\n", block));
        assertTrue(block.stream().anyMatch(l -> l.startsWith("A/A control: the reference's twin judged different at 0 of 3 points")
                && l.contains("passed. Precision reached: median ±0.0%, widest ±0.0% (95% intervals of 12 ratios); groups: 3 "
                + "reached the precision.")), "how far to trust it, beside the verdict: " + String.join("\n", block));
        assertTrue(lines.subList(0, start).contains("  a: x1 2.00 [2.00, 2.00] ▲ (UNFAIR_REENTRANT), x2 2.00 [2.00, 2.00] ▲ "
                + "(UNFAIR_REENTRANT); geometric mean 2.00, lowest 2.00 at x1"), "VNA against the best other lock, a line per bench, above the "
                + "last block: " + text);

        MainTest.Result plot = MainTest.main("plot", run.toString());
        assertEquals(Main.OK, plot.status(), plot.err());
        assertEquals(String.join("\n", block.subList(0, block.size() - 1)) + "\nReport: " + run.resolve("index.html"),
                String.join("\n", plot.out().lines().toList()), "./numaloom plot prints the same verdict");
    }
}
