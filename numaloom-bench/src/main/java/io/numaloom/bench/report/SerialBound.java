package io.numaloom.bench.report;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.result.PointResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The serial-bound ratio of each lock in each bench: its throughput at a thread count above 1 over its own throughput at
 * 1 thread of the same bench. A critical section runs one thread at a time, so where the work is all inside the lock
 * the ratio says what contention costs (1 is as fast as one thread alone, below 1 is slower); where there is work
 * outside, the ratio can exceed 1. Marked as everywhere in the report ({@link Summary.Verdict}: ▲ or ▼ only where the
 * ratio's 95% interval excludes 1; the two points ran in different groups, so the interval is unpaired,
 * {@link io.numaloom.bench.result.PairedRatio#unpaired}).
 *
 * <p>A bench that did not measure 1 thread, or a lock whose 1-thread point failed, has no ratio: it is said to have
 * {@value #NO_ONE_THREAD}, and no other point stands in for it. A ratio whose two points were measured in different
 * sessions of a resumed run is shown in parentheses ({@link Summary.Cell#spansSessions()}).
 */
public final class SerialBound {
    /** What a lock without a measured 1-thread point shows instead of its ratios. */
    public static final String NO_ONE_THREAD = "no 1-thread point";

    private SerialBound() {}

    /**
     * A lock's point at a thread count above 1.
     *
     * @param ratio its throughput over the lock's at 1 thread, with the verdict; null where the lock has no 1-thread point
     */
    public record Entry(int threads, double opsPerMs, int session, Summary.Cell ratio) {}

    /**
     * One lock of a bench.
     *
     * @param oneThreadOpsPerMs its throughput at 1 thread; null where it has no such point
     * @param entries           its measured points above 1 thread, in the order of the bench's thread counts
     */
    public record LockLine(String lock, Double oneThreadOpsPerMs, List<Entry> entries) {
        /** Whether the lock has a measured 1-thread point, and so ratios. */
        public boolean hasOneThread() {
            return oneThreadOpsPerMs != null;
        }
    }

    /**
     * A bench's serial-bound ratios.
     *
     * @param threads its thread counts above 1
     * @param locks   the locks measured at one of them, in the bench's order
     */
    public record BenchLine(String bench, String title, boolean measuresOneThread, List<Integer> threads,
                            List<LockLine> locks) {}

    /** The serial-bound ratios of every active bench of {@code config} that measured a point above 1 thread. */
    public static List<BenchLine> of(BenchConfig config, List<PointResult> rows) {
        List<BenchLine> out = new ArrayList<>();
        for (BenchDefinition bench : config.activeBenches()) {
            of(bench, rows).ifPresent(out::add);
        }
        return out;
    }

    /**
     * The serial-bound ratios of {@code bench} from the rows of a run (other benches' rows are ignored); empty where no
     * lock of the bench was measured above 1 thread.
     */
    public static Optional<BenchLine> of(BenchDefinition bench, List<PointResult> rows) {
        List<Integer> above = bench.threads().stream().filter(t -> t > 1).toList();
        List<PointResult> measured = rows.stream()
                .filter(r -> r.bench().equals(bench.id()) && r.ok() && r.opsPerMs() != null).toList();
        List<LockLine> locks = new ArrayList<>();
        for (String lock : bench.locks()) {
            PointResult one = bench.threads().contains(1) ? find(measured, lock, 1) : null;
            List<Entry> entries = new ArrayList<>();
            for (int t : above) {
                PointResult r = find(measured, lock, t);
                if (r != null) {
                    entries.add(new Entry(t, r.opsPerMs(), r.sessionOrFirst(), one == null ? null : Summary.cell(r, one)));
                }
            }
            if (!entries.isEmpty()) {
                locks.add(new LockLine(lock, one == null ? null : one.opsPerMs(), List.copyOf(entries)));
            }
        }
        return locks.isEmpty() ? Optional.empty()
                : Optional.of(new BenchLine(bench.id(), bench.title(), bench.threads().contains(1), above, List.copyOf(locks)));
    }

    /** The last row of {@code lock} at {@code threads}, or null. */
    private static PointResult find(List<PointResult> measured, String lock, int threads) {
        return measured.stream().filter(r -> r.threads() == threads && r.lock().equals(lock)).reduce((a, b) -> b).orElse(null);
    }
}
