package io.numaloom.bench.run;

import io.numaloom.bench.Point;
import io.numaloom.bench.result.ForkReport;
import org.HdrHistogram.Histogram;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A point executor for tests: makes up a plausible measurement without starting a JVM, records which points
 * it was asked for, fails the points named in {@code failing}, and "crashes" (throws an error that
 * {@link BenchRunner} does not catch, like a killed process) once it has measured {@code crashAfter} points.
 */
final class FakeExecutor implements PointExecutor {
    final List<String> asked = new ArrayList<>();
    /** The points as the runner handed them over, settings it filled in included. */
    final List<Point> handed = new ArrayList<>();
    private final int crashAfter;
    private final Set<String> failing;

    FakeExecutor(int crashAfter, Set<String> failing) {
        this.crashAfter = crashAfter;
        this.failing = failing;
    }

    FakeExecutor() {
        this(Integer.MAX_VALUE, Set.of());
    }

    /** Thrown to simulate the bench process dying in the middle of a point. */
    static final class Killed extends Error {
        Killed() {
            super("killed");
        }
    }

    @Override
    public Measurement measure(Point point, Path workDir, Path logFile) throws PointFailedException {
        if (asked.size() == crashAfter) {
            throw new Killed();
        }
        asked.add(point.key());
        handed.add(point);
        if (failing.contains(point.key())) {
            throw new PointFailedException("java.lang.UnsupportedOperationException: not yet", null);
        }
        Histogram h = new Histogram(2);
        for (int i = 1; i <= 1000; i++) {
            h.recordValue(i * 10L * point.threads());
        }
        double base = 10.0 * point.threads() + point.lock().length();
        ForkReport report = new ForkReport(42, 10_000, List.of(1.0, 0.9), List.of(1.0, 0.5), ForkReport.encode(h),
                9_999, 5_000, "virtual threads on the JDK scheduler, 2 carriers", "SCHED_GETCPU: test", "2 cpus", null,
                point.lock().startsWith("VNA") ? new io.numaloom.LockDiagnostics.Counts(12_000, 6_000, 3_000, 3_000, 5, 7, 0) : null, 1_000L, null);
        return new Measurement(List.of(List.of(base, base * 1.1, base * 0.9)), List.of(report));
    }
}
