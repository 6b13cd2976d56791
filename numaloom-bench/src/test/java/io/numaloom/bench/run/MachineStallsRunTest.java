package io.numaloom.bench.run;

import io.numaloom.bench.Point;
import io.numaloom.bench.report.MachineInfo;
import io.numaloom.bench.result.MachineStalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where the run shows the machine's own stalls (the probe itself: {@code result.MachineStallsTest}). */
class MachineStallsRunTest {

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
