package io.numaloom.tools;

import jdk.jfr.EventType;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a JFR recording says about lock contention, read with nothing but the JDK's
 * {@code jdk.jfr.consumer}: events are matched by name and fields by name, so recordings of any
 * numaloom version and of applications that never loaded numaloom are read alike.
 *
 * <ul>
 * <li>numaloom's locks: per lock, the waits to acquire it ({@code io.numaloom.LockContended}) with
 *     their total, percentiles, how many were served by reservation, parked, and crossed queues
 *     (NUMA nodes), which holders made threads wait longest, where in the application they waited
 *     and, for a {@code KeyedLock}, which keys (by the key's {@code toString} the event carries, or by
 *     hash); and the condition waits ({@code io.numaloom.ConditionAwait}) with their call sites.</li>
 * <li>The JDK's locks in the same recording: parks ({@code jdk.ThreadPark}) by the class parked on,
 *     e.g. a {@code ReentrantLock}'s sync or an AQS {@code Condition}, and {@code synchronized}
 *     ({@code jdk.JavaMonitorEnter}) by the monitor's class, each with its call sites, so that the
 *     locks a user could switch stand beside numaloom's. Only waits with a frame of the application
 *     in their recorded stack count: an idle pool thread's park is not contention.</li>
 * </ul>
 *
 * <p>A recording holds only the waits at or above its thresholds (20 ms in JFR's default settings;
 * the summary quotes the thresholds the recording says it used), so the counts are of long waits,
 * not of every contended acquisition. JDK 25 records {@code jdk.ThreadPark} and
 * {@code jdk.JavaMonitorEnter} of platform threads only: a virtual thread that unmounts to wait for
 * a {@code ReentrantLock} or a monitor is in neither (numaloom's events record both kinds of thread).
 */
public final class Contention {
    public static final String LOCK_CONTENDED = "io.numaloom.LockContended";
    public static final String CONDITION_AWAIT = "io.numaloom.ConditionAwait";
    public static final String THREAD_PARK = "jdk.ThreadPark";
    public static final String MONITOR_ENTER = "jdk.JavaMonitorEnter";
    /** The holder of a wait that began while the lock changed hands or was reserved for a starving waiter. */
    static final String NO_HOLDER = "(none: changing hands or reserved)";
    /** The call site of a numaloom wait whose recorded stack holds no frame outside numaloom and the JDK. */
    static final String NO_CALL_SITE = "(no frame outside numaloom in the recorded stack)";
    /** The most characters of a key shown, as numaloom's events cut them. */
    static final int MAX_KEY_CHARS = 64;
    /**
     * numaloom's own packages (the core and the scheduler), whose frames and parks are a lock's or a
     * carrier's plumbing, not the application.
     */
    private static final Set<String> NUMALOOM_PACKAGES = Set.of("io.numaloom", "io.numaloom.counter", "io.numaloom.topology",
            "io.numaloom.scheduler");
    /** What {@link #callSite} returns for a JDK event whose stack reaches numaloom before the application. */
    private static final String NUMALOOMS_OWN = "(numaloom's own wait)";

    private Contention() {}

    /** What the summary reads of a recording. */
    public record Options(boolean showKeys) {
        /** Keys shown by the strings the events carry. */
        public static final Options DEFAULT = new Options(true);
    }

    /** The waits on one numaloom lock (one {@code VnaLock}, or one {@code KeyedLock} over all its keys). */
    public static final class LockWaits {
        final String lockClass;
        final int identity;
        /** The lock's name ({@code VnaLock.named}, {@code KeyedLock.builder().name}), or null. */
        final String name;
        /** The waits to acquire it. */
        final Waits acquisitions = new Waits();
        /** The waits on its conditions, from the call to the return with the lock held again. */
        final Waits conditions = new Waits();
        long queued;
        long parked;
        long reserved;
        /** Waits whose holder had come through a queue (its queue is known), and of those, another queue than the waiter's. */
        long holderQueueKnown;
        long crossQueue;
        long conditionTimedOut;
        /** For a KeyedLock: per key (its string, or "hash N"), the wait in ns. */
        final Map<String, Long> keyNanos = new HashMap<>();

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

        /** {@return the waits to acquire the lock} */
        public Waits acquisitions() {
            return acquisitions;
        }

        /** {@return the waits on the lock's conditions} */
        public Waits conditions() {
            return conditions;
        }

        public long count() {
            return acquisitions.count();
        }

        /** Of the waits whose holder's queue is known, the fraction where it was another queue; null if none is known. */
        public Double crossQueueFraction() {
            return holderQueueKnown == 0 ? null : (double) crossQueue / holderQueueKnown;
        }

        public double fraction(long part) {
            return count() == 0 ? 0 : (double) part / count();
        }

        /** For a KeyedLock, the keys waited for longest, in ms: by their {@code toString}, or {@code hash N}. */
        public List<Map.Entry<String, Double>> topKeys(int n) {
            return top(keyNanos, n);
        }
    }

    /** The kinds of JDK waits the summary reads beside numaloom's. */
    public enum Kind {
        /** {@code jdk.ThreadPark} on a lock or synchronizer: a {@code ReentrantLock}'s sync, a latch, a future. */
        PARK("park"),
        /** {@code jdk.ThreadPark} on an AQS {@code Condition}: a wait like {@code io.numaloom.ConditionAwait}. */
        CONDITION("park"),
        /** {@code jdk.JavaMonitorEnter}: a thread blocked entering {@code synchronized}. */
        MONITOR("synchronized");

        /** The column the combined table shows. */
        final String column;

        Kind(String column) {
            this.column = column;
        }
    }

    /**
     * The waits of one JDK lock class: parks on {@code className} or monitor enters of an object of it.
     *
     * @param label {@code ReentrantLock}, {@code ReentrantLock (fair)}, {@code AQS Condition}, the class
     *        name for other classes
     */
    public record JdkWaits(Kind kind, String className, String label, Waits waits) {}

    /** A row of the table of every lock: numaloom's, parks' and monitors' alike. */
    public record Row(String kind, String lock, Waits waits) {}

    /**
     * A recording's contention.
     *
     * @param locks every numaloom lock with a wait, the longest total wait first
     * @param thresholds per numaloom event, its threshold as the recording's settings
     *        ({@code jdk.ActiveSetting}) last set it, e.g. {@code LockContended -> "1 ms"}; empty if the
     *        recording says nothing about them
     * @param jdk the JDK's lock waits with a frame of the application, the longest total wait first
     * @param jdkSettings per JDK event read ({@code jdk.ThreadPark}, {@code jdk.JavaMonitorEnter}), what
     *        the recording's settings say of it: {@code threshold 20 ms}, or {@code off}
     * @param jdkWithoutAppFrame JDK waits left out: no frame of the application in their stack
     * @param keysShown whether keys are shown by their strings (else by hash)
     * @param virtualThreads whether virtual threads ran in the recording (an event's thread is virtual, or a carrier)
     */
    public record Summary(Path file, List<LockWaits> locks, long lockWaits, long conditionWaits,
                          Map<String, String> thresholds, List<JdkWaits> jdk, Map<String, String> jdkSettings,
                          long jdkWithoutAppFrame, boolean keysShown, boolean virtualThreads) {
        public boolean isEmpty() {
            return lockWaits == 0 && conditionWaits == 0;
        }

        /** The JDK waits of {@code kind}, the longest total wait first. */
        public List<JdkWaits> jdk(Kind kind) {
            return jdk.stream().filter(j -> j.kind() == kind).toList();
        }

        /** {@return how many JDK waits of {@code kind} the summary counts} */
        public long jdkWaits(Kind kind) {
            return jdk(kind).stream().mapToLong(j -> j.waits().count()).sum();
        }

        /**
         * Every lock that threads waited to acquire, numaloom's, parks' (conditions aside) and
         * monitors', the longest total wait first: the table that says which lock to look at first.
         */
        public List<Row> rows() {
            List<Row> rows = new ArrayList<>();
            for (LockWaits l : locks) {
                if (l.count() > 0) {
                    rows.add(new Row("numaloom", l.label(), l.acquisitions));
                }
            }
            for (JdkWaits j : jdk) {
                if (j.kind() != Kind.CONDITION) {
                    rows.add(new Row(j.kind().column, j.label(), j.waits()));
                }
            }
            rows.sort(Comparator.comparingLong((Row r) -> r.waits().totalNanos()).reversed()
                    .thenComparing(Row::lock));
            return rows;
        }
    }

    /** Reads a recording with keys shown. */
    public static Summary read(Path file) throws IOException {
        return read(file, Options.DEFAULT);
    }

    /**
     * Reads a recording.
     *
     * @throws IOException if the file cannot be read or is not a JFR recording
     */
    public static Summary read(Path file, Options options) throws IOException {
        Map<String, LockWaits> byLock = new LinkedHashMap<>();
        Map<String, JdkWaits> byJdkClass = new LinkedHashMap<>();
        long lockWaits = 0;
        long conditionWaits = 0;
        long withoutAppFrame = 0;
        boolean virtualThreads = false;
        Map<String, String> thresholds = new TreeMap<>();
        Map<String, Map<String, String>> jdkActive = new TreeMap<>();
        try (RecordingFile recording = new RecordingFile(file)) {
            Map<Long, String> typeNames = new HashMap<>();
            for (EventType t : recording.readEventTypes()) {
                typeNames.put(t.getId(), t.getName());
            }
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                virtualThreads = virtualThreads || ranOnVirtualThreads(e);
                switch (e.getEventType().getName()) {
                    case "jdk.ActiveSetting" -> {
                        String of = typeNames.get(e.getLong("id"));
                        String setting = e.getString("name");
                        if ((LOCK_CONTENDED.equals(of) || CONDITION_AWAIT.equals(of)) && "threshold".equals(setting)) {
                            thresholds.put(of.substring("io.numaloom.".length()), e.getString("value"));
                        } else if ((THREAD_PARK.equals(of) || MONITOR_ENTER.equals(of))
                                && ("threshold".equals(setting) || "enabled".equals(setting))) {
                            jdkActive.computeIfAbsent(of, k -> new TreeMap<>()).put(setting, e.getString("value"));
                        }
                    }
                    case LOCK_CONTENDED -> {
                        addLockWait(lockOf(byLock, e), e, options);
                        lockWaits++;
                    }
                    case CONDITION_AWAIT -> {
                        LockWaits l = lockOf(byLock, e);
                        l.conditions.add(e.getDuration().toNanos(), callSite(e.getStackTrace(), NO_CALL_SITE), null);
                        l.conditionTimedOut += e.getBoolean("timedOut") ? 1 : 0;
                        conditionWaits++;
                    }
                    case THREAD_PARK, MONITOR_ENTER -> withoutAppFrame += addJdkWait(byJdkClass, e) ? 0 : 1;
                    default -> {
                        // not about locks
                    }
                }
            }
        }
        List<LockWaits> locks = new ArrayList<>(byLock.values());
        locks.sort(Comparator.comparingLong((LockWaits l) -> l.acquisitions.totalNanos()).reversed()
                .thenComparing(Comparator.comparingLong((LockWaits l) -> l.conditions.totalNanos()).reversed()));
        List<JdkWaits> jdk = new ArrayList<>(byJdkClass.values());
        jdk.sort(Comparator.comparingLong((JdkWaits j) -> j.waits().totalNanos()).reversed()
                .thenComparing(JdkWaits::label));
        Map<String, String> jdkSettings = new TreeMap<>();
        for (String event : List.of(THREAD_PARK, MONITOR_ENTER)) {
            Map<String, String> active = jdkActive.getOrDefault(event, Map.of());
            if ("false".equals(active.get("enabled"))) {
                jdkSettings.put(event, "off");
            } else if (active.containsKey("threshold")) {
                jdkSettings.put(event, "threshold " + active.get("threshold"));
            }
        }
        return new Summary(file, locks, lockWaits, conditionWaits, thresholds, jdk, jdkSettings, withoutAppFrame,
                options.showKeys(), virtualThreads);
    }

    private static LockWaits lockOf(Map<String, LockWaits> byLock, RecordedEvent e) {
        RecordedClass c = e.hasField("lockClass") ? e.getClass("lockClass") : null;
        String cls = c == null ? "?" : c.getName();
        int identity = e.hasField("lockIdentity") ? e.getInt("lockIdentity") : 0;
        String name = e.hasField("name") ? e.getString("name") : null; // recordings before names lack the field
        return byLock.computeIfAbsent(cls + "@" + identity, k -> new LockWaits(cls, identity, name));
    }

    private static void addLockWait(LockWaits l, RecordedEvent e, Options options) {
        long nanos = Math.max(0, e.getDuration().toNanos());
        l.queued += e.getBoolean("queued") ? 1 : 0;
        l.parked += e.getInt("parks") > 0 ? 1 : 0;
        l.reserved += e.getBoolean("reserved") ? 1 : 0;
        int holderQueue = e.getInt("ownerQueue");
        if (holderQueue >= 0) {
            l.holderQueueKnown++;
            l.crossQueue += holderQueue != e.getInt("waiterQueue") ? 1 : 0;
        }
        RecordedThread holder = e.getThread("previousOwner");
        l.acquisitions.add(nanos, callSite(e.getStackTrace(), NO_CALL_SITE), holder == null ? NO_HOLDER : threadName(holder));
        if (l.lockClass.endsWith(".KeyedLock")) {
            l.keyNanos.merge(keyLabel(e, options), nanos, Long::sum);
        }
    }

    /** The key's string the event carries (cut to 64 characters), or {@code hash N} when hidden or absent. */
    static String keyLabel(RecordedEvent e, Options options) {
        String key = options.showKeys() && e.hasField("key") ? e.getString("key") : null;
        if (key == null) {
            return "hash " + e.getInt("keyHash");
        }
        return key.length() <= MAX_KEY_CHARS ? key : key.substring(0, MAX_KEY_CHARS - 3) + "...";
    }

    /** Adds a park or monitor enter; false if its stack has no frame of the application (then it is left out). */
    private static boolean addJdkWait(Map<String, JdkWaits> byClass, RecordedEvent e) {
        boolean park = e.getEventType().getName().equals(THREAD_PARK);
        String field = park ? "parkedClass" : "monitorClass";
        RecordedClass c = e.hasField(field) ? e.getClass(field) : null;
        String cls = c == null ? null : c.getName();
        if (park && cls != null && isNumaloom(cls)) {
            return true; // numaloom's own park: its io.numaloom events say more
        }
        String site = callSite(e.getStackTrace(), null, NUMALOOMS_OWN);
        if (site == NUMALOOMS_OWN) {
            return true; // a park inside numaloom, e.g. a KeyedLock's resize: its io.numaloom events say more
        }
        if (site == null) {
            return false;
        }
        Kind kind = !park ? Kind.MONITOR : cls != null && cls.endsWith("$ConditionObject") ? Kind.CONDITION : Kind.PARK;
        String clsName = cls == null ? (park ? "(no blocker)" : "?") : cls;
        JdkWaits w = byClass.computeIfAbsent(kind + " " + clsName, k -> new JdkWaits(kind, clsName, jdkLabel(kind, clsName), new Waits()));
        RecordedThread holder = !park && e.hasField("previousOwner") ? e.getThread("previousOwner") : null;
        w.waits().add(e.getDuration().toNanos(), site, holder == null ? null : threadName(holder));
        return true;
    }

    /**
     * A JDK lock class as a user knows it: {@code ReentrantLock} for {@code ReentrantLock$NonfairSync},
     * {@code ReentrantLock (fair)} for its {@code FairSync}, {@code AQS Condition} for a
     * {@code ConditionObject}, {@code CountDownLatch} for its {@code Sync}; other classes by name.
     */
    static String jdkLabel(Kind kind, String cls) {
        if (kind == Kind.CONDITION) {
            return "AQS Condition";
        }
        if (!cls.startsWith("java.util.concurrent.")) {
            return cls;
        }
        String simple = cls.substring(cls.lastIndexOf('.') + 1);
        int dollar = simple.indexOf('$');
        if (dollar < 0) {
            return simple;
        }
        String outer = simple.substring(0, dollar);
        String inner = simple.substring(dollar + 1);
        return switch (inner) {
            case "FairSync" -> outer + " (fair)";
            case "NonfairSync", "Sync" -> outer;
            default -> simple;
        };
    }

    /**
     * The first frame of {@code stack} of the application: outside numaloom ({@code io.numaloom},
     * {@code io.numaloom.counter}, {@code io.numaloom.topology}, {@code io.numaloom.scheduler}) and the JDK ({@code java.*},
     * {@code javax.*}, {@code jdk.*}, {@code sun.*}, {@code com.sun.*}), as {@code Class.method:line};
     * {@code none} if the recorded stack (64 frames by default, JFR's {@code stackdepth}) ends before one.
     */
    static String callSite(RecordedStackTrace stack, String none) {
        return callSite(stack, none, null);
    }

    /** As {@link #callSite(RecordedStackTrace, String)}; {@code numaloom} if not null and a frame of numaloom comes first. */
    private static String callSite(RecordedStackTrace stack, String none, String numaloom) {
        if (stack == null) {
            return none;
        }
        for (RecordedFrame f : stack.getFrames()) {
            if (!f.isJavaFrame() || f.getMethod() == null) {
                continue;
            }
            String cls = f.getMethod().getType().getName();
            if (isNumaloom(cls)) {
                if (numaloom != null) {
                    return numaloom;
                }
                continue;
            }
            if (isJdk(cls)) {
                continue;
            }
            int line = f.getLineNumber();
            return cls + "." + f.getMethod().getName() + (line > 0 ? ":" + line : "");
        }
        return none;
    }

    private static boolean isNumaloom(String cls) {
        int dot = cls.lastIndexOf('.');
        return NUMALOOM_PACKAGES.contains(dot < 0 ? "" : cls.substring(0, dot));
    }

    private static boolean isJdk(String cls) {
        return cls.startsWith("java.") || cls.startsWith("javax.") || cls.startsWith("jdk.") || cls.startsWith("sun.")
                || cls.startsWith("com.sun.");
    }

    /**
     * Whether the recorded thread is virtual: its field {@code virtual}, which recordings of JDK 21 and later have
     * (the tool runs on Java 17, whose {@code RecordedThread} has no {@code isVirtual()}).
     */
    static boolean isVirtual(RecordedThread t) {
        return t.hasField("virtual") && t.getBoolean("virtual");
    }

    /** The thread group of the virtual-thread scheduler's carriers. */
    static final String CARRIER_GROUP = "CarrierThreads";

    /** The fields of an event that name a thread: the one that recorded it, sampled or started. */
    private static final String[] THREAD_FIELDS = {"eventThread", "sampledThread", "thread"};

    /** Whether one of the event's threads ({@link #THREAD_FIELDS}) is virtual or a carrier. */
    static boolean ranOnVirtualThreads(RecordedEvent e) {
        for (String field : THREAD_FIELDS) {
            if (e.hasField(field) && e.getValue(field) instanceof RecordedThread t
                    && (isVirtual(t) || t.getThreadGroup() != null && CARRIER_GROUP.equals(t.getThreadGroup().getName()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * What a summary of a recording with virtual threads says of what it cannot see: JDK 25 records neither
     * {@code jdk.ThreadPark} nor {@code jdk.JavaMonitorEnter} for a virtual thread (checked: four virtual threads
     * that contended for a {@code ReentrantLock} and a monitor recorded none of either, platform threads 83 parks).
     */
    static final String VIRTUAL_THREADS_NOTE = "Virtual threads ran in this recording. The JDK records no jdk.ThreadPark and no"
            + " jdk.JavaMonitorEnter for a virtual thread, so their waits on ReentrantLock (and the other"
            + " java.util.concurrent locks) and on synchronized are missing here. numaloom's locks record theirs"
            + " (io.numaloom.LockContended); to see an application's ReentrantLocks without changing it, run it with"
            + " numaloom-agent's events option: java -javaagent:numaloom-agent.jar=events ...";

    static String threadName(RecordedThread t) {
        String name = t.getJavaName();
        if (name == null || name.isEmpty()) {
            name = (isVirtual(t) ? "virtual#" : "#") + t.getJavaThreadId();
        }
        return name;
    }

    static List<Map.Entry<String, Double>> top(Map<String, Long> nanos, int n) {
        return nanos.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry::getKey))
                .limit(n)
                .map(e -> Map.entry(e.getKey(), e.getValue() / 1e6))
                .toList();
    }

    // ------------------------------------------------------------------ the terminal's text

    /** The terminal's summary: the {@code top} locks of each table. */
    public static String text(Summary s, int top) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s: %d contended acquisitions and %d condition waits of numaloom locks"
                        + " (at or above the recording's thresholds: %s)%n",
                s.file(), s.lockWaits(), s.conditionWaits(), thresholds(s.thresholds())));
        sb.append(jdkLine(s)).append('\n');
        if (s.virtualThreads()) {
            sb.append(VIRTUAL_THREADS_NOTE).append('\n');
        }
        if (s.isEmpty()) {
            sb.append("No io.numaloom events: nothing waited that long, the application used no numaloom lock, or the"
                    + " recording disabled them. Lower the threshold to see shorter waits:"
                    + " -XX:StartFlightRecording:filename=app.jfr,+io.numaloom.LockContended#threshold=1ms").append('\n');
        } else {
            numaloomText(sb, s, top);
        }
        jdkText(sb, s, top);
        List<Row> rows = s.rows();
        if (!rows.isEmpty()) {
            sb.append('\n').append("Every lock threads waited for, by total wait (numaloom's and the JDK's side by side):\n");
            sb.append(String.format(Locale.ROOT, "%-12s %-28s %7s %10s %8s %8s  %s%n",
                    "kind", "lock", "waits", "total ms", "p99 ms", "max ms", "where threads waited longest"));
            for (Row r : rows.subList(0, Math.min(top, rows.size()))) {
                sb.append(String.format(Locale.ROOT, "%-12s %-28s %7d %10.1f %8.2f %8.2f  %s%n", r.kind(), r.lock(),
                        r.waits().count(), r.waits().totalMillis(), r.waits().percentileMillis(99), r.waits().maxMillis(),
                        r.waits().topCallSite()));
            }
        }
        return sb.toString();
    }

    private static void numaloomText(StringBuilder sb, Summary s, int top) {
        List<LockWaits> waited = s.locks().stream().filter(l -> l.count() > 0).limit(top).toList();
        if (!waited.isEmpty()) {
            sb.append('\n');
            sb.append(String.format(Locale.ROOT, "%-28s %7s %10s %8s %8s %8s %8s %6s %6s %6s %7s  %s%n",
                    "lock", "waits", "total ms", "p50 ms", "p90 ms", "p99 ms", "max ms", "queued", "parked", "resv", "x-node",
                    "longest holders (ms of waits caused)"));
        }
        for (LockWaits l : waited) {
            Double cross = l.crossQueueFraction();
            Waits w = l.acquisitions;
            sb.append(String.format(Locale.ROOT, "%-28s %7d %10.1f %8.2f %8.2f %8.2f %8.2f %5.0f%% %5.0f%% %5.0f%% %7s  %s%n",
                    l.label(), w.count(), w.totalMillis(), w.percentileMillis(50), w.percentileMillis(90),
                    w.percentileMillis(99), w.maxMillis(), 100 * l.fraction(l.queued), 100 * l.fraction(l.parked),
                    100 * l.fraction(l.reserved), cross == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * cross),
                    entries(w.topHolders(3))));
        }
        for (LockWaits l : waited) {
            sites(sb, l.label() + ": where threads waited", l.acquisitions, top);
        }
        for (LockWaits l : s.locks().stream().filter(l -> !l.keyNanos.isEmpty()).limit(top).toList()) {
            sb.append(String.format(Locale.ROOT, "  keys of %s waited for longest: %s%n", l.label(), entries(l.topKeys(top))));
        }
        List<LockWaits> conditions = s.locks().stream().filter(l -> l.conditions.count() > 0)
                .sorted(Comparator.comparingLong((LockWaits l) -> l.conditions.totalNanos()).reversed()).limit(top).toList();
        if (!conditions.isEmpty()) {
            sb.append('\n').append(String.format(Locale.ROOT, "%-28s %7s %10s %9s%n", "condition waits on", "waits", "total ms", "timed out"));
            for (LockWaits l : conditions) {
                sb.append(String.format(Locale.ROOT, "%-28s %7d %10.1f %9d%n", l.label(), l.conditions.count(),
                        l.conditions.totalMillis(), l.conditionTimedOut));
            }
            for (LockWaits l : conditions) {
                sites(sb, l.label() + ": where threads awaited a condition", l.conditions, top);
            }
        }
        sb.append('\n').append("queued: waited in a queue (not just polled); parked: slept at least once; resv: took the lock by"
                + " reservation after 1 ms of being overtaken; x-node: of the waits whose holder came through a queue, those"
                + " where it was another queue (NUMA node) than the waiter's").append('\n');
    }

    private static void jdkText(StringBuilder sb, Summary s, int top) {
        for (Kind kind : Kind.values()) {
            List<JdkWaits> of = s.jdk(kind);
            if (of.isEmpty()) {
                continue;
            }
            sb.append('\n').append(switch (kind) {
                case PARK -> "JDK locks and other parks (jdk.ThreadPark), by the class parked on:";
                case CONDITION -> "Condition waits of AQS locks (jdk.ThreadPark on a ConditionObject):";
                case MONITOR -> "synchronized (jdk.JavaMonitorEnter), by the class of the object locked:";
            }).append('\n');
            sb.append(String.format(Locale.ROOT, "%-28s %7s %10s %8s %8s %8s  %s", "lock", "waits", "total ms", "p50 ms",
                    "p99 ms", "max ms", kind == Kind.MONITOR ? "longest holders (ms of waits caused)" : "").stripTrailing())
                    .append('\n');
            List<JdkWaits> shown = of.subList(0, Math.min(top, of.size()));
            for (JdkWaits j : shown) {
                Waits w = j.waits();
                sb.append(String.format(Locale.ROOT, "%-28s %7d %10.1f %8.2f %8.2f %8.2f  %s%n", j.label(), w.count(),
                        w.totalMillis(), w.percentileMillis(50), w.percentileMillis(99), w.maxMillis(),
                        entries(w.topHolders(3))).stripTrailing()).append('\n');
            }
            for (JdkWaits j : shown) {
                sites(sb, j.label() + (kind == Kind.CONDITION ? ": where threads awaited it" : ": where threads waited"),
                        j.waits(), top);
            }
        }
    }

    private static void sites(StringBuilder sb, String title, Waits w, int top) {
        sb.append(String.format(Locale.ROOT, "  %s (waits, total ms)%n", title));
        for (Waits.CallSite c : w.topCallSites(top)) {
            sb.append(String.format(Locale.ROOT, "    %7d %10.1f  %s%n", c.waits(), c.totalMillis(), c.frame()));
        }
    }

    /** The second line: what the recording holds of the JDK's locks, and what it left out. */
    static String jdkLine(Summary s) {
        return String.format(Locale.ROOT, "and %d waits of JDK locks and other parks (jdk.ThreadPark: %s), %d condition waits"
                        + " of AQS locks and %d of synchronized (jdk.JavaMonitorEnter: %s) with a frame of the application;"
                        + " %d without one left out%s",
                s.jdkWaits(Kind.PARK), jdkSetting(s, THREAD_PARK), s.jdkWaits(Kind.CONDITION), s.jdkWaits(Kind.MONITOR),
                jdkSetting(s, MONITOR_ENTER), s.jdkWithoutAppFrame(),
                s.keysShown() ? "" : "; keys hidden (--no-keys), shown by hash");
    }

    private static String jdkSetting(Summary s, String event) {
        return s.jdkSettings().getOrDefault(event, "settings not in the recording");
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
