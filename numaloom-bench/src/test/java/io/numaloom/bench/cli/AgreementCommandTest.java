package io.numaloom.bench.cli;

import io.numaloom.bench.report.RunsAgreement;
import io.numaloom.bench.report.Summary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ./numaloom agreement} and {@link RunsAgreement} on two runs' summaries written here, whose counts are known. */
class AgreementCommandTest {
    private static final String HEADER = "bench,lock,threads,opsPerMs,baselineOpsPerMs,ratio,verdict,worstWaitRatio,"
            + "session,baselineSession,comparison,reference,ratioLow,ratioHigh\n";

    private static String row(String bench, String lock, int threads, double ratio, String verdict, double low, double high) {
        return String.format(java.util.Locale.ROOT, "%s,%s,%d,100,100,%.4f,%s,,1,1,baseline,UNFAIR_REENTRANT,%.4f,%.4f%n",
                bench, lock, threads, ratio, verdict, low, high);
    }

    private static Path run(Path dir, String name, String rows) throws IOException {
        Path d = Files.createDirectories(dir.resolve(name));
        Files.writeString(d.resolve(Summary.FILE), HEADER + rows
                // rows that are not baseline comparisons, or means, are not counted
                + "b,VNA,geomean,,,1.1000,,,,,baseline,UNFAIR_REENTRANT,,\n"
                + "b,VNA,2,100,100,1.5000,faster,,1,1,best-other,SYNCHRONIZED,1.4000,1.6000\n");
        return d;
    }

    @Test
    void countsTheTwinsVerdictsEachLocksAgreementThePrecisionAndThePower(@TempDir Path dir) throws IOException {
        Path a = run(dir, "a", row("b", "VNA", 2, 1.17, "faster", 1.10, 1.25)
                + row("b", "VNA", 8, 1.02, "tied", 0.98, 1.06)
                + row("b", "FAIR_REENTRANT", 8, 0.03, "slower", 0.025, 0.035)
                + row("b", "UNFAIR_REENTRANT_TWIN", 2, 1.13, "faster", 1.01, 1.27)
                + row("b", "UNFAIR_REENTRANT_TWIN", 8, 0.99, "tied", 0.95, 1.03));
        Path b = run(dir, "b", row("b", "VNA", 2, 1.04, "tied", 0.97, 1.11)
                + row("b", "VNA", 8, 1.01, "tied", 0.97, 1.05)
                + row("b", "FAIR_REENTRANT", 8, 0.15, "slower", 0.07, 0.28)
                + row("b", "UNFAIR_REENTRANT_TWIN", 2, 1.00, "tied", 0.96, 1.04)
                + row("b", "UNFAIR_REENTRANT_TWIN", 8, 0.95, "tied", 0.90, 1.00));
        RunsAgreement r = RunsAgreement.read(List.of(a, b));

        RunsAgreement.AaCount aa = r.aa();
        assertEquals(new RunsAgreement.AaCount(4, 1, 3), aa, "1.13 is outside 0.9-1.1");

        List<RunsAgreement.LockAgreement> rep = r.repeatability();
        assertEquals(List.of("VNA", "FAIR_REENTRANT"), rep.stream().map(RunsAgreement.LockAgreement::lock).toList());
        assertEquals(2, rep.getFirst().points());
        assertEquals(1, rep.getFirst().agreeing(), "x2 faster in one run, tied in the other");
        assertTrue(rep.getFirst().disagreements().getFirst().startsWith("b x2: faster 1.170x [1.100, 1.250] / tied"),
                rep.getFirst().disagreements().toString());
        assertEquals(1, rep.get(1).agreeing());

        RunsAgreement.Precision pa = r.precision().getFirst();
        assertEquals(5, pa.intervals());
        // Half-widths sqrt(high/low) - 1 of run a: VNA x2 6.6%, VNA x8 4.0%, fair 18.3%, twin x2 12.1%, twin x8 4.1%.
        assertEquals(Math.sqrt(1.25 / 1.10) - 1, pa.median(), 1e-9);
        assertEquals(Math.sqrt(0.035 / 0.025) - 1, pa.widest(), 1e-9);

        assertEquals(List.of("FAIR_REENTRANT at b x8"), r.decidedInEveryRun("slower"));
        assertEquals(List.of(), r.decidedInEveryRun("faster"));

        String text = r.text();
        assertTrue(text.contains("the twin judged different at 1 of 4 (point, run) pairs (25.0%; bar: 5% or less)"), text);
        assertTrue(text.contains("its ratio within 0.9-1.1 at 3 (75%; bar: 90% or more)"), text);
        assertTrue(text.contains("all                  2 of 3 (67%; bar: 90% or more)"), text);
        assertTrue(text.contains("Slower in every run: FAIR_REENTRANT at b x8"), text);
    }

    /**
     * The agreement an exact method would give: a difference far beyond both intervals agrees nearly surely, one as
     * large as the intervals' half-width is a coin toss, and the sum over the points is printed beside the count.
     */
    @Test
    void theExpectedAgreementFollowsTheDifferenceOverThePrecision(@TempDir Path dir) throws IOException {
        Path a = run(dir, "a", row("b", "VNA", 2, 1.30, "faster", 1.27, 1.33)
                + row("b", "VNA", 8, 1.05, "faster", 1.0001, 1.1025)
                + row("b", "VNA", 32, 1.00, "tied", 0.95, 1.0526));
        Path b = run(dir, "b", row("b", "VNA", 2, 1.30, "faster", 1.27, 1.33)
                + row("b", "VNA", 8, 1.05, "tied", 0.9999, 1.1025)
                + row("b", "VNA", 32, 1.00, "tied", 0.95, 1.0526));
        RunsAgreement r = RunsAgreement.read(List.of(a, b));
        RunsAgreement.LockAgreement vna = r.repeatability().getFirst();
        assertEquals(2, vna.agreeing());
        // x2: 13 standard errors from 1: agrees. x8: the estimate sits on the interval's edge (1.96 se), faster or
        // tied with probability 1/2 each: 1/4 + 1/4. x32: no difference, tied in both with probability 0.95^2.
        double x8 = 0.5;
        double x32 = Math.pow(0.95, 2) + 2 * Math.pow(0.025, 2);
        assertEquals(1 + x8 + x32, vna.expected(), 2e-3);
        assertTrue(r.text().contains("expected             2.4 of 3 (80%)"), r.text());
    }

    @Test
    void aDirectoryWithoutASummaryOrWithAnOldOneIsNamed(@TempDir Path dir) throws IOException {
        Path good = run(dir, "good", row("b", "VNA", 2, 1.0, "tied", 0.9, 1.1));
        Path empty = Files.createDirectories(dir.resolve("empty"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RunsAgreement.read(List.of(good, empty)));
        assertTrue(e.getMessage().contains(empty + " has no summary.csv"), e.getMessage());

        Path old = Files.createDirectories(dir.resolve("old"));
        Files.writeString(old.resolve(Summary.FILE), "bench,lock,threads,opsPerMs,baselineOpsPerMs,ratio,verdict\n");
        e = assertThrows(IllegalArgumentException.class, () -> RunsAgreement.read(List.of(good, old)));
        assertTrue(e.getMessage().contains("has no column comparison"), e.getMessage());

        MainTest.Result one = MainTest.main("agreement", good.toString());
        assertEquals(2, one.status());
        assertTrue(one.err().contains("expected two or more results directories"), one.err());
        MainTest.Result missing = MainTest.main("agreement", good.toString(), dir.resolve("nope").toString());
        assertEquals(2, missing.status());
        assertTrue(missing.err().contains("no such directory"), missing.err());
        MainTest.Result noSummary = MainTest.main("agreement", good.toString(), empty.toString());
        assertEquals(2, noSummary.status());
        assertTrue(noSummary.err().contains("has no summary.csv"), noSummary.err());
        MainTest.Result ok = MainTest.main("agreement", good.toString(), good.toString());
        assertEquals(0, ok.status(), ok.err());
        assertTrue(ok.out().contains("VNA                  1 of 1 points (100%)"), ok.out());
    }
}
