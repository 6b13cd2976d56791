package io.numaloom.bench.result;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe of the machine's own stalls ({@code MachineStallsRunTest}: where the run shows it). */
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
}
