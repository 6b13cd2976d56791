package io.numaloom.bench.run;

import io.numaloom.bench.Point;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.result.MachineStalls;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Measures one point. The real one is {@link JmhPointExecutor}; tests substitute their own. */
public interface PointExecutor {

    /**
     * Measures {@code point}.
     *
     * @param workDir an empty directory for the point's side files
     * @param logFile where the measurement's own log goes
     * @return the measured round times and the forks' side reports
     * @throws PointFailedException if the point could not be measured (the message says why)
     */
    Measurement measure(Point point, Path workDir, Path logFile) throws PointFailedException, InterruptedException;

    /**
     * How much the machine the points run on stalls running threads by itself, measured once before the first
     * point (see {@link MachineStalls}); null where this executor measures nothing real.
     */
    default MachineStalls probeStalls() throws InterruptedException {
        return null;
    }

    /**
     * How long the runner waits, after a point failed, for a stop (Ctrl-C) before it records the failure. A point
     * measured in a child JVM needs a moment: Ctrl-C reaches that JVM too, which can die before this one hears of
     * the stop, and its failure is then the stop, not a result. An executor that measures in this JVM (or fakes its
     * measurements) fails only by itself: zero.
     */
    default Duration stopGrace() {
        return Duration.ZERO;
    }

    /**
     * What a point's measurement brought back.
     *
     * @param forkRoundTimesMs per fork (measured JVM), every measured round's time in milliseconds
     * @param forkReports      the forks' side reports
     */
    record Measurement(List<List<Double>> forkRoundTimesMs, List<ForkReport> forkReports) {}

    /** A point that could not be measured. */
    final class PointFailedException extends Exception {
        private static final long serialVersionUID = 1L;

        public PointFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
