package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Spin;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;

import java.util.List;

/**
 * Contend, from Dice's Relaxed-Lock paper (JVM '01, §4): every thread loops over a parallel portion and a
 * serial portion of equal length (1.55 µs each in the paper, 24 threads x 100,000 iterations), the serial
 * one under a single global lock. With as many threads as cores the lock is saturated, so the score is how
 * cheaply the lock hands over under heavy contention. The portions are measured by the clock
 * ({@link Spin#nanos(long)}), as the paper states them in time.
 */
public final class Contend implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 240_000L, "loop iterations in total, split evenly over the threads"),
            Field.longField("parallelNs", 0, 1550L, "nanoseconds of work outside the lock per iteration"),
            Field.longField("serialNs", 0, 1550L, "nanoseconds of work inside the lock per iteration"));

    private final long actions;
    private final long parallelNs;
    private final long serialNs;

    public Contend(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.parallelNs = settings.getLong("parallelNs");
        this.serialNs = settings.getLong("serialNs");
    }

    @Override
    public Round newRound(RoundContext context) {
        GuardedRegion region = context.newRegion();
        Runnable serial = () -> Spin.nanos(serialNs);
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                for (long i = worker.share(actions); i > 0; i--) {
                    Spin.nanos(parallelNs);
                    worker.locked(region, serial);
                    worker.completed();
                }
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public List<GuardedRegion> regions() {
                return List.of(region);
            }

            @Override
            public void verify() {
                // The mutual-exclusion check of the region is all there is to check.
            }
        };
    }
}
