package io.numaloom.bench.result;

import io.numaloom.bench.Point;
import io.numaloom.bench.run.BenchRunner;
import io.numaloom.bench.run.ResumeTest;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a point's row is computed from what its forks brought back. */
class PointResultTest {

    private static final Instant STARTED = Instant.parse("2026-11-23T12:00:00Z");

    /** A point whose second JVM ran in a slower mode: the rounds agree within each JVM, the JVMs do not. */
    @Test
    void theThroughputIntervalCountsForksNotRounds() throws Exception {
        Point point = BenchRunner.points(ResumeTest.config()).getFirst();
        List<List<Double>> times = List.of(List.of(10.0, 10.1, 9.9), List.of(16.0, 16.2, 15.8), List.of(10.0, 9.9, 10.1));
        PointResult row = PointResult.measured(point, times, List.of(report(), report(), report()), STARTED, 1);

        List<double[]> throughputs = times.stream()
                .map(f -> f.stream().mapToDouble(t -> 1000 / t).toArray()).toList();
        Stats.Summary expected = Stats.summarizeForks(throughputs);
        assertEquals(9, row.rounds());
        assertEquals(expected.mean(), row.opsPerMs(), 1e-9);
        assertEquals(expected.ciLow(), row.opsPerMsCiLow(), 1e-9);
        assertEquals(expected.ciHigh(), row.opsPerMsCiHigh(), 1e-9);
        double roundsHalfWidth = Stats.summarize(throughputs.stream().flatMapToDouble(java.util.Arrays::stream).toArray())
                .halfWidth();
        assertTrue(row.opsPerMsCiHigh() - row.opsPerMs() > 1.5 * roundsHalfWidth,
                "over the rounds the interval would be +-" + roundsHalfWidth + ", over the forks it is "
                        + row.opsPerMsCiLow() + ".." + row.opsPerMsCiHigh());
        Stats.Summary time = Stats.summarizeForks(times.stream()
                .map(f -> f.stream().mapToDouble(Double::doubleValue).toArray()).toList());
        assertEquals(time.ciLow(), row.timeMsCiLow(), 1e-9);
        assertEquals(time.ciHigh(), row.timeMsCiHigh(), 1e-9);
    }

    @Test
    void withOneForkTheIntervalIsOverItsRounds() throws Exception {
        Point point = BenchRunner.points(ResumeTest.config()).getFirst();
        PointResult row = PointResult.measured(point, List.of(List.of(10.0, 11.0, 12.0)), List.of(report()), STARTED, 1);
        Stats.Summary expected = Stats.summarize(new double[] {1000 / 10.0, 1000 / 11.0, 1000 / 12.0});
        assertEquals(expected.ciLow(), row.opsPerMsCiLow(), 1e-9);
        assertEquals(expected.ciHigh(), row.opsPerMsCiHigh(), 1e-9);
    }

    /** The paired system's times of every fork are pooled into one p99, apart from the point's own latencies. */
    @Test
    void thePairedP99PoolsTheForksPairedTimes() throws Exception {
        Point point = BenchRunner.points(ResumeTest.config()).getFirst();
        org.HdrHistogram.Histogram own = new org.HdrHistogram.Histogram(2);
        org.HdrHistogram.Histogram fast = new org.HdrHistogram.Histogram(2);
        org.HdrHistogram.Histogram slow = new org.HdrHistogram.Histogram(2);
        for (int i = 0; i < 1000; i++) {
            own.recordValue(1_000);
            fast.recordValue(2_000);
            slow.recordValue(i < 970 ? 2_000 : 50_000);
        }
        ForkReport first = paired(own, fast);
        ForkReport second = paired(own, slow);
        PointResult row = PointResult.measured(point, List.of(List.of(10.0), List.of(10.0)), List.of(first, second), STARTED, 1);
        // 2000 paired times, 30 of them 50 µs: the 99th percentile is 50 µs (HdrHistogram's equivalent value).
        assertEquals(slow.highestEquivalentValue(50_000), row.pairedP99Ns());
        assertEquals(own.highestEquivalentValue(1_000), row.latencyP99Ns());
        assertTrue(PointResult.CSV_HEADER.contains("pairedP99Ns"));
        assertEquals(PointResult.CSV_HEADER.size(), row.csvCells().size());
        assertEquals(null, PointResult.measured(point, List.of(List.of(10.0)), List.of(report()), STARTED, 1).pairedP99Ns(),
                "no paired system, no column value");
    }

    /** Each round's fork report gives that round's longest and 99.9th-percentile wait, at the rounds it ran. */
    @Test
    void eachRoundsWaitsComeFromItsForkAndAMissingRoundStaysEmpty() throws Exception {
        ForkReport a = withWaits(1_000, 80_000);
        ForkReport b = withWaits(2_000, 3_000_000);
        PointResult.RoundWaits w = PointResult.roundWaits(List.of(a, b), new double[] {10, Double.NaN, 12});
        assertEquals(3, w.maxNs().size());
        assertEquals(ForkReport.decode(a.latency()).getMaxValue(), w.maxNs().get(0));
        assertEquals(null, w.maxNs().get(1), "the round the lock did not run");
        assertEquals(ForkReport.decode(b.latency()).getMaxValue(), w.maxNs().get(2));
        assertTrue(w.maxNs().get(2) >= 3_000_000 && w.p999Ns().get(2) < 3_000_000, w.toString());
        assertEquals(null, PointResult.roundWaits(List.of(a), new double[] {10, 12}), "reports and rounds do not match");
        assertEquals(null, PointResult.roundWaits(List.of(report()), new double[] {10}), "no latency recorded");

        Point point = BenchRunner.points(ResumeTest.config()).getFirst();
        PointResult row = PointResult.measured(point, List.of(List.of(10.0)), List.of(a), STARTED, 1)
                .withRounds(java.util.Arrays.asList(100.0, null, 83.3), "budget", 4)
                .withRoundLatencies(w.maxNs(), w.p999Ns());
        List<Object> cells = row.csvCells();
        assertEquals(PointResult.CSV_HEADER.size(), cells.size());
        String max = (String) cells.get(PointResult.CSV_HEADER.indexOf("roundLatencyMaxNs"));
        assertEquals(3, max.split(";", -1).length, max);
        assertTrue(max.split(";", -1)[1].isEmpty(), max);
        assertEquals(w.maxNs().get(0).doubleValue(), row.roundWaitSeries(true)[0]);
        assertTrue(Double.isNaN(row.roundWaitSeries(false)[1]));
    }

    /** A report whose histogram holds 999 waits of {@code typical} ns and one of {@code longest}. */
    private static ForkReport withWaits(long typical, long longest) {
        org.HdrHistogram.Histogram h = new org.HdrHistogram.Histogram(2);
        for (int i = 0; i < 999; i++) {
            h.recordValue(typical);
        }
        h.recordValue(longest);
        return new ForkReport(1, 1000, List.of(1.0), List.of(1.0), ForkReport.encode(h), 0, 0, "p", "c",
                "2 cpus, 1 nodes; test", null, null, null, null, null, null, null, null);
    }

    private static ForkReport paired(org.HdrHistogram.Histogram own, org.HdrHistogram.Histogram paired) {
        return new ForkReport(1, 1000, List.of(1.0), List.of(1.0), ForkReport.encode(own), 0, 0, "p", "c",
                "2 cpus, 1 nodes; test", null, null, null, null, null, null, null, ForkReport.encode(paired));
    }

    private static ForkReport report() {
        return new ForkReport(1, 1000, List.of(1.0), List.of(1.0), null, 0, 0, "p", "c", "2 cpus, 1 nodes; test", null,
                null, null, null);
    }
}
