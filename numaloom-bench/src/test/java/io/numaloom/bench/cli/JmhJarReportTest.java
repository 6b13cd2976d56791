package io.numaloom.bench.cli;

import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PairedRatio.Estimate;
import io.numaloom.bench.result.PairedRatio.Verdict;
import io.numaloom.bench.run.BenchRunner;
import io.numaloom.bench.run.JmhJarRun.Key;
import io.numaloom.bench.run.JmhRounds;
import io.numaloom.bench.run.JmhRounds.Comparison;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The JMH route's last block (each alternative over every comparison, the precision) and its page. */
class JmhJarReportTest {
    static final JmhRounds ROUNDS = new JmhRounds(List.of("RL", "VNA", "SYNC"), true,
            new BenchRunner.Method(Double.NaN, BenchRunner.Method.DEFAULT_PILOT, 8, null, 1));

    static Estimate est(double ratio, double low, double high) {
        Verdict v = low > 1 ? Verdict.FASTER : high < 1 ? Verdict.SLOWER : Verdict.TIED;
        return new Estimate(8, ratio, low, high, v, 7);
    }

    static Map<String, Estimate> estimates(Estimate vna, Estimate sync, Estimate twin) {
        Map<String, Estimate> m = new LinkedHashMap<>();
        if (vna != null) {
            m.put("VNA", vna);
        }
        m.put("SYNC", sync);
        m.put("RL_TWIN", twin);
        return m;
    }

    /** Two benchmarks: VNA faster at one and tied at the other; SYNC slower at both; the second has VNA failed. */
    static JmhRounds.Result result(int twinsDifferent) {
        Comparison a = new Comparison(new Key("com.acme.B.get", "thrpt", Map.of()), "ops/us", 8, "fixed",
                estimates(est(1.20, 1.10, 1.30), est(0.50, 0.45, 0.55), est(1.00, 0.97, 1.03)), Map.of());
        Comparison b = new Comparison(new Key("com.acme.B.put", "avgt", Map.of("size", "<10>")), "ns/op", 8, "fixed",
                estimates(est(1.02, 0.95, 1.09), est(0.80, 0.70, 0.90), est(1.01, 0.98, 1.04)), Map.of());
        Comparison c = new Comparison(new Key("com.acme.B.scan", "thrpt", Map.of()), "ops/us", 8, "failed",
                estimates(null, est(0.90, 0.85, 0.95), est(0.99, 0.96, 1.02)), Map.of("VNA", "VNA: no score for <scan> in round 3"));
        return new JmhRounds.Result(List.of(a, b, c), Map.of(), PairedRatio.aaControl(3, twinsDifferent), 8, false);
    }

    @Test
    void eachAlternativeGetsItsGeometricMeanAndItsVerdictCountsButTheTwinDoesNot() {
        List<JmhJarReport.Overall> overall = JmhJarReport.overall(ROUNDS, result(0));
        assertEquals(List.of("VNA", "SYNC"), overall.stream().map(JmhJarReport.Overall::name).toList());
        JmhJarReport.Overall vna = overall.getFirst();
        assertEquals(1, vna.faster());
        assertEquals(1, vna.tied());
        assertEquals(0, vna.slower());
        assertEquals(1, vna.failed());
        assertEquals(Math.sqrt(1.20 * 1.02), vna.mean().ratio(), 1e-9);
        assertEquals(PairedRatio.geometricMean(List.of(est(1.20, 1.10, 1.30), est(1.02, 0.95, 1.09))), vna.mean());
        assertTrue(vna.text().startsWith("VNA: 1.11x ["), vna.text());
        assertTrue(vna.text().endsWith("in geometric mean over 2 comparisons; faster at 1, slower at 0, tied at 1; failed at 1"),
                vna.text());
        assertEquals(3, overall.get(1).slower(), overall.get(1).text());
    }

    @Test
    void theConsoleSaysHowPreciseTheRatiosAreAndHowTheComparisonsStopped() {
        String text = JmhJarReport.text(ROUNDS, result(0), "lock");
        assertTrue(text.contains("\nVNA: 1.11x ["), text);
        assertTrue(text.contains("\nSYNC: "), text);
        assertFalse(text.contains("\nRL_TWIN: "), "the twin has the A/A line, not a verdict line: " + text);
        // 8 ratios with an interval; the median half-width is that of the 4th and 5th
        assertTrue(text.contains("\nPrecision reached: median ±"), text);
        assertTrue(text.contains("(95% intervals of 8 ratios); comparisons: 2 ran fixed rounds, 1 stopped (failed)"), text);
    }

    @Test
    void thePageShowsEveryRatioWithItsIntervalAndPlotsEachOne(@TempDir Path dir) throws Exception {
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("jar", "/x/benchmarks.jar");
        run.put("seed", 1L);
        run.put("started", "2026-12-06T18:00:00Z");
        try (JmhJarReport report = new JmhJarReport(dir)) {
            report.html(ROUNDS, result(0), run, "lock");
        }
        String html = Files.readString(dir.resolve(JmhJarReport.HTML_FILE));
        assertTrue(html.contains("<td class=\"faster\">1.20 [1.10, 1.30] ▲</td>"), html);
        assertTrue(html.contains("<td>1.02 [0.95, 1.09]</td>"), html);
        assertTrue(html.contains("<td class=\"slower\">0.50 [0.45, 0.55] ▼</td>"), html);
        assertTrue(html.contains("<th>RL_TWIN (A/A control)</th>"), html);
        assertTrue(html.contains("com.acme.B.put (avgt, size=&lt;10&gt;)"), "labels are escaped: " + html);
        assertTrue(html.contains("VNA: no score for &lt;scan&gt; in round 3"), "the failure, escaped, in its cell: " + html);
        assertTrue(html.contains(", not finished"), html);
        assertFalse(html.contains("class=\"warn\""), "the A/A control passed: " + html);
        Matcher circles = Pattern.compile("<circle ").matcher(html);
        int n = 0;
        while (circles.find()) {
            n++;
        }
        assertEquals(8, n, "one dot per ratio (3 + 3 + 2, the failed one has none)");
        assertTrue(html.contains("<svg "), html);
    }

    @Test
    void aTwinJudgedDifferentTooOftenIsAWarningOnThePage() {
        String html = JmhJarHtml.render(ROUNDS, result(3), Map.of("jar", "j", "seed", 1, "started", "s", "finished", "f"), "lock");
        assertTrue(html.contains("<p class=\"warn\">⚠ A/A control: the reference&#39;s twin judged different at 3 of 3"), html);
        assertTrue(html.contains("a longer budget (--budget)"), html);
    }

    @Test
    void thePlotsAxisCoversEveryIntervalAndMarksOne() {
        List<JmhJarHtml.Row> rows = JmhJarHtml.rows(ROUNDS, result(0));
        assertEquals(8, rows.size());
        StringBuilder h = new StringBuilder();
        JmhJarHtml.plot(h, ROUNDS, result(0));
        assertTrue(h.toString().contains(">1</text>"), "1 is on the axis: " + h);
        assertTrue(h.toString().contains(">0.5</text>"), "0.45 (SYNC's lowest) is inside the axis, so 0.5 is marked: " + h);
        assertEquals(JmhJarHtml.LABEL_WIDTH / 7, JmhJarHtml.shorten("x".repeat(200)).length(), "labels are cut to the label column");
    }
}
