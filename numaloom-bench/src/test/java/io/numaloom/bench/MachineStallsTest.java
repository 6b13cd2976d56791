package io.numaloom.bench;

import io.numaloom.bench.report.MachineInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe of the machine's own stalls, and where the run shows it. */
class MachineStallsTest {

    /** A clock that advances 100 ns per reading, except for the jumps planted in it. */
    private static java.util.function.LongSupplier clockWithJumps(long... jumps) {
        AtomicLong now = new AtomicLong();
        AtomicLong reading = new AtomicLong();
        return () -> {
            long i = reading.getAndIncrement();
            long step = i > 0 && i <= jumps.length ? jumps[(int) i - 1] : 100;
            return now.addAndGet(step);
        };
    }

    @Test
    void countsTheGapsOverOneMillisecondAndKeepsTheLongest() {
        long ms = TimeUnit.MILLISECONDS.toNanos(1);
        long[] seen = MachineStalls.spin(100 * ms, clockWithJumps(100, 5 * ms, 100, ms, 2 * ms + 1));
        // 5 ms and 2 ms + 1 ns are stalls; exactly 1 ms is not.
        assertArrayEquals(new long[] {2, 5 * ms}, seen);
        assertArrayEquals(new long[] {0, 100}, MachineStalls.spin(ms, clockWithJumps()), "a steady clock has no stall");
    }

    @Test
    void measuresEveryThreadForTheGivenTime() throws Exception {
        MachineStalls s = MachineStalls.measure(2, Duration.ofMillis(20));
        assertEquals(2, s.threads());
        assertEquals(0.02, s.seconds(), 1e-9);
        assertTrue(s.stalls() >= 0 && s.longestNs() >= 0, s.toString());
        assertEquals("2 spinning threads for 0 s: 3 stalls over 1 ms, the longest 7.5 ms",
                new MachineStalls(2, 0.02, 3, 7_500_000).describe());
    }

    /** The real executor probes; the run says so at its start and keeps it in machine.json and the report. */
    @Test
    void theRunReportsTheStallsItsExecutorMeasured(@TempDir Path out) throws Exception {
        MachineStalls probed = new MachineStalls(2, 2.0, 23, 7_460_000);
        FakeExecutor fake = new FakeExecutor();
        PointExecutor probing = new PointExecutor() {
            @Override
            public Measurement measure(Point point, Path workDir, Path logFile)
                    throws PointFailedException, InterruptedException {
                return fake.measure(point, workDir, logFile);
            }

            @Override
            public MachineStalls probeStalls() {
                return probed;
            }
        };
        List<String> notices = new ArrayList<>();
        new BenchRunner(ResumeTest.config(), out, false, probing, TestListeners.onNotice(notices::add)).run();
        assertEquals(probed, MachineInfo.readFrom(out).stalls());
        assertTrue(notices.stream().anyMatch(n -> n.contains("23 stalls over 1 ms, the longest 7.5 ms")), notices.toString());
        assertTrue(Files.readString(out.resolve("index.html")).contains("Stalls of the machine"));
    }

    @Test
    void aFakeExecutorProbesNothing(@TempDir Path out) throws Exception {
        new BenchRunner(ResumeTest.config(), out, false, new FakeExecutor(), ResumeTest.SILENT).run();
        assertNull(MachineInfo.readFrom(out).stalls());
        assertFalse(Files.readString(out.resolve("index.html")).contains("Stalls of the machine"));
    }
}
