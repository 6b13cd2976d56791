package io.numaloom.bench.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaloom.bench.Mutex;
import io.numaloom.bench.Point;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.run.BenchRunner;
import io.numaloom.bench.run.JmhPointExecutor;
import io.numaloom.bench.workloads.UserSection;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.CodeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Your critical section, measured under every lock of the bench: which lock for <em>your</em> code.
 *
 * <pre>{@code
 * List<PointResult> rows = LockMatrix.of(MyWork::run)           // what runs under the lock today
 *         .locks("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED")
 *         .threads(1, 8, 32)
 *         .virtual()
 *         .run(Path.of("results/mywork"));                     // results.csv, index.html, plots, summary.csv
 * }</pre>
 *
 * <p>Each point (lock x thread count x thread type) is measured as {@code ./numaloom bench} measures its own
 * workloads, by the same runner: JMH single-shot rounds of {@link #operations(long) operations} critical sections split
 * evenly over the threads, started together; warm-up rounds; the bench's statistics and 95% intervals; the
 * acquire-latency, fairness and allocation columns; the report. Every acquisition is counted inside and outside the
 * lock, so a lock that let two threads in fails its point; nothing is checked about your data, which only you know.
 *
 * <p>Two forms:
 * <ul>
 * <li>{@link #of(Runnable)}: any {@code Runnable}, a lambda or a method reference, measured in this JVM (JMH without
 *     forks: one JVM for all points, whose JIT has seen the other locks before each point, and this JVM's flags). The
 *     same object runs in every round of every point, so its state carries over: reset it yourself if it grows;</li>
 * <li>{@link #of(Class)} and {@link #ofClass(String, List)}: a public class with a public no-argument constructor that
 *     implements {@code Runnable}, measured in fresh JVMs per point ({@link #forks(int)}), each round on a new
 *     instance shared by all its threads. This is what {@code ./numaloom bench --workload-class} runs.</li>
 * </ul>
 *
 * <p>Defaults: locks VNA, UNFAIR_REENTRANT and SYNCHRONIZED ({@link #DEFAULT_LOCKS}); 1, the CPU count and 4 x the CPU count threads; virtual and
 * platform threads (call {@link #virtual()}, {@link #platform()} or both to choose); {@value #DEFAULT_OPERATIONS}
 * operations per round; the bench's warm-up and measured rounds and one fork; a round that takes over
 * {@value #DEFAULT_TIMEOUT_SECONDS} s fails its point ({@link #timeout(int)}). A builder: not thread-safe.
 */
public final class LockMatrix {
    /** The locks measured when {@link #locks(String...)} is not called. */
    public static final List<String> DEFAULT_LOCKS = List.of("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED");
    /** Critical sections per round when {@link #operations(long)} is not called. */
    public static final long DEFAULT_OPERATIONS = 100_000;
    /**
     * The longest a round may take, in seconds, when {@link #timeout(int)} is not called: a section that never returns
     * fails its point in about a minute (the bench's own workloads wait up to 600 s).
     */
    public static final int DEFAULT_TIMEOUT_SECONDS = 60;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The in-process section, or null for a class. */
    private final Runnable section;
    /** Its registration id in this JVM, or null. */
    private final String sectionId;
    private final String className;
    private final List<Path> classpath;
    private String name;
    private Runnable outside;
    private String outsideMethod = "";
    private List<String> locks = DEFAULT_LOCKS;
    private List<Integer> threads;
    private boolean virtual;
    private boolean platform;
    private Long operations;
    private Integer warmups;
    private Integer rounds;
    private Integer forks;
    private int timeout = DEFAULT_TIMEOUT_SECONDS;
    private boolean quick;
    private PrintStream progress;
    private Double precision;
    private Duration budget;
    private Long seed;

    private LockMatrix(Runnable section, String className, List<Path> classpath, String name) {
        this.section = section;
        this.sectionId = section == null ? null : UserSection.newId();
        this.className = className;
        this.classpath = classpath;
        this.name = name;
    }

    /**
     * A matrix of {@code criticalSection}, measured in this JVM. All threads run this one object.
     *
     * @param criticalSection what each thread runs holding the lock (the body of your {@code synchronized} block)
     */
    public static LockMatrix of(Runnable criticalSection) {
        return new LockMatrix(Objects.requireNonNull(criticalSection, "criticalSection"), null, List.of(), "section");
    }

    /**
     * A matrix of a class's {@code run()}, measured in fresh JVMs: each round makes one instance with its public
     * no-argument constructor, shared by all the round's threads. The measured JVMs load the class from where this JVM
     * found it.
     *
     * @throws IllegalArgumentException if the class is not public, is abstract, or has no public no-argument constructor
     */
    public static LockMatrix of(Class<? extends Runnable> type) {
        Objects.requireNonNull(type, "type");
        List<Path> where = List.of();
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source != null && source.getLocation() != null && "file".equals(source.getLocation().getProtocol())) {
            try {
                where = List.of(Path.of(source.getLocation().toURI()));
            } catch (URISyntaxException e) {
                where = List.of();
            }
        }
        return ofClass(type.getName(), where);
    }

    /**
     * A matrix of the {@code run()} of the class {@code className} from {@code classpath} (jar files or class
     * directories; empty for the bench's own class path), measured in fresh JVMs as {@link #of(Class)}.
     *
     * @throws IllegalArgumentException naming the argument: an entry of {@code classpath} that does not exist, a class
     *         that is not there, is not a {@code Runnable}, is not public and concrete, or has no public no-argument
     *         constructor
     */
    public static LockMatrix ofClass(String className, List<Path> classpath) {
        Objects.requireNonNull(className, "className");
        List<Path> paths = new ArrayList<>();
        for (Path p : classpath) {
            paths.add(p.toAbsolutePath().normalize());
        }
        UserSection.classpath(String.join(File.pathSeparator, paths.stream().map(Path::toString).toList()), "classpath");
        UserSection.check(className, paths, "className", "classpath");
        String simple = className.strip().substring(className.strip().lastIndexOf('.') + 1).replace('$', '.');
        return new LockMatrix(null, className.strip(), List.copyOf(paths), simple);
    }

    /** The locks to compare (names of {@link Locks#mutexNames()}), in the plots' order. */
    public LockMatrix locks(String... names) {
        if (names.length == 0) {
            throw new IllegalArgumentException("locks: name at least one; known: " + String.join(", ", Mutex.names()));
        }
        for (String n : names) {
            if (!Mutex.names().contains(n)) {
                throw new IllegalArgumentException("locks: unknown lock '" + n + "'; known: " + String.join(", ", Mutex.names()));
            }
        }
        this.locks = List.copyOf(new java.util.LinkedHashSet<>(Arrays.asList(names)));
        return this;
    }

    /** The thread counts to measure each lock at. */
    public LockMatrix threads(int... counts) {
        if (counts.length == 0) {
            throw new IllegalArgumentException("threads: give at least one thread count");
        }
        TreeSet<Integer> sorted = new TreeSet<>();
        for (int c : counts) {
            if (c < 1) {
                throw new IllegalArgumentException("threads: a thread count must be >= 1, got " + c);
            }
            sorted.add(c);
        }
        this.threads = List.copyOf(sorted);
        return this;
    }

    /** Measure on virtual threads (with {@link #platform()}: on both; with neither: both). */
    public LockMatrix virtual() {
        this.virtual = true;
        return this;
    }

    /** Measure on platform threads (with {@link #virtual()}: on both; with neither: both). */
    public LockMatrix platform() {
        this.platform = true;
        return this;
    }

    /**
     * Work each thread does outside the lock before each acquisition (what your code does between two critical
     * sections: the less of it, the more contention). {@link #of(Runnable)} only.
     *
     * @throws IllegalStateException for a class measured in fresh JVMs, which cannot be handed a lambda
     */
    public LockMatrix outside(Runnable work) {
        if (section == null) {
            throw new IllegalStateException("outside: only LockMatrix.of(Runnable) takes a Runnable as work outside the lock; "
                    + "a class measured in fresh JVMs names a method of its own: outsideMethod(name)");
        }
        this.outside = Objects.requireNonNull(work, "work");
        return this;
    }

    /**
     * Work outside the lock for a class measured in fresh JVMs ({@link #of(Class)}): the name of a public no-argument
     * instance method of the class, which every thread calls on the round's shared instance before each acquisition,
     * without any lock (so it runs in all threads at once and must be safe to: local work, or state of its own that is
     * thread-safe). Its result, if any, is dropped.
     *
     * @throws IllegalStateException for {@link #of(Runnable)}, which takes {@link #outside(Runnable)}
     * @throws IllegalArgumentException when the class has no such method
     */
    public LockMatrix outsideMethod(String name) {
        if (section != null) {
            throw new IllegalStateException("outsideMethod: a Runnable measured in this JVM takes its outside work as "
                    + "outside(Runnable)");
        }
        Objects.requireNonNull(name, "name");
        UserSection.check(className, classpath, "className", "classpath", name, "outsideMethod");
        this.outsideMethod = name.strip();
        return this;
    }

    /** Critical sections per round, over all threads (at least the largest thread count). */
    public LockMatrix operations(long perRound) {
        if (perRound < 1) {
            throw new IllegalArgumentException("operations: must be >= 1, got " + perRound);
        }
        this.operations = perRound;
        return this;
    }

    /** Unmeasured warm-up rounds per point (per fork). */
    public LockMatrix warmups(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("warmups: must be >= 0, got " + count);
        }
        this.warmups = count;
        return this;
    }

    /** Measured rounds per point (per fork). */
    public LockMatrix rounds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("rounds: must be >= 1, got " + count);
        }
        this.rounds = count;
        return this;
    }

    /**
     * The longest one round may take, in seconds (1 to 600; default {@value #DEFAULT_TIMEOUT_SECONDS}): a round still
     * running then fails its point, its threads' stacks in the reason, and the run goes on with the next point.
     */
    public LockMatrix timeout(int seconds) {
        if (seconds < 1 || seconds > 600) {
            throw new IllegalArgumentException("timeout: must be 1 to 600 seconds, got " + seconds);
        }
        this.timeout = seconds;
        return this;
    }

    /**
     * Fresh JVMs per point, for {@link #of(Class)} and {@link #ofClass(String, List)}.
     *
     * @throws IllegalStateException for {@link #of(Runnable)}, which is measured in this JVM
     */
    public LockMatrix forks(int count) {
        if (section != null) {
            throw new IllegalStateException("forks: a Runnable handed to LockMatrix.of is measured in this JVM; for fresh JVMs per "
                    + "point use LockMatrix.of(MyWork.class), a public class with a public no-argument constructor");
        }
        if (count < 1) {
            throw new IllegalArgumentException("forks: must be >= 1, got " + count);
        }
        this.forks = count;
        return this;
    }

    /**
     * A first look, as {@code ./numaloom bench --quick}: one fork, at most one warm-up and two measured rounds, a tenth
     * of the operations. Its intervals are wide: do not choose a lock on it.
     */
    public LockMatrix quick() {
        this.quick = true;
        return this;
    }

    /**
     * How closely each lock's ratio to unfair {@code ReentrantLock} must be known, in percent ({@code 5}: ±5%, the
     * default), for {@link #of(Class)} and {@link #ofClass(String, List)}: the locks of each thread count are measured in
     * interleaved rounds, one fresh JVM of each per round, until every ratio's 95% interval is that narrow or the
     * {@link #budget(Duration)} is spent (docs/verdict-method.md). A {@code Runnable} measured in this JVM gets no
     * verdict: its rounds share one JVM, and are not independent.
     */
    public LockMatrix precision(double percent) {
        if (!(percent >= 0.1 && percent <= 50)) {
            throw new IllegalArgumentException("precision: a percentage from 0.1 to 50, got " + percent);
        }
        this.precision = percent / 100;
        return this;
    }

    /** The most time the measurement may take, shared among the thread counts; default: none. */
    public LockMatrix budget(Duration limit) {
        if (limit == null || limit.toSeconds() < 10) {
            throw new IllegalArgumentException("budget: at least 10 seconds, got " + limit);
        }
        this.budget = limit;
        return this;
    }

    /** The seed of the rounds' shuffled orders; default: random (the run's {@code run.json} records it). */
    public LockMatrix seed(long value) {
        this.seed = value;
        return this;
    }

    /** The name of the benches (their ids and titles); default: the class's simple name, or {@code section}. */
    public LockMatrix name(String benchName) {
        if (benchName == null || !benchName.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,40}")) {
            throw new IllegalArgumentException("name: letters, digits, '.', '_' or '-' (at most 41), starting with a letter or "
                    + "digit, got " + (benchName == null ? "null" : "'" + benchName + "'"));
        }
        this.name = benchName;
        return this;
    }

    /** Where to say which point runs (one line per point); default: nowhere. */
    public LockMatrix progress(PrintStream out) {
        this.progress = out;
        return this;
    }

    /** The thread types measured, in order. */
    private List<String> threadTypes() {
        if (virtual == platform) {
            return List.of("virtual", "platform");
        }
        return List.of(virtual ? "virtual" : "platform");
    }

    /**
     * The configuration {@link #run(Path)} measures: one bench of the {@code runnable} workload per thread type, with the
     * chosen locks and thread counts (what {@code config.json} of the run holds).
     *
     * @throws IllegalArgumentException if the settings do not make a valid configuration (e.g. fewer operations than
     *         threads); the message names the setting
     */
    public BenchConfig config() {
        ObjectNode root = JSON.createObjectNode();
        String what = section != null ? "a Runnable measured in this JVM" : className;
        root.put("description", "Your critical section (" + what + ") under each lock");
        ArrayNode benches = root.putArray("benches");
        for (String type : threadTypes()) {
            ObjectNode bench = benches.addObject();
            bench.put("name", "runnable");
            bench.put("id", name + "-" + type);
            ObjectNode payload = bench.putObject("payload");
            payload.put("title", name + ", " + type + " threads");
            payload.put("threadType", type);
            ArrayNode l = payload.putArray("locks");
            locks.forEach(n -> l.addObject().put("name", n));
            List<Integer> counts = threads != null ? threads : defaultThreads();
            ArrayNode t = payload.putArray("threads");
            counts.forEach(t::add);
            payload.put("actionsCount", operations != null ? operations : Math.max(DEFAULT_OPERATIONS, counts.getLast()));
            if (warmups != null) {
                payload.put("warmupIterations", warmups);
            }
            if (rounds != null) {
                payload.put("measurementIterations", rounds);
            }
            payload.put("timeoutSeconds", timeout);
            if (section != null) {
                payload.put(UserSection.SECTION_FIELD, sectionId);
                payload.put("startupCache", false); // no JVM is started,
                payload.putArray("jvmArgs");        // so none gets arguments: the report shows this JVM's
            } else {
                payload.put(UserSection.CLASS_FIELD, className);
                if (!outsideMethod.isEmpty()) {
                    payload.put(UserSection.OUTSIDE_FIELD, outsideMethod);
                }
                payload.put(UserSection.CLASSPATH_FIELD, String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()));
                if (forks != null) {
                    payload.put("forks", forks);
                }
            }
        }
        String source = "LockMatrix of " + (section != null ? "a Runnable" : className);
        try {
            BenchConfig config = ConfigReader.parse(root.toPrettyString(), source);
            return quick ? config.quick() : config;
        } catch (ConfigException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage().strip()
                    + " (operations is actionsCount, rounds is measurementIterations, warmups is warmupIterations)", e);
        }
    }

    /** 1, the CPU count and 4 x the CPU count. */
    private static List<Integer> defaultThreads() {
        int cpus = Runtime.getRuntime().availableProcessors();
        return List.copyOf(new TreeSet<>(List.of(1, Math.max(2, cpus), 4 * cpus)));
    }

    /**
     * Measures every point into {@code out} and writes the report there ({@code index.html}, {@code results.csv},
     * {@code summary.csv}, a plot per thread type), as {@code ./numaloom bench} does.
     *
     * @param out a directory that holds no results yet (it is created if missing)
     * @return one row per lock x thread count x thread type, in run order; a point that failed (an exception of your
     *         section, a violated exclusion) has its reason in {@link PointResult#error()}
     * @throws IllegalStateException if {@code out} already holds results, or another run writes it
     */
    public List<PointResult> run(Path out) throws IOException, InterruptedException {
        Objects.requireNonNull(out, "out");
        BenchConfig config = config();
        BenchRunner.Listener listener = new Progress(progress);
        if (section == null) {
            // Verdicts need independent forks: a class measured in fresh JVMs gets them, and the A/A control's twin.
            if (!quick) {
                try {
                    config = config.withReferenceTwin();
                } catch (ConfigException e) {
                    throw new IllegalArgumentException(e.getMessage(), e);
                }
            }
            long s = seed != null ? seed : new java.security.SecureRandom().nextLong() & 0xFFFF_FFFFL;
            BenchRunner.Method method = quick
                    ? new BenchRunner.Method(Double.NaN, BenchRunner.Method.DEFAULT_PILOT, 1, budget, s)
                    : new BenchRunner.Method(precision != null ? precision : BenchRunner.Method.DEFAULT_PRECISION,
                    BenchRunner.Method.DEFAULT_PILOT, BenchRunner.Method.DEFAULT_MAX_ROUNDS, budget, s);
            List<PointResult> rows = new BenchRunner(config, out, false,
                    new JmhPointExecutor(listener::notice, BenchRunner.aotCacheDir(out)), listener).withMethod(method).run();
            for (String line : verdict(out).lines()) {
                listener.notice(line);
            }
            return rows;
        }
        UserSection.register(sectionId, section, outside);
        try {
            return new BenchRunner(config, out, false, JmhPointExecutor.inThisJvm(listener::notice), listener).run();
        } finally {
            UserSection.unregister(sectionId);
        }
    }

    /**
     * The verdict of a run in {@code out}: the same lines as the end of {@code ./numaloom bench} and the top of its
     * {@code index.html} (every lock against unfair {@code ReentrantLock} with its interval, the A/A control, what to
     * use). {@link #run(Path)} prints it to the {@link #progress(PrintStream) progress} stream too.
     */
    public static io.numaloom.bench.report.Recommendation verdict(Path out) throws IOException {
        return io.numaloom.bench.report.Recommendation.read(out);
    }

    /** One line per point, to a stream or nowhere. */
    private record Progress(PrintStream out) implements BenchRunner.Listener {
        @Override
        public void runStarted(Path dir, int points, int alreadyDone) {
            say("measuring " + points + " points into " + dir);
        }

        @Override
        public void pointStarted(Point point, int ordinal, int points, Duration elapsed, Duration eta) {
            say("[" + ordinal + "/" + points + "] " + point.key());
        }

        @Override
        public void pointFinished(PointResult result, int ordinal, int points) {
            say("[" + ordinal + "/" + points + "] " + result.key() + (result.ok()
                    ? String.format(java.util.Locale.ROOT, ": %.1f ops/ms", result.opsPerMs())
                    : ": failed: " + result.error()));
        }

        @Override
        public void notice(String text) {
            say(text);
        }

        private void say(String line) {
            if (out != null) {
                out.println("lockmatrix: " + line);
            }
        }
    }
}
