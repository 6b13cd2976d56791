package io.numaloom.bench.report;

import jdk.jfr.EventType;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What numaloom's JFR events in a recording say about contention, for {@code ./numaloom contention}:
 * per lock, the waits to acquire it ({@code io.numaloom.LockContended}) with their total, percentiles,
 * how many were served by reservation, parked, and crossed queues (NUMA nodes), which holders made
 * threads wait longest, where in the application they waited (the first recorded frame outside
 * numaloom) and, for a {@code KeyedLock}, which keys; and the condition waits
 * ({@code io.numaloom.ConditionAwait}). A recording holds only the waits at or above its threshold
 * (20 ms unless the recording's settings lower it; the header quotes the thresholds the recording
 * says it used), so the counts are of long waits, not of every contended acquisition.
 */
public final class Contention {
    public static final String LOCK_CONTENDED = "io.numaloom.LockContended";
    public static final String CONDITION_AWAIT = "io.numaloom.ConditionAwait";
    /** The holder of a wait that began while the lock changed hands or was reserved for a starving waiter. */
    static final String NO_HOLDER = "(none: changing hands or reserved)";

    private Contention() {}

    /** The waits on one lock (one {@code VnaLock}, or one {@code KeyedLock} over all its keys). */
    public static final class LockWaits {
        final String lockClass;
        final int identity;
        /** The lock's name ({@code VnaLock.named}, {@code KeyedLock.builder().name}), or null. */
        final String name;
        /** Wait durations in nanoseconds. */
        final Histogram waits = new Histogram(3);
        long waitNanos;
        long queued;
        long parked;
        long reserved;
        /** Waits whose holder had come through a queue (its queue is known), and of those, another queue than the waiter's. */
        long holderQueueKnown;
        long crossQueue;
        final Map<String, Long> holderNanos = new HashMap<>();
        final Map<Integer, Long> keyNanos = new HashMap<>();
        /** Per call site (the first recorded frame outside numaloom's core and the JDK's lock plumbing): waits and wait in ns. */
        final Map<String, long[]> callSites = new HashMap<>();
        long conditionWaits;
        long conditionNanos;
        long conditionTimedOut;

        LockWaits(String lockClass, int identity, String name) {
            this.lockClass = lockClass;
            this.identity = identity;
            this.name = name;
        }

        /**
         * The lock's name if it has one, else {@code VnaLock@1c29f0d9}: the class's simple name and the
         * identity hash, as {@code Object.toString} has it.
         */
        public String label() {
            if (name != null && !name.isEmpty()) {
                return name;
            }
            return lockClass.substring(lockClass.lastIndexOf('.') + 1) + "@" + Integer.toHexString(identity);
        }

        public long count() {
            return waits.getTotalCount();
        }

        public double totalMillis() {
            return waitNanos / 1e6;
        }

        /** A wait percentile in milliseconds. */
        public double percentileMillis(double p) {
            return waits.getValueAtPercentile(p) / 1e6;
        }

        public double maxMillis() {
            return waits.getMaxValue() / 1e6;
        }

        /** Of the waits whose holder's queue is known, the fraction where it was another queue; null if none is known. */
        public Double crossQueueFraction() {
            return holderQueueKnown == 0 ? null : (double) crossQueue / holderQueueKnown;
        }

        public double fraction(long part) {
            return count() == 0 ? 0 : (double) part / count();
        }

        /** The holders that made threads wait longest, with the wait they caused in ms, longest first. */
        public List<Map.Entry<String, Double>> topHolders(int n) {
            return top(holderNanos, n, String::valueOf);
        }

        /** For a KeyedLock, the keys (by hash) waited for longest, in ms. */
        public List<Map.Entry<String, Double>> topKeys(int n) {
            return top(keyNanos, n, h -> "hash " + h);
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

        private static <T> List<Map.Entry<String, Double>> top(Map<T, Long> nanos, int n, java.util.function.Function<T, String> name) {
            return nanos.entrySet().stream()
                    .sorted(Map.Entry.<T, Long>comparingByValue().reversed())
                    .limit(n)
                    .map(e -> Map.entry(name.apply(e.getKey()), e.getValue() / 1e6))
                    .toList();
        }
    }

    /** Where threads waited for a lock: a frame of the application's code, how many waits and their total. */
    public record CallSite(String frame, long waits, double totalMillis) {}

    /** The call site of a wait whose recorded stack holds no frame outside numaloom. */
    static final String NO_CALL_SITE = "(no frame outside numaloom in the recorded stack)";

    /**
     * A recording's numaloom contention.
     *
     * @param locks every lock with a wait, the longest total wait first
     * @param thresholds per numaloom event the recording enabled, its threshold as the recording's
     *        settings ({@code jdk.ActiveSetting}) last set it, e.g. {@code LockContended -> "1 ms"};
     *        empty if the recording says nothing about them
     */
    public record Summary(Path file, List<LockWaits> locks, long lockWaits, long conditionWaits,
                          Map<String, String> thresholds) {
        public boolean isEmpty() {
            return lockWaits == 0 && conditionWaits == 0;
        }
    }

    /**
     * Reads a recording.
     *
     * @throws IOException if the file cannot be read or is not a JFR recording
     */
    public static Summary read(Path file) throws IOException {
        Map<String, LockWaits> byLock = new LinkedHashMap<>();
        long lockWaits = 0;
        long conditionWaits = 0;
        Map<String, String> thresholds = new java.util.TreeMap<>();
        try (RecordingFile recording = new RecordingFile(file)) {
            Map<Long, String> typeNames = new HashMap<>();
            for (EventType t : recording.readEventTypes()) {
                typeNames.put(t.getId(), t.getName());
            }
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                String type = e.getEventType().getName();
                if (type.equals("jdk.ActiveSetting")) {
                    String of = typeNames.get(e.getLong("id"));
                    if ((LOCK_CONTENDED.equals(of) || CONDITION_AWAIT.equals(of)) && "threshold".equals(e.getString("name"))) {
                        thresholds.put(of.substring("io.numaloom.".length()), e.getString("value"));
                    }
                } else if (type.equals(LOCK_CONTENDED)) {
                    addLockWait(lockOf(byLock, e), e);
                    lockWaits++;
                } else if (type.equals(CONDITION_AWAIT)) {
                    LockWaits l = lockOf(byLock, e);
                    l.conditionWaits++;
                    l.conditionNanos += e.getDuration().toNanos();
                    l.conditionTimedOut += e.getBoolean("timedOut") ? 1 : 0;
                    conditionWaits++;
                }
            }
        }
        List<LockWaits> locks = new ArrayList<>(byLock.values());
        locks.sort(Comparator.comparingLong((LockWaits l) -> l.waitNanos).reversed()
                .thenComparing(Comparator.comparingLong((LockWaits l) -> l.conditionNanos).reversed()));
        return new Summary(file, locks, lockWaits, conditionWaits, thresholds);
    }

    private static LockWaits lockOf(Map<String, LockWaits> byLock, RecordedEvent e) {
        String cls = e.getClass("lockClass") == null ? "?" : e.getClass("lockClass").getName();
        int identity = e.getInt("lockIdentity");
        String name = e.hasField("name") ? e.getString("name") : null; // recordings before names lack the field
        return byLock.computeIfAbsent(cls + "@" + identity, k -> new LockWaits(cls, identity, name));
    }

    private static void addLockWait(LockWaits l, RecordedEvent e) {
        long nanos = Math.max(0, e.getDuration().toNanos());
        l.waits.recordValue(nanos);
        l.waitNanos += nanos;
        l.queued += e.getBoolean("queued") ? 1 : 0;
        l.parked += e.getInt("parks") > 0 ? 1 : 0;
        l.reserved += e.getBoolean("reserved") ? 1 : 0;
        int holderQueue = e.getInt("ownerQueue");
        if (holderQueue >= 0) {
            l.holderQueueKnown++;
            l.crossQueue += holderQueue != e.getInt("waiterQueue") ? 1 : 0;
        }
        RecordedThread holder = e.getThread("previousOwner");
        l.holderNanos.merge(holder == null ? NO_HOLDER : threadName(holder), nanos, Long::sum);
        if (l.lockClass.endsWith(".KeyedLock")) {
            l.keyNanos.merge(e.getInt("keyHash"), nanos, Long::sum);
        }
        long[] site = l.callSites.computeIfAbsent(callSite(e.getStackTrace()), k -> new long[2]);
        site[0]++;
        site[1] += nanos;
    }

    /**
     * The first frame of {@code stack} outside numaloom's core ({@code io.numaloom},
     * {@code io.numaloom.counter}, {@code io.numaloom.topology}) and the JDK's lock and method-handle
     * plumbing, as {@code Class.method:line}; {@link #NO_CALL_SITE} if the recorded stack (64 frames
     * by default, JFR's {@code stackdepth}) ends before one.
     */
    static String callSite(RecordedStackTrace stack) {
        if (stack == null) {
            return NO_CALL_SITE;
        }
        for (RecordedFrame f : stack.getFrames()) {
            if (!f.isJavaFrame() || f.getMethod() == null) {
                continue;
            }
            String cls = f.getMethod().getType().getName();
            if (isPlumbing(cls)) {
                continue;
            }
            int line = f.getLineNumber();
            return cls + "." + f.getMethod().getName() + (line > 0 ? ":" + line : "");
        }
        return NO_CALL_SITE;
    }

    private static boolean isPlumbing(String cls) {
        int dot = cls.lastIndexOf('.');
        String pkg = dot < 0 ? "" : cls.substring(0, dot);
        return pkg.equals("io.numaloom") || pkg.equals("io.numaloom.counter") || pkg.equals("io.numaloom.topology")
                || pkg.equals("java.util.concurrent.locks") || pkg.startsWith("java.lang.invoke")
                || pkg.startsWith("jdk.internal.");
    }

    static String threadName(RecordedThread t) {
        String name = t.getJavaName();
        if (name == null || name.isEmpty()) {
            name = (t.isVirtual() ? "virtual#" : "#") + t.getJavaThreadId();
        }
        return name;
    }

    /** The terminal table: the {@code top} locks by total wait. */
    public static String text(Summary s, int top) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s: %d contended acquisitions and %d condition waits of numaloom locks"
                        + " (at or above the recording's thresholds: %s)%n",
                s.file(), s.lockWaits(), s.conditionWaits(), thresholds(s.thresholds())));
        if (s.isEmpty()) {
            return sb.append("No io.numaloom events: nothing waited that long, the application used no numaloom lock, or the"
                    + " recording disabled them. Lower the threshold to see shorter waits:"
                    + " -XX:StartFlightRecording:filename=app.jfr,+io.numaloom.LockContended#threshold=1ms").append('\n').toString();
        }
        sb.append('\n');
        sb.append(String.format(Locale.ROOT, "%-28s %7s %10s %8s %8s %8s %8s %6s %6s %6s %7s  %s%n",
                "lock", "waits", "total ms", "p50 ms", "p90 ms", "p99 ms", "max ms", "queued", "parked", "resv", "x-node",
                "longest holders (ms of waits caused)"));
        for (LockWaits l : s.locks().subList(0, Math.min(top, s.locks().size()))) {
            if (l.count() == 0) {
                continue;
            }
            Double cross = l.crossQueueFraction();
            sb.append(String.format(Locale.ROOT, "%-28s %7d %10.1f %8.2f %8.2f %8.2f %8.2f %5.0f%% %5.0f%% %5.0f%% %7s  %s%n",
                    l.label(), l.count(), l.totalMillis(), l.percentileMillis(50), l.percentileMillis(90),
                    l.percentileMillis(99), l.maxMillis(), 100 * l.fraction(l.queued), 100 * l.fraction(l.parked),
                    100 * l.fraction(l.reserved), cross == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * cross),
                    entries(l.topHolders(3))));
        }
        for (LockWaits l : s.locks().subList(0, Math.min(top, s.locks().size()))) {
            if (l.count() == 0) {
                continue;
            }
            sb.append(String.format(Locale.ROOT, "  %s: where threads waited (waits, total ms)%n", l.label()));
            for (CallSite c : l.topCallSites(top)) {
                sb.append(String.format(Locale.ROOT, "    %7d %10.1f  %s%n", c.waits(), c.totalMillis(), c.frame()));
            }
        }
        List<LockWaits> keyed = s.locks().stream().filter(l -> !l.keyNanos.isEmpty()).limit(top).toList();
        for (LockWaits l : keyed) {
            sb.append(String.format(Locale.ROOT, "  keys of %s waited for longest: %s%n", l.label(), entries(l.topKeys(top))));
        }
        List<LockWaits> conditions = s.locks().stream().filter(l -> l.conditionWaits > 0).limit(top).toList();
        if (!conditions.isEmpty()) {
            sb.append('\n').append(String.format(Locale.ROOT, "%-28s %7s %10s %9s%n", "condition waits on", "waits", "total ms", "timed out"));
            for (LockWaits l : conditions) {
                sb.append(String.format(Locale.ROOT, "%-28s %7d %10.1f %9d%n", l.label(), l.conditionWaits,
                        l.conditionNanos / 1e6, l.conditionTimedOut));
            }
        }
        sb.append('\n').append("queued: waited in a queue (not just polled); parked: slept at least once; resv: took the lock by"
                + " reservation after 1 ms of being overtaken; x-node: of the waits whose holder came through a queue, those"
                + " where it was another queue (NUMA node) than the waiter's").append('\n');
        return sb.toString();
    }

    /** {@code LockContended 1 ms, ConditionAwait 20 ms}, or what the default would be when the recording does not say. */
    public static String thresholds(Map<String, String> thresholds) {
        if (thresholds.isEmpty()) {
            return "not in the recording; 20 ms unless its settings changed it";
        }
        StringBuilder sb = new StringBuilder();
        thresholds.forEach((event, value) -> sb.append(sb.isEmpty() ? "" : ", ").append(event).append(' ').append(value));
        return sb.toString();
    }

    static String entries(List<Map.Entry<String, Double>> entries) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Double> e : entries) {
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(e.getKey()).append(String.format(Locale.ROOT, " %.1f", e.getValue()));
        }
        return sb.toString();
    }
}
