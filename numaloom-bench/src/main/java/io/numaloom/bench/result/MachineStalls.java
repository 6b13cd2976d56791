package io.numaloom.bench.result;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How long the machine itself takes a CPU away from a running thread: one platform thread per CPU reads the
 * clock in a loop, with no lock and nothing shared, and records every gap between two consecutive readings that
 * is longer than {@link #STALL_NANOS}. Such a gap is time the thread did not run: the operating system gave its
 * CPU to something else (a kernel thread, an interrupt, another process) or the hypervisor gave the virtual CPU
 * to another guest.
 *
 * <p>This puts a floor under every worst-case figure of a run: an acquire wait can only be told apart from the
 * machine's own stalls if it is longer than they are. On the 2-CPU virtual machine this bench was developed on,
 * {@code perf sched} showed the kernel's DAMON memory monitor ({@code kdamond}), a virtio worker and the JIT's
 * compiler threads taking a CPU for 2-8 ms at a time; a thread that loses its CPU that way usually gets it back
 * at a scheduler tick (4 ms there). A thread that merely spins was off its CPU for up to 7-10 ms every few
 * seconds, and the worst acquire waits of {@code VnaLock} and {@code ReentrantLock} over 30 rounds of one point
 * ranged from under 1 ms to 26 ms from run to run.
 *
 * @param threads     spinning threads, one per available CPU
 * @param seconds     how long they spun
 * @param stalls      gaps longer than {@link #STALL_NANOS}, over all threads
 * @param longestNs   the longest gap any thread saw
 */
public record MachineStalls(int threads, double seconds, long stalls, long longestNs) {

    /** A gap between two clock readings longer than this is a stall: 1 ms. */
    public static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** How long the bench probes before its first point. */
    public static final Duration PROBE = Duration.ofSeconds(2);

    /** Spins {@code threads} platform threads for {@code duration} and collects their stalls. */
    public static MachineStalls measure(int threads, Duration duration) throws InterruptedException {
        long nanos = duration.toNanos();
        long[][] seen = new long[threads][];
        Thread[] spinners = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            int index = i;
            spinners[i] = Thread.ofPlatform().name("numaloom-stall-probe-" + i).daemon()
                    .start(() -> seen[index] = spin(nanos, System::nanoTime));
        }
        long stalls = 0;
        long longest = 0;
        for (int i = 0; i < threads; i++) {
            spinners[i].join();
            stalls += seen[i][0];
            longest = Math.max(longest, seen[i][1]);
        }
        return new MachineStalls(threads, nanos / 1e9, stalls, longest);
    }

    /**
     * Reads {@code clock} until {@code durationNanos} have passed since the first reading; returns the number of
     * gaps longer than {@link #STALL_NANOS} and the longest gap.
     */
    static long[] spin(long durationNanos, LongSupplier clock) {
        long start = clock.getAsLong();
        long last = start;
        long stalls = 0;
        long longest = 0;
        while (last - start < durationNanos) {
            long now = clock.getAsLong();
            long gap = now - last;
            if (gap > STALL_NANOS) {
                stalls++;
            }
            longest = Math.max(longest, gap);
            last = now;
        }
        return new long[] {stalls, longest};
    }

    /** "2 spinning threads for 2 s: 23 stalls over 1 ms, the longest 7.5 ms". */
    public String describe() {
        return String.format(Locale.ROOT, "%d spinning thread%s for %.0f s: %d stall%s over %d ms, the longest %.1f ms",
                threads, threads == 1 ? "" : "s", seconds, stalls, stalls == 1 ? "" : "s",
                TimeUnit.NANOSECONDS.toMillis(STALL_NANOS), longestNs / 1e6);
    }
}
