package io.numaloom.bench.cli;

import io.numaloom.bench.Point;
import io.numaloom.bench.report.MachineInfo;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.run.BenchRunner;
import io.numaloom.bench.workloads.WorkloadKind;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The progress of a bench run on the terminal: a line per point with its result, and, on an interactive
 * terminal, a status line rewritten every second with the point in flight, the time spent on it and the
 * estimated time left (the mean time of the points measured so far times the points left).
 *
 * <p>Thread-safety: the runner's callbacks and the ticker synchronize on this object.
 */
final class ConsoleProgress implements BenchRunner.Listener, AutoCloseable {
    private final PrintStream err;
    private final boolean terminal;
    private final ScheduledExecutorService ticker;
    private String current;
    private long currentStart;
    private Duration eta;
    private int statusWidth;
    /** The run's timer floor from its machine.json, read at the start; null if unknown. */
    private Long timerFloorNs;

    ConsoleProgress(PrintStream err) {
        this.err = err;
        this.terminal = err == System.err && System.console() != null && System.console().isTerminal();
        this.ticker = terminal ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "numaloom-progress");
            t.setDaemon(true);
            return t;
        }) : null;
        if (ticker != null) {
            ticker.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
        }
    }

    @Override
    public synchronized void runStarted(Path out, int points, int alreadyDone) {
        timerFloorNs = MachineInfo.timerFloorOf(out); // machine.json is written before the first point
        err.println("numaloom bench: " + points + " points" + (alreadyDone > 0 ? ", " + alreadyDone + " already done" : "")
                + "; results in " + out);
    }

    @Override
    public synchronized void pointStarted(Point point, int ordinal, int points, Duration elapsed, Duration eta) {
        this.current = String.format(Locale.ROOT, "[%" + width(points) + "d/%d] %s", ordinal, points, label(point));
        this.currentStart = System.nanoTime();
        this.eta = eta;
        if (terminal) {
            status();
        } else {
            err.println(current + " ... (elapsed " + format(elapsed) + ", left " + (eta == null ? "?" : "~" + format(eta)) + ")");
        }
    }

    /** The handoff timing's columns (the bench's {@code handoffTiming}, or only the owner changes with its
     * {@code ownerChanges}), or "" without them. */
    private static String betweenSections(PointResult r) {
        if (r.ownerChangesPerOp() == null) {
            return "";
        }
        if (r.gapNs() == null) {
            return String.format(Locale.ROOT, "; between sections: owner changes/op %.4f", r.ownerChangesPerOp());
        }
        return String.format(Locale.ROOT, "; between sections: owner changes/op %.4f, gap %.0f ns%s", r.ownerChangesPerOp(),
                r.gapNs(), r.handoffGapNs() == null ? "" : String.format(Locale.ROOT,
                        " (%.0f ns to another thread, %s ns back to the same one)", r.handoffGapNs(),
                        r.reacquireGapNs() == null ? "-" : String.format(Locale.ROOT, "%.0f", r.reacquireGapNs())));
    }

    @Override
    public synchronized void pointFinished(PointResult r, int ordinal, int points) {
        clearStatus();
        String head = String.format(Locale.ROOT, "[%" + width(points) + "d/%d] %s", ordinal, points,
                r.bench() + " " + r.lock() + " x" + r.threads());
        if (r.ok()) {
            err.printf(Locale.ROOT, "%s: %s ops/ms%s, Jain %.3f%s%s%s (%.1f s)%n", head, num(r.opsPerMs()),
                    r.opsPerMsCiHigh() == null ? "" : String.format(Locale.ROOT, " ±%.1f%%", 100 * (r.opsPerMsCiHigh() - r.opsPerMs()) / r.opsPerMs()),
                    r.jain() == null ? Double.NaN : r.jain(),
                    (r.latencyP99Ns() == null ? "" : String.format(Locale.ROOT, ", %s p99 %s µs", latencyName(r), latency(r.latencyP99Ns())))
                            + (r.futileWakeupsPerOp() == null ? "" : String.format(Locale.ROOT, ", futile wake-ups/op %.3f", r.futileWakeupsPerOp()))
                            + (r.signalToLockP50Ns() == null ? "" : String.format(Locale.ROOT, ", signal-to-lock p50 %s µs p99 %s µs",
                            latency(r.signalToLockP50Ns()), latency(r.signalToLockP99Ns()))),
                    (r.localHandoffFraction() == null ? "" : String.format(Locale.ROOT, ", local handoffs %.0f%%", 100 * r.localHandoffFraction()))
                            + (r.foreignAcquisitionFraction() == null ? "" : String.format(Locale.ROOT,
                            ", acquired off the asking node %.2f%%, migrations/op %.4f", 100 * r.foreignAcquisitionFraction(), r.migrationsPerOp())),
                    (r.parksPerOp() == null ? "" : String.format(Locale.ROOT,
                            ", per op: %.3f slow, %.3f queued, %.3f parks, %.3f wake-ups; %d reservations, %d yields",
                            r.slowPathsPerOp(), r.queuedPerOp(), r.parksPerOp(), r.unparksPerOp(),
                            r.reservations(), r.yields())) + betweenSections(r),
                    r.seconds());
        } else {
            err.printf(Locale.ROOT, "%s: FAILED: %s (%.1f s)%n", head, r.error(), r.seconds());
        }
        current = null;
    }

    @Override
    public synchronized void roundStarted(String group, int round, int planned) {
        notice(group + ": round " + round + (planned > 0 ? " of " + planned : " (pilot)"));
    }

    @Override
    public synchronized void notice(String text) {
        clearStatus();
        err.println("numaloom bench: " + text);
        if (current != null && terminal) {
            status();
        }
    }

    private synchronized void tick() {
        if (current != null) {
            status();
        }
    }

    private void status() {
        Duration inPoint = Duration.ofNanos(System.nanoTime() - currentStart);
        String left = eta == null ? "estimating time left" : "~" + format(eta.minus(inPoint).isNegative() ? Duration.ZERO : eta.minus(inPoint)) + " left";
        String line = current + " · " + format(inPoint) + " · " + left;
        err.print("\r" + line + " ".repeat(Math.max(0, statusWidth - line.length())));
        err.flush();
        statusWidth = line.length();
    }

    private void clearStatus() {
        if (terminal && statusWidth > 0) {
            err.print("\r" + " ".repeat(statusWidth) + "\r");
            statusWidth = 0;
        }
    }

    @Override
    public synchronized void close() {
        clearStatus();
        if (ticker != null) {
            ticker.shutdownNow();
        }
    }

    /** A latency as the report and the text table show it: µs, or {@code ≤ X} at the timer's floor. */
    private String latency(Long ns) {
        return Report.microsOrFloor(ns, timerFloorNs);
    }

    /** What the row's latency columns measure: acquire, put-to-take or response. */
    private static String latencyName(PointResult r) {
        return WorkloadKind.byJsonName(r.workload()).map(WorkloadKind::latencyName).orElse("acquire");
    }

    private static String label(Point p) {
        return p.bench().id() + " · " + p.lock() + " · " + p.threads() + " thread" + (p.threads() == 1 ? "" : "s");
    }

    private static int width(int points) {
        return Integer.toString(points).length();
    }

    private static String num(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.3g", v);
    }

    /** {@code m:ss} or {@code h:mm:ss}. */
    static String format(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
