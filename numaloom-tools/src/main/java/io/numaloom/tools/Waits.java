package io.numaloom.tools;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The waits of one lock (or one kind of wait on it): every duration, their total, where in the
 * application threads waited and which threads held the lock meanwhile.
 */
public final class Waits {
    /** Durations in nanoseconds; the first {@link #count} are in use, sorted when {@link #sorted}. */
    private long[] nanos = new long[16];
    private int count;
    private boolean sorted = true;
    private long totalNanos;
    /** Per call site: waits and total wait in ns. */
    private final Map<String, long[]> callSites = new HashMap<>();
    /** Per holder at the start of a wait (its thread's name): the wait it caused in ns. */
    private final Map<String, Long> holderNanos = new HashMap<>();

    Waits() {}

    /** Adds a wait of {@code nanos} (negative counts as 0) at {@code callSite}; {@code holder} may be null (unknown). */
    void add(long nanos, String callSite, String holder) {
        long n = Math.max(0, nanos);
        if (count == this.nanos.length) {
            this.nanos = Arrays.copyOf(this.nanos, count * 2);
        }
        if (count > 0 && n < this.nanos[count - 1]) {
            sorted = false;
        }
        this.nanos[count++] = n;
        totalNanos += n;
        long[] site = callSites.computeIfAbsent(callSite, k -> new long[2]);
        site[0]++;
        site[1] += n;
        if (holder != null) {
            holderNanos.merge(holder, n, Long::sum);
        }
    }

    /** {@return how many waits} */
    public long count() {
        return count;
    }

    /** {@return the total wait in nanoseconds} */
    public long totalNanos() {
        return totalNanos;
    }

    /** {@return the total wait in milliseconds} */
    public double totalMillis() {
        return totalNanos / 1e6;
    }

    /**
     * A wait percentile in milliseconds, by nearest rank: the shortest wait that at least
     * {@code p} percent of the waits do not exceed; 0 without waits.
     */
    public double percentileMillis(double p) {
        if (count == 0) {
            return 0;
        }
        sort();
        int rank = (int) Math.ceil(p / 100 * count);
        return nanos[Math.max(0, Math.min(rank - 1, count - 1))] / 1e6;
    }

    /** {@return the longest wait in milliseconds, 0 without waits} */
    public double maxMillis() {
        return maxNanos() / 1e6;
    }

    long maxNanos() {
        if (count == 0) {
            return 0;
        }
        sort();
        return nanos[count - 1];
    }

    /** Calls {@code each} with every wait's duration in nanoseconds. */
    void forEach(java.util.function.LongConsumer each) {
        for (int i = 0; i < count; i++) {
            each.accept(nanos[i]);
        }
    }

    private void sort() {
        if (!sorted) {
            Arrays.sort(nanos, 0, count);
            sorted = true;
        }
    }

    /** The call sites whose waits took longest: site, number of waits, total wait in ms; longest first. */
    public List<CallSite> topCallSites(int n) {
        return callSites.entrySet().stream()
                .sorted(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed()
                        .thenComparing(Map.Entry::getKey))
                .limit(n)
                .map(e -> new CallSite(e.getKey(), e.getValue()[0], e.getValue()[1] / 1e6))
                .toList();
    }

    /** {@return the call site of the longest total wait, or null without waits} */
    public String topCallSite() {
        List<CallSite> top = topCallSites(1);
        return top.isEmpty() ? null : top.get(0).frame();
    }

    /** The holders that made threads wait longest, with the wait they caused in ms, longest first. */
    public List<Map.Entry<String, Double>> topHolders(int n) {
        return Contention.top(holderNanos, n);
    }

    /** Where threads waited: a frame of the application's code, how many waits and their total. */
    public record CallSite(String frame, long waits, double totalMillis) {}
}
