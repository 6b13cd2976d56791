package io.numaloom.bench.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.numaloom.bench.Point;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.report.MachineInfo;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.result.MachineStalls;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import io.numaloom.bench.result.ResultsDirectory;
import io.numaloom.bench.result.Session;
import io.numaloom.bench.workloads.LoopbackServer;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Runs a configuration into a results directory.
 *
 * <p>The points are every (bench, thread count, lock) of the benches that are not skipped; a group is one bench at
 * one thread count, every lock of it. Groups are measured in rounds, one fork of each lock per round in a shuffled
 * order ({@link RoundPlan}), and the rounds of all groups in passes: each pass runs one round of every group that
 * wants another, so a group's rounds spread over the whole run (A. Abedi and T. Brecht, ICPE 2017: randomized
 * multiple interleaved trials). A group is recorded as soon as its plan stops; the budget ({@link Method#budget()})
 * bounds the whole run, and the groups still wanting rounds share what is left of it pass by pass. Before
 * the first point the directory gets {@code config.json} (the effective configuration, which
 * {@code --resume} reads back) and {@code machine.json}; after every point {@link ResultStore} makes the
 * row durable; after the last group of a bench its plots and the report are redrawn, so a long run can be
 * looked at while it goes on.
 *
 * <p>A failed point (an exception in the measured JVM, a failed check, a timeout) becomes a row with status
 * {@code failed} and its reason, and the run goes on. With {@code resume}, the configuration must be the
 * one the run started with (else the run is refused, naming the first difference); points that already
 * have an {@code ok} row with the same bench fingerprint are skipped; failed ones are measured again.
 * Each start or resume of a run is a {@link Session}: {@code machine.json} lists them all (start, load average,
 * stall probe) and every row names the session that measured it, so that the report compares only points of one
 * session.
 *
 * <p>A run is stopped (Ctrl-C) from another thread: {@link #stop()} ends it between points, and
 * {@link #abandon()} waits for that, then writes the report and cleans up. The point in progress is not
 * recorded: Ctrl-C reaches the measured JVM too, and its failure is the stop, not a result. Since the
 * measured JVM can die a moment before this JVM hears of the stop, a failed point waits the executor's
 * {@link PointExecutor#stopGrace()} for a stop before it is recorded.
 */
public final class BenchRunner {
    /** Held (an OS file lock) while a run writes the directory, so that two runs never mix their rows. */
    static final String LOCK_FILE = ".lock";

    /**
     * Where the measured JVMs' class caches of a run in {@code out} go ({@link AotCache}): inside the run's work
     * directory, which the run deletes when it ends.
     */
    public static Path aotCacheDir(Path out) {
        return out.resolve("work").resolve("aot-cache");
    }

    /** What a run tells its user while it goes. */
    public interface Listener {
        /** Before the first point. */
        void runStarted(Path out, int points, int alreadyDone);

        /** Before a point; {@code eta} is null until one point has been timed. */
        void pointStarted(Point point, int ordinal, int points, Duration elapsed, Duration eta);

        /** After a point, measured or failed. */
        void pointFinished(PointResult result, int ordinal, int points);

        /**
         * Before each round of a group ({@code "short-cs-virtual x8"}): its number from 1, and the rounds the group's
         * pilot planned (0 while unknown).
         */
        default void roundStarted(String group, int round, int planned) {
        }

        /** Anything else worth saying (waiting for a lock, a redrawn report). */
        void notice(String text);
    }

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * How a run measures its groups in rounds and when a group has enough (issue 73; docs/verdict-method.md,
     * {@link RoundPlan}).
     *
     * @param precision the half-width each compared ratio's interval should reach (0.05 for ±5%), or NaN to run
     *                  each group a fixed number of rounds: {@code maxRounds}, or its bench's {@code forks}
     * @param pilot     the rounds that plan a group's rest
     * @param maxRounds the most rounds of a group, or 0 for its bench's {@code forks}
     * @param budget    the time the whole run may spend measuring, shared among its groups pass by pass
     *                  (see the class comment); null for no limit
     * @param seed      the seed of the rounds' orders, recorded in {@code run.json}
     */
    public record Method(double precision, int pilot, int maxRounds, Duration budget, long seed) {
        public static final double DEFAULT_PRECISION = 0.05;
        public static final int DEFAULT_PILOT = 4;
        public static final int DEFAULT_MAX_ROUNDS = 30;

        /** Rounds until every ratio is within ±5% (a pilot of 4 rounds plans them), at most 30, no time limit. */
        public static Method precise(long seed) {
            return new Method(DEFAULT_PRECISION, DEFAULT_PILOT, DEFAULT_MAX_ROUNDS, null, seed);
        }

        /** As many rounds as each bench's {@code forks}, interleaved; no time limit. */
        public static Method fixedRounds(long seed) {
            return new Method(Double.NaN, DEFAULT_PILOT, 0, null, seed);
        }

        /** This method with another budget (null for none). */
        public Method withBudget(Duration newBudget) {
            return new Method(precision, pilot, maxRounds, newBudget, seed);
        }

        /** The most rounds of a group of {@code bench}. */
        int capFor(BenchDefinition bench) {
            return maxRounds > 0 ? maxRounds : Math.max(1, bench.forks());
        }
    }

    private final BenchConfig config;
    private final Path out;
    private final boolean resume;
    private final PointExecutor executor;
    private final Listener listener;
    /**
     * {@link #NEW}, {@link #RUNNING} (this runner holds the directory's lock), {@link #CUT_SHORT} (the run
     * ended, or is ending, because of {@link #stop()}) or {@link #ENDED} (it ended on its own, or never
     * started): what {@link #abandon()} reports and cleans up, whatever the order in which the stop, the
     * end of the run and the shutdown hook come.
     */
    private final AtomicInteger state = new AtomicInteger(NEW);
    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int CUT_SHORT = 2;
    private static final int ENDED = 3;
    /** Set by the one {@link #abandon()} that reports. */
    private final AtomicBoolean reported = new AtomicBoolean();
    /** Whether the last {@link #run()} found every point measured and the run finished, and wrote nothing. */
    private volatile boolean nothingToResume;
    /** Counted down by {@link #stop()}: no point starts or is recorded after it. */
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    /** Counted down when {@link #run()} has let go of the directory. */
    private final CountDownLatch runEnded = new CountDownLatch(1);
    private final Duration stopGrace;
    private Method method = Method.fixedRounds(0);

    /** How long {@link #abandon()} waits for the point in progress to end once its JVMs are stopped. */
    static final Duration STOP_WAIT = Duration.ofSeconds(10);

    public BenchRunner(BenchConfig config, Path out, boolean resume, PointExecutor executor, Listener listener) {
        this(config, out, resume, executor, listener, executor.stopGrace());
    }

    BenchRunner(BenchConfig config, Path out, boolean resume, PointExecutor executor, Listener listener, Duration stopGrace) {
        this.config = config;
        this.out = out;
        this.resume = resume;
        this.executor = executor;
        this.listener = listener;
        this.stopGrace = stopGrace;
    }

    /** Sets how the groups are measured in rounds; call before {@link #run()}. */
    public BenchRunner withMethod(Method m) {
        this.method = java.util.Objects.requireNonNull(m, "method");
        return this;
    }

    /** Every point of the configuration, in run order. */
    public static List<Point> points(BenchConfig config) {
        List<Point> points = new ArrayList<>();
        for (BenchDefinition bench : config.activeBenches()) {
            for (int threads : bench.threads()) {
                for (String lock : bench.locks()) {
                    points.add(new Point(bench, lock, threads));
                }
            }
        }
        return points;
    }

    /**
     * Runs every point not already done and writes the report.
     *
     * @return the rows of this configuration's points, in run order
     * @throws IllegalStateException if the directory has results and {@code resume} is off, or another run
     *         is writing it
     */
    public List<PointResult> run() throws IOException, InterruptedException {
        boolean locked = false;
        try {
            if (stopped()) {
                return List.of(); // stopped before it started: the JVM is going away
            }
            Files.createDirectories(out);
            try (FileChannel channel = FileChannel.open(out.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock lock = tryLock(channel)) {
                if (lock == null) {
                    throw new IllegalStateException("another ./numaloom bench is writing " + out
                            + "; wait for it to finish, or choose another --out");
                }
                // A stop that came before this point finds NEW and the run does not start.
                if (!state.compareAndSet(NEW, RUNNING)) {
                    return List.of();
                }
                locked = true;
                try {
                    return runLocked();
                } finally {
                    Files.deleteIfExists(out.resolve(LOCK_FILE));
                }
            }
        } finally {
            if (locked) {
                state.set(stopped() ? CUT_SHORT : ENDED);
            } else {
                state.compareAndSet(NEW, ENDED);
            }
            runEnded.countDown();
        }
    }

    /**
     * Whether the last {@link #run()}, a resumed one, found every point measured and the run finished,
     * and so wrote nothing (not even {@code machine.json}, {@code run.json} or the report).
     */
    public boolean nothingToResume() {
        return nothingToResume;
    }

    /** Whether the run ended, or is ending, because of {@link #stop()}, with points left to measure. */
    public boolean cutShort() {
        return state.get() == CUT_SHORT || state.get() == RUNNING && stopped();
    }

    /** Asks the run to end between points (from any thread); the point in progress is not recorded. */
    public void stop() {
        stopRequested.countDown();
    }

    /** Whether {@link #stop()} was called: {@link #run()} then returns the rows of the points done before. */
    public boolean stopped() {
        return stopRequested.getCount() == 0;
    }

    /**
     * Ends a run that is being stopped (Ctrl-C; called from a shutdown hook while {@link #run()} is
     * still measuring, after the measured JVMs were told to stop): stops the run, waits for the point in
     * progress to end, writes the report of the points done, removes the point's work and the directory's
     * lock file.
     *
     * <p>It reports whether the run is still measuring or has already ended because of the stop (the
     * measured JVM, which Ctrl-C reaches too, can die and the run end before the hook gets here), once.
     *
     * @return what the user needs to know (points done, the command that continues the run), or null if
     *         no run was in progress, the run ended on its own, or another call reported
     */
    public String abandon() {
        stop();
        if (state.compareAndSet(NEW, ENDED) || state.get() == ENDED) {
            return null; // never started (and now never will), or ended on its own
        }
        try {
            if (!runEnded.await(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                listener.notice("the point in progress did not end within " + STOP_WAIT.toSeconds() + " s; cleaning up anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (state.get() == ENDED || !reported.compareAndSet(false, true)) {
            return null; // it ended on its own just before the stop, or another call reported
        }
        long done = 0;
        try {
            List<String> keys = points(config).stream().map(Point::key).toList();
            done = ResultStore.load(out).stream().filter(r -> r.ok() && keys.contains(r.key())).count();
            renderReport();
            deleteRecursively(out.resolve("work"));
            Files.deleteIfExists(out.resolve(LOCK_FILE));
        } catch (IOException | RuntimeException e) {
            listener.notice("could not clean up " + out + ": " + e);
        }
        return "stopped with " + done + " of " + points(config).size() + " points measured (the report in " + out
                + " shows them); continue with: ./numaloom bench --resume --out " + out;
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    private List<PointResult> runLocked() throws IOException, InterruptedException {
        if (!resume && !ResultStore.load(out).isEmpty()) {
            throw new IllegalStateException(out + " already holds results; add --resume to continue that run, "
                    + "or choose another --out");
        }
        Instant firstStarted = resume ? checkSameConfiguration() : null;
        if (resume && finishedWithEveryPointMeasured()) {
            nothingToResume = true; // read only: ResultStore.open would rewrite results.csv
            List<PointResult> rows = ResultStore.load(out);
            return points(config).stream()
                    .flatMap(p -> rows.stream().filter(r -> r.key().equals(p.key())).limit(1)).toList();
        }
        List<Session> sessions = new ArrayList<>(resume ? earlierSessions(firstStarted) : List.of());
        Files.writeString(out.resolve(ResultsDirectory.CONFIG_FILE), config.effective().toPrettyString() + "\n");
        Instant sessionStarted = Instant.now();
        Double load = Session.loadAverageNow(); // before the probe, whose spinning threads would count
        MachineStalls stalls = executor.probeStalls();
        if (stalls != null) {
            listener.notice("machine stalls: " + stalls.describe()
                    + " (acquire waits shorter than that may be the machine's, not the lock's)");
        }
        Session session = new Session(sessions.size() + 1, sessionStarted.truncatedTo(ChronoUnit.SECONDS).toString(), stalls,
                load, Runtime.getRuntime().availableProcessors());
        if (session.number() > 1) {
            listener.notice("this is " + session.brief() + " of the run; earlier: "
                    + String.join("; ", sessions.stream().map(Session::brief).toList())
                    + ". Points are compared only with points of their own session; the report marks the others");
        }
        sessions.add(session);
        MachineInfo.collect(sessions).writeTo(out);
        ResultStore store = ResultStore.open(out);
        List<Point> points = points(config);
        List<Point> todo = new ArrayList<>();
        for (Point p : points) {
            boolean done = store.find(p.key())
                    .filter(r -> r.ok() && r.fingerprint().equals(p.fingerprint()))
                    .isPresent();
            if (!done) {
                todo.add(p);
            }
        }
        Instant started = firstStarted != null ? firstStarted : Instant.now();
        writeRunFile(started, null, points.size());
        listener.runStarted(out, points.size(), points.size() - todo.size());

        // A group (one bench at one thread count) is measured whole, in rounds: its rows pair by round, so a group
        // with any point left is measured again, every lock of it.
        List<List<Point>> groups = groups(points).stream()
                .filter(g -> g.stream().anyMatch(todo::contains)).toList();
        Map<String, Long> remainingPerBench = new LinkedHashMap<>();
        groups.forEach(g -> remainingPerBench.merge(g.getFirst().bench().id(), 1L, Long::sum));
        long startNanos = System.nanoTime();
        int[] finished = {points.size() - groups.stream().mapToInt(List::size).sum()};
        // Server load levels take their rate from a closed-loop group, which must be over before they begin.
        List<List<Point>> first = groups.stream().filter(g -> !dependsOnAnotherGroup(g)).toList();
        List<List<Point>> then = groups.stream().filter(BenchRunner::dependsOnAnotherGroup).toList();
        for (List<List<Point>> phase : List.of(first, then)) {
            if (phase.isEmpty()) {
                continue;
            }
            if (!measureInPasses(phase, store, points, startNanos, row -> {
                finished[0]++;
                store.add(row.withSession(session.number()));
                listener.pointFinished(row, finished[0], points.size());
            }, benchId -> {
                if (remainingPerBench.merge(benchId, -1L, Long::sum) == 0 && remainingPerBench.values().stream().anyMatch(n -> n > 0)) {
                    renderReport();
                }
            })) {
                break; // cut short by the stop: --resume measures the groups not recorded again
            }
        }
        if (stopped()) {
            return doneRows(points, store); // abandon() reports and cleans up
        }
        writeRunFile(started, Instant.now(), points.size());
        deleteRecursively(out.resolve("work")); // each point removed its own; what is left is the class caches
        renderReport();
        return doneRows(points, store);
    }

    /**
     * The sessions a resumed run had before this one, from its {@code machine.json}; a directory written before sessions
     * were recorded had one, whose probe is that file's and whose start is the run's ({@code firstStarted}). None where
     * the directory holds neither a machine file nor a row (nothing was measured).
     */
    private List<Session> earlierSessions(Instant firstStarted) throws IOException {
        MachineInfo before;
        try {
            before = MachineInfo.readFrom(out);
        } catch (IOException e) {
            before = null; // unreadable: what is known of the earlier sessions is their rows
        }
        if (before != null && before.sessions() != null && !before.sessions().isEmpty()) {
            return before.sessions();
        }
        if (before == null && ResultStore.load(out).isEmpty()) {
            return List.of();
        }
        return List.of(new Session(1, firstStarted == null ? null : firstStarted.truncatedTo(ChronoUnit.SECONDS).toString(),
                before == null ? null : before.stalls(), null, before == null ? 0 : before.cpus()));
    }

    /** Whether {@code run.json} says the run finished and every point has an {@code ok} row of its bench. */
    private boolean finishedWithEveryPointMeasured() throws IOException {
        Path run = out.resolve(ResultsDirectory.RUN_FILE);
        if (!Files.exists(run) || !JSON.readTree(run.toFile()).hasNonNull("finished")) {
            return false;
        }
        Map<String, PointResult> rows = new LinkedHashMap<>();
        ResultStore.load(out).forEach(r -> rows.put(r.key(), r));
        for (Point p : points(config)) {
            PointResult r = rows.get(p.key());
            if (r == null || !r.ok() || !r.fingerprint().equals(p.fingerprint())) {
                return false;
            }
        }
        return true;
    }

    private static List<PointResult> doneRows(List<Point> points, ResultStore store) {
        List<PointResult> rows = new ArrayList<>();
        for (Point p : points) {
            store.find(p.key()).ifPresent(rows::add);
        }
        return rows;
    }

    /** The points in groups of one bench at one thread count, in run order. */
    static List<List<Point>> groups(List<Point> points) {
        Map<String, List<Point>> groups = new LinkedHashMap<>();
        for (Point p : points) {
            groups.computeIfAbsent(p.bench().id() + "/" + p.threads(), k -> new ArrayList<>()).add(p);
        }
        return List.copyOf(groups.values());
    }

    /** Whether a group's points take their rate from another group's result ({@link LoopbackServer#SATURATION_FROM}). */
    private static boolean dependsOnAnotherGroup(List<Point> group) {
        return !group.getFirst().bench().settings().values().path(LoopbackServer.SATURATION_FROM).asText("").isEmpty();
    }

    /** Receives what the passes produce. */
    private interface IoConsumer<T> {
        void accept(T value) throws IOException;
    }

    /**
     * Measures groups in passes: each pass runs one round of every group that wants another ({@link RoundPlan}), so a
     * group's rounds spread over the whole run, not over one stretch of it, and a change of the machine's weather
     * during the run falls on every group's rounds, not on some groups' (A. Abedi and T. Brecht, ICPE 2017: randomized
     * multiple interleaved trials; the trials here are the passes). A group whose plan has stopped is recorded at once,
     * so a run cut short keeps every group finished before the stop.
     *
     * <p>The budget is the run's: a group stops before a round that, at its mean round time so far, would end after the
     * budget, once it has two rounds; the groups still wanting rounds share what is left pass by pass, so a group whose
     * ratios are noisier gets the rounds the precise ones no longer need.
     *
     * @return false if the run was stopped meanwhile
     */
    private boolean measureInPasses(List<List<Point>> groups, ResultStore store, List<Point> points, long runStartNanos,
                                    IoConsumer<PointResult> recorded, IoConsumer<String> groupDone)
            throws IOException, InterruptedException {
        List<GroupRun> pending = new ArrayList<>();
        for (List<Point> g : groups) {
            pending.add(new GroupRun(g, store, points.indexOf(g.getFirst())));
        }
        while (!pending.isEmpty()) {
            for (java.util.Iterator<GroupRun> it = pending.iterator(); it.hasNext(); ) {
                GroupRun g = it.next();
                if (stopped()) {
                    return false;
                }
                // Asked again once the round is over: a group that has its rounds is recorded at once, not a pass later.
                if (g.plan.wantsAnotherRound(Duration.ofNanos(System.nanoTime() - runStartNanos))) {
                    if (!g.runRound(runStartNanos, points.size())) {
                        return false;
                    }
                    if (g.plan.wantsAnotherRound(Duration.ofNanos(System.nanoTime() - runStartNanos))) {
                        continue;
                    }
                }
                for (PointResult row : g.rows()) {
                    recorded.accept(row);
                }
                groupDone.accept(g.bench.id());
                it.remove();
            }
        }
        return true;
    }

    /**
     * One group measured in rounds ({@link RoundPlan}): each round runs one fork of each of its locks in the round's
     * shuffled order. A lock whose fork fails is not run again; its row fails.
     */
    private final class GroupRun {
        final BenchDefinition bench;
        final List<Point> group;
        final List<String> locks;
        final RoundPlan plan;
        final Map<String, LockForks> forks = new LinkedHashMap<>();
        /** The ordinal of the group's first point among the run's points, from 0. */
        final int firstOrdinal;

        GroupRun(List<Point> group, ResultStore store, int firstOrdinal) {
            this.group = group;
            this.bench = group.getFirst().bench();
            this.locks = group.stream().map(Point::lock).toList();
            this.firstOrdinal = firstOrdinal;
            String baseline = io.numaloom.bench.report.Summary.baselineOf(bench);
            String reference = locks.contains(baseline) ? baseline : locks.getFirst();
            long groupSeed = method.seed() ^ (bench.id() + "/" + group.getFirst().threads()).hashCode() * 0x9E3779B97F4A7C15L;
            this.plan = new RoundPlan(locks, reference, groupSeed, method.pilot(), method.precision(),
                    method.capFor(bench), method.budget() == null ? Duration.ofDays(365) : method.budget());
            for (Point p : group) {
                forks.put(p.lock(), new LockForks(p, store));
            }
        }

        /** Runs the group's next round; false if the run was stopped meanwhile (the round is then not recorded). */
        boolean runRound(long runStartNanos, int pointCount) throws IOException, InterruptedException {
            int round = plan.rounds();
            long roundStart = System.nanoTime();
            Map<String, Double> means = new LinkedHashMap<>();
            listener.roundStarted(bench.id() + " x" + group.getFirst().threads(), round + 1, plan.plannedKnown());
            for (String lock : plan.order(round)) {
                LockForks f = forks.get(lock);
                if (f.failure != null) {
                    continue;
                }
                Duration elapsed = Duration.ofNanos(System.nanoTime() - runStartNanos);
                listener.pointStarted(f.point, firstOrdinal + locks.indexOf(lock) + 1, pointCount, elapsed, null);
                if (f.started == null) {
                    f.started = Instant.now();
                }
                long t0 = System.nanoTime();
                Path work = out.resolve("work").resolve(f.point.fileStem());
                Path log = roundLog(f.point, round);
                deleteRecursively(work);
                Files.createDirectories(work);
                Files.createDirectories(log.getParent());
                try {
                    Point oneFork = new Point(f.point.bench().withForks(1), lock, f.point.threads());
                    PointExecutor.Measurement m = executor.measure(oneFork, work, log);
                    f.times.addAll(m.forkRoundTimesMs());
                    f.reports.addAll(m.forkReports());
                    double mean = forkMean(m);
                    if (Double.isFinite(mean)) {
                        means.put(lock, mean);
                    }
                } catch (PointExecutor.PointFailedException e) {
                    List<ForkReport> reports = ForkReport.readAll(work);
                    String reason = reports.stream().map(ForkReport::error).filter(r -> r != null).findFirst().orElse(e.getMessage());
                    f.failure = reason + (Files.exists(log) ? " (log: " + pointLog(f.point) + ")" : "")
                            + (round > 0 ? " in round " + (round + 1) : "");
                }
                deleteRecursively(work);
                f.seconds += seconds(t0);
                if (stopped() || f.failure != null && stopRequested.await(stopGrace.toMillis(), TimeUnit.MILLISECONDS)) {
                    return false;
                }
            }
            plan.recordRound(means, Duration.ofNanos(System.nanoTime() - roundStart));
            return true;
        }

        /** The group's rows, in its order, once its plan has stopped; its round logs joined into each point's log. */
        List<PointResult> rows() throws IOException {
            List<PointResult> rows = new ArrayList<>();
            for (Point p : group) {
                joinRoundLogs(p, plan.rounds());
                LockForks f = forks.get(p.lock());
                Instant at = f.started != null ? f.started : Instant.now();
                PointResult row = f.failure != null ? PointResult.failed(p, f.failure, at, f.seconds)
                        : PointResult.measured(p, f.times, f.reports, at, f.seconds);
                List<Double> series = new ArrayList<>();
                for (double v : plan.series(p.lock())) {
                    series.add(Double.isFinite(v) ? v : null);
                }
                PointResult measured = row.withRounds(series, plan.stop().label(), method.pilot());
                PointResult.RoundWaits waits = f.failure != null ? null : PointResult.roundWaits(f.reports, measured.roundSeries());
                rows.add(waits == null ? measured : measured.withRoundLatencies(waits.maxNs(), waits.p999Ns()));
            }
            return rows;
        }
    }

    /** What one lock of a group has gathered over its rounds. */
    private static final class LockForks {
        /** The point as measured ({@link #measuredPoint}). */
        final Point point;
        final List<List<Double>> times = new ArrayList<>();
        final List<ForkReport> reports = new ArrayList<>();
        /** Why the lock failed (it then runs no more rounds), or null. */
        String failure;
        Instant started;
        double seconds;

        LockForks(Point p, ResultStore store) {
            Point[] measured = new Point[1];
            this.failure = measuredPoint(p, store, measured);
            this.point = measured[0];
        }
    }

    /** The log of a point: its rounds' logs, one after another. */
    private Path pointLog(Point point) {
        return out.resolve("logs").resolve(point.fileStem() + ".log");
    }

    private Path roundLog(Point point, int round) {
        return out.resolve("logs").resolve(point.fileStem() + ".round-" + (round + 1) + ".log");
    }

    /** Joins a point's round logs into its log, each under a heading, and removes them. */
    private void joinRoundLogs(Point point, int rounds) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < rounds; r++) {
            Path log = roundLog(point, r);
            if (Files.exists(log)) {
                sb.append("=== round ").append(r + 1).append(" ===").append(System.lineSeparator())
                        .append(Files.readString(log));
                Files.delete(log);
            }
        }
        if (!sb.isEmpty()) {
            Files.writeString(pointLog(point), sb);
        }
    }

    /**
     * The point a lock of a group is measured as: itself, or, for a server load level with {@code saturationFrom}, the
     * point offered a percent of the rate unfair ReentrantLock reached in the closed-loop bench it names (listed
     * earlier, so measured already), whatever lock it measures. Puts it into {@code measured[0]}; returns why it cannot
     * be measured, or null.
     */
    private static String measuredPoint(Point point, ResultStore store, Point[] measured) {
        String from = point.bench().settings().values().path(LoopbackServer.SATURATION_FROM).asText("");
        PointResult reference = from.isEmpty() ? null : store.find(Point.key(from, LoopbackServer.SATURATION_LOCK, point.threads()))
                .filter(PointResult::ok).orElse(null);
        measured[0] = point;
        if (!from.isEmpty() && reference == null) {
            return point.bench().id() + ": " + LoopbackServer.SATURATION_FROM + " '" + from + "' has no "
                    + "measured " + LoopbackServer.SATURATION_LOCK + " point at " + point.threads() + " threads in this run "
                    + "(it failed, or the run was resumed after it was removed)";
        }
        if (reference != null) {
            measured[0] = new Point(point.bench().withSetting(LoopbackServer.SATURATION_PER_SECOND,
                    Math.max(1L, Math.round(reference.opsPerMs() * 1000))), point.lock(), point.threads());
        }
        return null;
    }

    /** A fork's mean throughput over its measured iterations, ops/ms; NaN if it measured nothing. */
    static double forkMean(PointExecutor.Measurement m) {
        long ops = m.forkReports().stream().mapToLong(ForkReport::operationsPerRound).filter(o -> o > 0).findFirst().orElse(0);
        double sum = 0;
        int n = 0;
        for (List<Double> fork : m.forkRoundTimesMs()) {
            for (double t : fork) {
                if (t > 0) {
                    sum += ops / t;
                    n++;
                }
            }
        }
        return ops == 0 || n == 0 ? Double.NaN : sum / n;
    }

    private void renderReport() {
        try {
            Report.write(out);
        } catch (IOException | RuntimeException e) {
            listener.notice("could not draw the report: " + e);
        }
    }

    /**
     * A run continues only with the configuration it started with: results of two configurations
     * never share a directory (their rows, plots and report would mix). The descriptions may differ.
     *
     * @return when the run first started, from its {@code run.json}, or null if it has none
     * @throws IllegalStateException naming both configurations and the first difference
     */
    private Instant checkSameConfiguration() throws IOException {
        Path stored = out.resolve(ResultsDirectory.CONFIG_FILE);
        JsonNode before = null;
        if (Files.exists(stored)) {
            try {
                before = JSON.readTree(stored.toFile());
            } catch (IOException e) {
                throw new IllegalStateException(stored + " is not readable JSON (" + e.getMessage().lines().findFirst().orElse("")
                        + "); start a new run with another --out");
            }
        }
        String startedFrom = null;
        Instant started = null;
        Path run = out.resolve(ResultsDirectory.RUN_FILE);
        if (Files.exists(run)) {
            JsonNode r = JSON.readTree(run.toFile());
            startedFrom = r.path("config").asText(null);
            started = r.hasNonNull("started") ? Instant.parse(r.get("started").asText()) : null;
        }
        if (before != null) {
            // Through text, as config.json went: a number read back is an int where it was written as a long.
            String difference = firstDifference(before, JSON.readTree(config.effective().toString()));
            if (difference != null) {
                throw new IllegalStateException("cannot resume " + out + " with " + config.source() + ": that run was started with "
                        + (startedFrom == null ? "another configuration" : startedFrom) + " and " + difference + ". Resume it with"
                        + " the configuration it started with (--resume --out " + out + ", without --config), or start a new run"
                        + " (leave out --resume, or choose another --out).");
            }
        }
        return started;
    }

    /** The first difference between two effective configurations, in words, or null if they are the same. */
    static String firstDifference(JsonNode before, JsonNode now) {
        Map<String, JsonNode> old = new LinkedHashMap<>();
        before.path("benches").forEach(b -> old.put(b.path("id").asText(), b));
        List<String> ids = new ArrayList<>();
        for (JsonNode b : now.path("benches")) {
            String id = b.path("id").asText();
            ids.add(id);
            JsonNode was = old.get(id);
            if (was == null) {
                return "has no bench '" + id + "'";
            }
            if (!was.equals(b)) {
                for (Map.Entry<String, JsonNode> f : b.path("payload").properties()) {
                    JsonNode previous = was.path("payload").get(f.getKey());
                    if (!f.getValue().equals(previous)) {
                        return "its bench '" + id + "' had " + f.getKey() + " " + previous + ", not " + f.getValue();
                    }
                }
                return "its bench '" + id + "' differs";
            }
        }
        for (String id : old.keySet()) {
            if (!ids.contains(id)) {
                return "it has a bench '" + id + "' that this configuration lacks";
            }
        }
        return null;
    }

    private void writeRunFile(Instant started, Instant finished, int points) throws IOException {
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("config", config.source());
        run.put("started", started.truncatedTo(ChronoUnit.SECONDS).toString());
        run.put("finished", finished == null ? null : finished.truncatedTo(ChronoUnit.SECONDS).toString());
        run.put("points", points);
        run.put("seed", method.seed());
        run.put("precision", Double.isNaN(method.precision()) ? null : method.precision());
        run.put("pilotRounds", method.pilot());
        run.put("maxRounds", method.maxRounds() > 0 ? method.maxRounds() : null);
        run.put("budgetSeconds", method.budget() == null ? null : method.budget().toSeconds());
        JSON.writeValue(out.resolve(ResultsDirectory.RUN_FILE).toFile(), run);
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
