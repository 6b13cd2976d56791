package io.numaloom.bench.workloads;

import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * False sharing, after the talk on NUMA and cache-line contention: every thread makes read-modify-writes
 * on a counter of its own, and nothing is shared but the cache lines the counters sit on. The bench's
 * "locks" are the counters' layouts:
 * <ul>
 * <li>{@code PACKED}: counters 8 bytes apart, up to eight per 64-byte cache line, so every write of one
 *     thread invalidates the line in the caches of the others;</li>
 * <li>{@code PADDED_64}: 64 bytes apart, one per cache line; on CPUs whose prefetcher fetches lines in
 *     pairs (adjacent-line prefetch, many Intel cores), two neighbours still share a 128-byte pair;</li>
 * <li>{@code PADDED_128}: 128 bytes apart, one per pair of lines: no sharing at all.</li>
 * </ul>
 * No lock is taken. {@code access} chooses the read-modify-write: {@code atomic} (an atomic add, as a
 * counter shared by design would use) or {@code opaque} (a load and a store the JIT must perform, as a
 * plain field of an object each thread owns). The result is checked: every counter holds its thread's
 * share.
 */
public final class FalseSharing implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 10_000_000L, "read-modify-writes in total, split evenly over the threads"),
            Field.choiceField("access", "atomic", List.of("atomic", "opaque"),
                    "atomic: an atomic add; opaque: a load and a store the JIT cannot drop"));

    /** The layouts, in the order a report lists them, with the distance between counters in bytes. */
    static final Map<String, Integer> LAYOUTS = layouts();

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Operations a worker counts at once: counting each would add a store to what is measured. */
    private static final int BATCH = 1024;

    private final long actions;
    private final boolean atomic;

    public FalseSharing(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.atomic = settings.getString("access").equals("atomic");
    }

    private static Map<String, Integer> layouts() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("PACKED", 8);
        m.put("PADDED_64", 64);
        m.put("PADDED_128", 128);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** The layout names, which a {@code falseSharing} bench lists as its locks. */
    public static List<String> layoutNames() {
        return List.copyOf(LAYOUTS.keySet());
    }

    public static boolean isLayout(String name) {
        return LAYOUTS.containsKey(name);
    }

    @Override
    public Round newRound(RoundContext context) {
        Integer stride = LAYOUTS.get(context.lockName());
        if (stride == null) {
            throw new IllegalArgumentException("falseSharing measures the layouts " + layoutNames() + ", not "
                    + context.lockName());
        }
        int step = stride / Long.BYTES;
        // 128 bytes before the first counter and after the last, so that nothing else shares their lines.
        int first = 128 / Long.BYTES;
        long[] counters = new long[first + step * context.threads() + first];
        long[] shares = new long[context.threads()];
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                int slot = first + step * worker.index();
                long n = worker.share(actions);
                shares[worker.index()] = n;
                while (n > 0) {
                    int batch = (int) Math.min(n, BATCH);
                    if (atomic) {
                        for (int i = 0; i < batch; i++) {
                            LONGS.getAndAdd(counters, slot, 1L);
                        }
                    } else {
                        for (int i = 0; i < batch; i++) {
                            LONGS.setOpaque(counters, slot, (long) LONGS.getOpaque(counters, slot) + 1L);
                        }
                    }
                    worker.completed(batch);
                    n -= batch;
                }
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public void verify() {
                for (int t = 0; t < shares.length; t++) {
                    long c = (long) LONGS.getVolatile(counters, first + step * t);
                    if (c != shares[t]) {
                        throw new IllegalStateException("falseSharing: thread " + t + "'s counter is " + c
                                + ", expected " + shares[t] + ": the layout " + context.lockName() + " overlaps counters");
                    }
                }
            }
        };
    }
}
