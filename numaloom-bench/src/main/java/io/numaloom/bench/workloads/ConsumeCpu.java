package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;

/**
 * The VNA thesis's micro-workload (ITMO bachelor thesis, 2023, §2.3, Listing 2): {@code actionsCount} critical sections split
 * evenly over the threads; each one burns {@code beforeCpuTokens} outside the lock, yields
 * {@code yieldsBefore} times, takes the one shared lock, burns {@code inCpuTokens} inside, optionally yields
 * inside, and releases. Work is {@link Blackhole#consumeCPU(long)}, which the JIT cannot remove and whose
 * cost is almost linear in the tokens.
 *
 * <p>Contention is set by the ratio of outside to inside work (§2.4): no outside work is high contention
 * (a queue always waits), outside work of at least the number of cores times the inside work is low
 * contention. The yields model a virtual thread being descheduled, in and out of the critical section.
 */
public final class ConsumeCpu implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 64_000L, "critical sections in total, split evenly over the threads"),
            Field.longField("beforeCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens outside the critical section"),
            Field.longField("inCpuTokens", 0, 1000L, "Blackhole.consumeCPU tokens inside the critical section"),
            Field.intField("yieldsBefore", 0, 1, "Thread.yield() calls before each acquisition"),
            Field.boolField("yieldInCrit", true, "whether to Thread.yield() once inside the critical section"));

    private final long actions;
    private final long beforeTokens;
    private final long inTokens;
    private final int yieldsBefore;
    private final boolean yieldInCrit;

    public ConsumeCpu(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.beforeTokens = settings.getLong("beforeCpuTokens");
        this.inTokens = settings.getLong("inCpuTokens");
        this.yieldsBefore = settings.getInt("yieldsBefore");
        this.yieldInCrit = settings.getBoolean("yieldInCrit");
    }

    @Override
    public Round newRound(RoundContext context) {
        GuardedRegion region = context.newRegion();
        Runnable inside = () -> {
            Blackhole.consumeCPU(inTokens);
            if (yieldInCrit) {
                Thread.yield();
            }
        };
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                for (long i = worker.share(actions); i > 0; i--) {
                    Blackhole.consumeCPU(beforeTokens);
                    for (int y = 0; y < yieldsBefore; y++) {
                        Thread.yield();
                    }
                    worker.locked(region, inside);
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
                // The mutual-exclusion check of the regions is all there is to check.
            }
        };
    }
}
