package io.numaloom.bench;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.run.BenchRunner;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gaps between critical sections (the bench's {@code handoffTiming} setting): counted per region by the holders,
 * summed over rounds and forks, and reported per point as owner changes per operation and mean gaps.
 */
class SectionGapsTest {

    @Test
    void aRegionCountsAGapPerAcquisitionButTheFirstAndAnOwnerChangeWhenTheHolderDiffers() {
        GuardedRegion region = new GuardedRegion(new LockMutex("UNFAIR_REENTRANT", new ReentrantLock()), 0);
        Object a = new Object();
        Object b = new Object();
        region.entered(a);
        region.left();
        assertEquals(SectionGaps.NONE, region.sectionGaps(), "the first acquisition has no gap before it");
        region.entered(a);
        region.left();
        region.entered(b);
        region.left();
        region.entered(b);
        region.left();
        region.entered(a);
        SectionGaps gaps = region.sectionGaps();
        assertEquals(4, gaps.gaps());
        assertEquals(2, gaps.ownerChanges(), "a -> a, a -> b, b -> b, b -> a: two changes");
        assertTrue(gaps.handoffGapNs() >= 0 && gaps.handoffGapNs() <= gaps.gapNs(), gaps.toString());
    }

    @Test
    void countedGapsHaveOwnerChangesButNoTimes() {
        GuardedRegion region = new GuardedRegion(new LockMutex("UNFAIR_REENTRANT", new ReentrantLock()), 0);
        Object a = new Object();
        Object b = new Object();
        for (Object holder : new Object[] {a, a, b, b, b, a}) {
            region.counted(holder);
        }
        assertEquals(5, region.gaps, "a gap per acquisition but the first");
        assertEquals(2, region.ownerChanges, "a -> a -> b -> b -> b -> a: two changes");
        SectionGaps counted = SectionGaps.counted(5, 2);
        assertFalse(counted.timed());
        assertEquals(0.4, counted.ownerChangesPerOp(), 1e-12);
        assertNull(counted.meanGapNs(), "no clock was read");
        assertNull(counted.meanHandoffGapNs());
        assertNull(counted.meanReacquireGapNs());
        assertEquals(SectionGaps.counted(8, 3), counted.plus(SectionGaps.counted(3, 1)));
        assertEquals(counted, SectionGaps.NONE.plus(counted), "no gaps add nothing");
        assertFalse(counted.plus(new SectionGaps(3, 300, 1, 100)).timed(), "a sum with counted parts is not timed");
        assertTrue(new SectionGaps(3, 300, 1, 100).plus(SectionGaps.NONE).timed());
    }

    @Test
    void meansAreOverTheGapsAndBlankWhereNothingWasMeasured() {
        SectionGaps gaps = new SectionGaps(10, 2_000, 4, 1_200);
        assertEquals(0.4, gaps.ownerChangesPerOp(), 1e-12);
        assertEquals(200.0, gaps.meanGapNs(), 1e-12);
        assertEquals(300.0, gaps.meanHandoffGapNs(), 1e-12);
        assertEquals(800.0 / 6, gaps.meanReacquireGapNs(), 1e-12);
        assertNull(SectionGaps.NONE.ownerChangesPerOp());
        assertNull(SectionGaps.NONE.meanGapNs());
        assertNull(new SectionGaps(3, 300, 0, 0).meanHandoffGapNs(), "the lock never changed thread");
        assertNull(new SectionGaps(3, 300, 3, 300).meanReacquireGapNs(), "it changed thread every time");
        assertEquals(new SectionGaps(13, 2_300, 7, 1_500), gaps.plus(new SectionGaps(3, 300, 3, 300)));
    }

    @Test
    void thePointSumsTheForksGapsAndLeavesTheColumnsBlankWithoutThem() throws Exception {
        Point point = BenchRunner.points(config(true)).getFirst();
        Instant started = Instant.parse("2026-11-27T22:00:00Z");
        PointResult timed = PointResult.measured(point, List.of(List.of(1.0), List.of(1.0)),
                List.of(report(new SectionGaps(100, 20_000, 10, 5_000)), report(new SectionGaps(300, 40_000, 30, 15_000))),
                started, 1);
        assertEquals(40.0 / 400, timed.ownerChangesPerOp(), 1e-12);
        assertEquals(60_000.0 / 400, timed.gapNs(), 1e-9);
        assertEquals(20_000.0 / 40, timed.handoffGapNs(), 1e-9);
        assertEquals(40_000.0 / 360, timed.reacquireGapNs(), 1e-9);
        PointResult untimed = PointResult.measured(point, List.of(List.of(1.0)), List.of(report(null)), started, 1);
        assertNull(untimed.ownerChangesPerOp());
        assertNull(untimed.gapNs());
        assertNull(untimed.handoffGapNs());
        assertNull(untimed.reacquireGapNs());
        assertTrue(PointResult.CSV_HEADER.containsAll(List.of("ownerChangesPerOp", "gapNs", "handoffGapNs", "reacquireGapNs")));
        assertEquals(PointResult.CSV_HEADER.size(), timed.csvCells().size());
        assertEquals(timed.gapNs(), timed.withSession(2).gapNs(), "a resumed run keeps the columns");
    }

    @Test
    void theCountingSettingSetsItsOwnPropertyAndChangesTheFingerprint() throws Exception {
        BenchConfig counted = ConfigReader.parse("""
                { "defaults": { "ownerChanges": true }, "benches": [ { "name": "randBash",
                  "payload": { "locks": [ { "name": "VNA" } ] } } ] }""", "t.json", 2, Mutex.names());
        List<String> args = counted.benches().getFirst().measuredJvmArgs();
        assertTrue(args.contains("-D" + GuardedRegion.COUNT_PROPERTY + "=true"), args.toString());
        assertFalse(args.stream().anyMatch(a -> a.contains(GuardedRegion.TIMING_PROPERTY)), args.toString());
        assertNotEquals(config(false).benches().getFirst().fingerprint(), counted.benches().getFirst().fingerprint());
    }

    @Test
    void theSettingTurnsTheTimingOnInTheMeasuredJvmAndChangesTheFingerprint() throws Exception {
        BenchConfig on = config(true);
        BenchConfig off = config(false);
        assertTrue(on.benches().getFirst().measuredJvmArgs().contains("-D" + GuardedRegion.TIMING_PROPERTY + "=true"));
        assertFalse(off.benches().getFirst().measuredJvmArgs().stream().anyMatch(a -> a.contains(GuardedRegion.TIMING_PROPERTY)));
        assertNotEquals(on.benches().getFirst().fingerprint(), off.benches().getFirst().fingerprint(),
                "timing changes what is measured, so it changes the fingerprint");
    }

    private static BenchConfig config(boolean timed) throws Exception {
        return ConfigReader.parse("""
                { "defaults": { "handoffTiming": %s }, "benches": [ { "name": "randBash",
                  "payload": { "locks": [ { "name": "VNA" } ] } } ] }""".formatted(timed), "t.json", 2, Mutex.names());
    }

    private static ForkReport report(SectionGaps gaps) {
        return new ForkReport(1, 1000, List.of(1.0), List.of(1.0), null, 100, 100, "p", "c", "2 cpus, 1 nodes; sysfs", null,
                null, null, null, null, null, null, null, null, null, gaps);
    }
}
