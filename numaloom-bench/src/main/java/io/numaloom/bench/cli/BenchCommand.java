package io.numaloom.bench.cli;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.Point;
import io.numaloom.bench.api.LockMatrix;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.locks.KeyedSchemes;
import io.numaloom.bench.report.MachineInfo;
import io.numaloom.bench.report.BestOther;
import io.numaloom.bench.report.Recommendation;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.report.Summary;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import io.numaloom.bench.result.ResultsDirectory;
import io.numaloom.bench.run.BenchRunner;
import io.numaloom.bench.run.ChildProcesses;
import io.numaloom.bench.run.JmhPointExecutor;
import io.numaloom.bench.run.PointExecutor;
import io.numaloom.bench.workloads.UserSection;
import io.numaloom.bench.workloads.WorkloadKind;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** {@code ./numaloom bench}: validates a configuration, runs its points, writes the results and the report. */
final class BenchCommand {
    static final Path RESULTS_ROOT = Path.of("results");

    private final PrintStream out;
    private final PrintStream err;
    private final PointExecutor executor;
    private final Path resultsRoot;

    BenchCommand(PrintStream out, PrintStream err) {
        this(out, err, null, RESULTS_ROOT);
    }

    /** With another executor (tests; null for JMH) and another folder of runs than {@code results/}. */
    BenchCommand(PrintStream out, PrintStream err, PointExecutor executor, Path resultsRoot) {
        this.out = out;
        this.err = err;
        this.executor = executor;
        this.resultsRoot = resultsRoot;
    }

    /**
     * The parsed command line.
     *
     * @param workload your own critical section ({@code --workload-class} and its options), or null for a configuration
     */
    record Args(Path config, boolean quick, Path out, boolean resume, boolean dryRun, boolean help, WorkloadArgs workload,
                Double precision, Duration budget, Long seed, Integer rounds, JmhJarBench.JmhArgs jmh) {
        /** The arguments without the verdict method's options (the defaults apply). */
        Args(Path config, boolean quick, Path out, boolean resume, boolean dryRun, boolean help, WorkloadArgs workload) {
            this(config, quick, out, resume, dryRun, help, workload, null, null, null, null, null);
        }

        static Args parse(String[] args) {
            Path config = null;
            Path out = null;
            boolean quick = false;
            boolean resume = false;
            boolean dryRun = false;
            boolean help = false;
            String workloadClass = null;
            String classpath = null;
            String locks = null;
            String threads = null;
            String operations = null;
            String timeout = null;
            String outside = null;
            boolean virtual = false;
            boolean platform = false;
            Double precision = null;
            Duration budget = null;
            Long seed = null;
            Integer rounds = null;
            String jmhJar = null;
            String jmhParam = null;
            String jmhBenchmark = null;
            String jmhAgent = null;
            List<String> jmhOptions = null;
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals("--")) { // the rest is JMH's
                    jmhOptions = List.of(java.util.Arrays.copyOfRange(args, i + 1, args.length));
                    break;
                }
                if (args[i].equals("--jmh-agent") || args[i].startsWith("--jmh-agent=")) {
                    jmhAgent = args[i].equals("--jmh-agent") ? "" : args[i].substring("--jmh-agent=".length());
                    continue;
                }
                switch (args[i]) {
                    case "--jmh-jar" -> jmhJar = Main.optionValue(args, ++i, "--jmh-jar");
                    case "--jmh-param" -> jmhParam = Main.optionValue(args, ++i, "--jmh-param");
                    case "--jmh-benchmark" -> jmhBenchmark = Main.optionValue(args, ++i, "--jmh-benchmark");
                    case "--precision" -> precision = precision(Main.optionValue(args, ++i, "--precision"));
                    case "--budget" -> budget = budget(Main.optionValue(args, ++i, "--budget"));
                    case "--seed" -> seed = seed(Main.optionValue(args, ++i, "--seed"));
                    case "--rounds" -> rounds = rounds(Main.optionValue(args, ++i, "--rounds"));
                    case "--config", "-c" -> config = Path.of(Main.optionValue(args, ++i, "--config"));
                    case "--out", "-o" -> out = Path.of(Main.optionValue(args, ++i, "--out"));
                    case "--quick", "-q" -> quick = true;
                    case "--resume" -> resume = true;
                    case "--dry-run" -> dryRun = true;
                    case "--help", "-h" -> help = true;
                    case "--workload-class" -> workloadClass = Main.optionValue(args, ++i, "--workload-class");
                    case "--classpath", "-cp" -> classpath = Main.optionValue(args, ++i, "--classpath");
                    case "--locks" -> locks = Main.optionValue(args, ++i, "--locks");
                    case "--threads" -> threads = Main.optionValue(args, ++i, "--threads");
                    case "--operations" -> operations = Main.optionValue(args, ++i, "--operations");
                    case "--timeout" -> timeout = Main.optionValue(args, ++i, "--timeout");
                    case "--outside" -> outside = Main.optionValue(args, ++i, "--outside");
                    case "--virtual" -> virtual = true;
                    case "--platform" -> platform = true;
                    default -> {
                        if (args[i].startsWith("--config=")) {
                            config = Path.of(args[i].substring("--config=".length()));
                        } else if (args[i].startsWith("--out=")) {
                            out = Path.of(args[i].substring("--out=".length()));
                        } else {
                            throw new Main.UsageException("unknown option '" + args[i] + "'");
                        }
                    }
                }
            }
            WorkloadArgs workload = null;
            if (workloadClass != null) {
                if (config != null) {
                    throw new Main.UsageException("--workload-class and --config exclude each other: --workload-class measures "
                            + "your class under " + String.join(", ", LockMatrix.DEFAULT_LOCKS) + " (or --locks); a configuration "
                            + "measures it with a bench of the \"runnable\" workload");
                }
                workload = new WorkloadArgs(workloadClass, classpath == null ? "" : classpath, locks, threads, operations,
                        timeout, outside, virtual, platform);
            } else {
                for (String[] o : new String[][] {{"--classpath", classpath}, {"--locks", locks}, {"--threads", threads},
                        {"--operations", operations}, {"--outside", outside}, {"--virtual", virtual ? "" : null},
                        {"--platform", platform ? "" : null}}) {
                    if (o[1] != null) {
                        throw new Main.UsageException(o[0] + " applies to --workload-class only (a configuration names its "
                                + "locks, threads and work itself)");
                    }
                }
                if (timeout != null) {
                    throw new Main.UsageException("--timeout applies to --workload-class only (a configuration sets "
                            + "\"timeoutSeconds\" in a bench's payload or its defaults)");
                }
            }
            if (rounds != null && precision != null) {
                throw new Main.UsageException("--rounds and --precision exclude each other: --rounds runs that many rounds, "
                        + "--precision plans them");
            }
            JmhJarBench.JmhArgs jmh = null;
            if (jmhJar != null) {
                for (String[] o : new String[][] {{"--config", config == null ? null : ""},
                        {"--workload-class", workloadClass}, {"--quick", quick ? "" : null}, {"--resume", resume ? "" : null},
                        {"--dry-run", dryRun ? "" : null}}) {
                    if (o[1] != null) {
                        throw new Main.UsageException("--jmh-jar and " + o[0] + " exclude each other: --jmh-jar compares the "
                                + "values of a @Param of your JMH benchmarks, in rounds");
                    }
                }
                jmh = JmhJarBench.JmhArgs.of(jmhJar, jmhParam, jmhBenchmark, jmhOptions == null ? List.of() : jmhOptions, jmhAgent);
            } else {
                for (String[] o : new String[][] {{"--jmh-param", jmhParam}, {"--jmh-benchmark", jmhBenchmark}, {"--jmh-agent", jmhAgent},
                        {"--", jmhOptions == null ? null : ""}}) {
                    if (o[1] != null) {
                        throw new Main.UsageException(o[0] + " applies to --jmh-jar only");
                    }
                }
            }
            return new Args(config, quick, out, resume, dryRun, help, workload, precision, budget, seed, rounds, jmh);
        }

        /** {@code 5%} or {@code 5}: ±5%, as a fraction; between 0.1% and 50%. */
        static double precision(String text) {
            String t = text.strip();
            t = t.endsWith("%") ? t.substring(0, t.length() - 1).strip() : t;
            try {
                double percent = Double.parseDouble(t);
                if (percent >= 0.1 && percent <= 50) {
                    return percent / 100;
                }
            } catch (NumberFormatException ignored) {
                // below
            }
            throw new Main.UsageException("--precision must be a percentage from 0.1 to 50 (5 or 5% for +-5%), got '"
                    + text + "'");
        }

        /** {@code 300}, {@code 300s}, {@code 5m} or {@code 1h}: at least 10 seconds. */
        static Duration budget(String text) {
            String t = text.strip().toLowerCase(java.util.Locale.ROOT);
            long unit = t.endsWith("h") ? 3600 : t.endsWith("m") ? 60 : 1;
            String number = t.endsWith("h") || t.endsWith("m") || t.endsWith("s") ? t.substring(0, t.length() - 1) : t;
            try {
                double seconds = Double.parseDouble(number) * unit;
                if (seconds >= 10 && seconds <= 7 * 24 * 3600) {
                    return Duration.ofMillis((long) (seconds * 1000));
                }
            } catch (NumberFormatException ignored) {
                // below
            }
            throw new Main.UsageException("--budget must be a time of at least 10 s (300, 300s, 5m, 1h), got '" + text + "'");
        }

        static long seed(String text) {
            try {
                return Long.parseLong(text.strip());
            } catch (NumberFormatException e) {
                throw new Main.UsageException("--seed must be a whole number, got '" + text + "'");
            }
        }

        static int rounds(String text) {
            try {
                int n = Integer.parseInt(text.strip());
                if (n >= 1 && n <= 1000) {
                    return n;
                }
            } catch (NumberFormatException ignored) {
                // below
            }
            throw new Main.UsageException("--rounds must be a whole number from 1 to 1000, got '" + text + "'");
        }

        /**
         * The verdict method of this command line: rounds planned to {@code --precision} (default ±5%) within
         * {@code --budget} (default: {@code defaultBudget}), or {@code --rounds} fixed rounds, or one round with
         * {@code --quick} (a first look: no interval, no verdict).
         */
        BenchRunner.Method method(Duration defaultBudget) {
            long s = seed != null ? seed : new java.security.SecureRandom().nextLong() & 0xFFFF_FFFFL;
            Duration b = budget != null ? budget : defaultBudget;
            if (rounds != null || quick) {
                return new BenchRunner.Method(Double.NaN, BenchRunner.Method.DEFAULT_PILOT, quick && rounds == null ? 1 : rounds,
                        b, s);
            }
            return new BenchRunner.Method(precision != null ? precision : BenchRunner.Method.DEFAULT_PRECISION,
                    BenchRunner.Method.DEFAULT_PILOT, BenchRunner.Method.DEFAULT_MAX_ROUNDS, b, s);
        }
    }

    /**
     * {@code --workload-class} and the options that go with it, as given; {@code virtual} and {@code platform} restrict the
     * thread types (both or neither: both); {@code timeout} is the longest a round may take, in seconds, or null for
     * {@link LockMatrix#DEFAULT_TIMEOUT_SECONDS}.
     */
    record WorkloadArgs(String className, String classpath, String locks, String threads, String operations,
                        String timeout, String outside, boolean virtual, boolean platform) {

        /** The configuration that measures the class: {@link LockMatrix#config()}. */
        BenchConfig config() {
            List<Path> paths = UserSection.classpath(classpath, "--classpath");
            UserSection.check(className, paths, "--workload-class", "--classpath", outside, "--outside");
            LockMatrix matrix = LockMatrix.ofClass(className, paths);
            try {
                if (outside != null) {
                    matrix.outsideMethod(outside);
                }
                if (locks != null) {
                    matrix.locks(split(locks).toArray(String[]::new));
                }
                if (threads != null) {
                    matrix.threads(split(threads).stream().mapToInt(t -> (int) Math.min(Integer.MAX_VALUE, number(t, "--threads"))).toArray());
                }
                if (operations != null) {
                    matrix.operations(number(operations, "--operations"));
                }
                if (timeout != null) {
                    long seconds = number(timeout, "--timeout");
                    matrix.timeout((int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, seconds)));
                }
                if (virtual) {
                    matrix.virtual();
                }
                if (platform) {
                    matrix.platform();
                }
            } catch (IllegalArgumentException e) {
                // LockMatrix names its method (locks, threads, operations): the option is that name with "--".
                throw new IllegalArgumentException(e.getMessage().startsWith("--") ? e.getMessage() : "--" + e.getMessage());
            }
            return matrix.config();
        }

        private static List<String> split(String list) {
            return java.util.Arrays.stream(list.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
        }

        private static long number(String text, String option) {
            try {
                return Long.parseLong(text.strip().replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + ": not a whole number: '" + text.strip() + "'");
            }
        }
    }

    /** The time the built-in configuration may spend measuring, so that {@code ./numaloom bench} ends in about 5 minutes. */
    static final Duration DEFAULT_BUDGET = Duration.ofSeconds(240);

    /** One line on how the run measures and judges. */
    static String describe(BenchRunner.Method m) {
        String rounds = Double.isNaN(m.precision())
                ? (m.maxRounds() == 1 ? "one round per group: no interval, no verdict (a first look)"
                        : (m.maxRounds() > 0 ? m.maxRounds() : "each bench's forks") + " rounds per group")
                : String.format(java.util.Locale.ROOT, "rounds per group planned by a pilot of %d for ratios within +-%.1f%%, "
                        + "at most %d", m.pilot(), 100 * m.precision(), m.maxRounds());
        return "measuring in interleaved rounds (seed " + m.seed() + "): " + rounds
                + (m.budget() == null ? ", no time budget" : ", within a budget of " + m.budget().toSeconds() + " s")
                + "; --precision, --rounds, --budget and --seed change it";
    }

    int run(String[] argv) {
        Args args = Args.parse(argv);
        if (args.help()) {
            out.print(help());
            return Main.OK;
        }
        if (args.jmh() != null) {
            return new JmhJarBench(out, err, resultsRoot).run(args, argv);
        }
        Path outDir;
        BenchConfig config;
        try {
            outDir = outDir(args);
            config = config(args, outDir);
        } catch (ConfigException e) {
            err.println("numaloom bench: invalid configuration, nothing was run.");
            err.println(e.getMessage());
            return Main.USAGE;
        } catch (IOException e) {
            err.println("numaloom bench: " + e.getMessage());
            return Main.ERROR;
        }
        List<Point> points = BenchRunner.points(config);
        if (args.dryRun()) {
            out.println(config.source() + ": valid, " + points.size() + " points; " + estimate(points, resultsRoot));
            for (Point p : points) {
                out.println("  " + p.key());
            }
            return Main.OK;
        }
        long t0 = System.nanoTime();
        ConsoleProgress progress = new ConsoleProgress(err);
        ChildProcesses children = new ChildProcesses();
        PointExecutor pointExecutor = executor != null ? executor
                : new JmhPointExecutor(progress::notice, BenchRunner.aotCacheDir(outDir), children);
        BenchRunner.Method method = args.method(args.config() == null && args.workload() == null ? DEFAULT_BUDGET : null);
        BenchRunner runner = new BenchRunner(config, outDir, args.resume(), pointExecutor, progress).withMethod(method);
        progress.notice(describe(method));
        // Ctrl-C, SIGTERM: no point starts, no JVM starts, every JVM of the run ends (ChildProcesses#stop), then the
        // run is reported and cleaned up.
        Thread reaper = new Thread(() -> {
            runner.stop();
            List<ProcessHandle> left = children.stop();
            if (!left.isEmpty()) {
                err.println("numaloom bench: could not end " + left.stream().map(p -> Long.toString(p.pid())).toList()
                        + " within " + ChildProcesses.STOP_BOUND_SECONDS + " s");
            }
            String stopped = runner.abandon();
            if (stopped != null) {
                progress.close();
                err.println();
                err.println("numaloom bench: " + stopped);
            }
        }, "numaloom-stop-forks");
        Runtime.getRuntime().addShutdownHook(reaper);
        List<PointResult> rows;
        try {
            rows = runner.run();
        } catch (IllegalStateException e) {
            err.println("numaloom bench: " + e.getMessage());
            return Main.USAGE;
        } catch (IOException e) {
            err.println("numaloom bench: " + e);
            return Main.ERROR;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("numaloom bench: interrupted; resume with --resume --out " + outDir);
            return Main.ERROR;
        } finally {
            progress.close();
            try {
                Runtime.getRuntime().removeShutdownHook(reaper);
            } catch (IllegalStateException shuttingDown) {
                // The hook runs anyway.
            }
        }
        if (runner.nothingToResume()) {
            out.println("numaloom bench: nothing to resume: the run in " + outDir + " finished with all its " + rows.size()
                    + " points measured; it was left as it was. Report: " + outDir.resolve(Report.INDEX));
            return Main.OK;
        }
        if (runner.cutShort()) {
            return Main.STOPPED; // the shutdown hook reports and cleans up
        }
        out.println();
        out.print(Report.textTable(rows, MachineInfo.timerFloorOf(outDir)));
        String summary = Summary.text(Summary.of(config, rows));
        if (!summary.isEmpty()) {
            out.println();
            out.print(summary);
        }
        String versus = BestOther.text(BestOther.of(config, rows));
        if (!versus.isEmpty()) {
            out.println();
            out.print(versus);
        }
        long failed = rows.stream().filter(r -> !r.ok()).count();
        out.println();
        out.print(lastBlock(outDir, config, rows, String.format("%d points, %d failed, in %s. Report: %s", rows.size(), failed,
                ConsoleProgress.format(Duration.ofNanos(System.nanoTime() - t0)), outDir.resolve(Report.INDEX))));
        return failed == 0 ? Main.OK : Main.POINTS_FAILED;
    }

    /**
     * The last block of a run's output, at most {@link Recommendation#MAX_LINES} + 1 lines: the verdict of the results
     * folder (as the top of its {@code index.html} reads it) and {@code closing}.
     */
    static String lastBlock(Path outDir, BenchConfig config, List<PointResult> rows, String closing) {
        Recommendation verdict;
        try {
            verdict = Recommendation.read(outDir);
        } catch (IOException | RuntimeException e) {
            verdict = Recommendation.of(config, rows, null); // the folder could not be read back: this run's rows
        }
        return verdict.text() + closing + System.lineSeparator();
    }

    /**
     * How long the points will take: the sum of what the same points (same key and bench fingerprint)
     * took in earlier runs under {@code resultsRoot}, when every point has been measured before; else
     * the size of the run, which is all that can be said without measuring.
     */
    static String estimate(List<Point> points, Path resultsRoot) {
        Map<String, Double> seconds = new HashMap<>();
        if (Files.isDirectory(resultsRoot)) {
            try (Stream<Path> runs = Files.list(resultsRoot)) {
                for (Path run : runs.sorted().toList()) { // later runs overwrite earlier ones
                    for (PointResult r : ResultStore.load(run)) {
                        if (r.ok()) {
                            seconds.put(r.key() + "@" + r.fingerprint(), r.seconds());
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                seconds.clear(); // an unreadable folder gives no estimate, not an error
            }
        }
        double total = 0;
        for (Point p : points) {
            Double s = seconds.get(p.key() + "@" + p.fingerprint());
            if (s == null) {
                long jvms = points.stream().mapToLong(q -> q.bench().forks()).sum();
                long rounds = points.stream().mapToLong(q -> (long) q.bench().forks()
                        * (q.bench().warmupIterations() + q.bench().measurementIterations())).sum();
                return jvms + " JVM starts and " + rounds + " rounds (no estimate of the time: not every point was"
                        + " measured before under " + resultsRoot + "/)";
            }
            total += s;
        }
        return "about " + ConsoleProgress.format(Duration.ofMillis((long) (total * 1000)))
                + " (what the same points took in earlier runs under " + resultsRoot + "/)";
    }

    private BenchConfig config(Args args, Path outDir) throws ConfigException, IOException {
        if (args.workload() == null && args.config() == null && args.resume() && Files.exists(outDir.resolve(ResultsDirectory.CONFIG_FILE))) {
            if (args.quick()) {
                err.println("numaloom bench: --quick ignored; resuming " + outDir + " with the configuration it started with");
            }
            return ConfigReader.read(outDir.resolve(ResultsDirectory.CONFIG_FILE));
        }
        BenchConfig config;
        if (args.workload() != null) {
            try {
                config = args.workload().config();
            } catch (IllegalArgumentException e) {
                throw new Main.UsageException(e.getMessage());
            }
        } else {
            config = args.config() == null ? BenchConfig.builtInDefault() : ConfigReader.read(args.config());
        }
        if (args.quick()) {
            err.println("numaloom bench: --quick: one round, 1 warm-up and 2 measured iterations, a tenth of the work; "
                    + "a first look, with no interval and no verdict: do not compare locks with it");
            return config.quick();
        }
        // A run that states verdicts measures the reference's twin as its A/A control (a resumed run reads back the
        // configuration it started with, twin included).
        boolean verdicts = (args.rounds() == null || args.rounds() >= 2) && !args.quick();
        return verdicts ? config.withReferenceTwin() : config;
    }

    /**
     * The results directory; with {@code --resume}, one that holds a run (its {@code config.json}), else a
     * usage error: resuming starts no new run.
     */
    private Path outDir(Args args) throws IOException {
        if (args.resume()) {
            if (args.out() == null) {
                return latestRun(resultsRoot).orElseThrow(() -> new Main.UsageException(
                        "nothing to resume: --resume without --out continues the latest run under " + resultsRoot
                                + "/, but there is none; leave out --resume to start a run"));
            }
            if (!Files.exists(args.out().resolve(ResultsDirectory.CONFIG_FILE))) {
                throw new Main.UsageException("nothing to resume: there is no run in " + args.out() + " (no "
                        + ResultsDirectory.CONFIG_FILE + "); leave out --resume to start a run there");
            }
            return args.out();
        }
        if (args.out() != null) {
            return args.out();
        }
        return resultsRoot.resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    }

    /** The latest run directory under {@code resultsRoot} (names are timestamps, so the greatest name). */
    static Optional<Path> latestRun(Path resultsRoot) throws IOException {
        if (!Files.isDirectory(resultsRoot)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(resultsRoot)) {
            return dirs.filter(d -> Files.exists(d.resolve(ResultsDirectory.CONFIG_FILE)))
                    .max(Comparator.comparing(d -> d.getFileName().toString()));
        }
    }

    static String help() {
        StringBuilder sb = new StringBuilder("""
                Usage: ./numaloom bench [--config FILE] [--quick] [--out DIR] [--resume] [--dry-run]
                                        [--precision P] [--rounds N] [--budget TIME] [--seed N]
                       ./numaloom bench --workload-class CLASS --classpath JARS [--locks L1,L2] [--threads N1,N2]
                                        [--operations N] [--outside METHOD] [--timeout SECONDS]
                                        [--virtual] [--platform] [--quick] [--out DIR]
                                        [--resume] [--dry-run]
                       ./numaloom bench --jmh-jar JAR [--jmh-param NAME=V1,V2,...] [--jmh-benchmark REGEX]
                                        [--jmh-agent[=OPTIONS]] [--precision P] [--rounds N] [--budget TIME] [--seed N] [--out DIR]
                                        [-- JMH options]

                Runs every point (bench x thread count x lock) of a configuration, each in fresh JMH-forked
                JVMs, and writes into DIR (default results/<timestamp>/):
                  results.csv, results.json  one row per point, written as each point finishes
                  <bench id>.png, .svg       throughput (or time) against threads, one line per lock, 95% CI bands
                  index.html                 the verdict, who won, plots, tables, machine, JVM flags and the
                                             configuration
                  summary.csv                each lock / unfair ReentrantLock per bench and thread count; VNA /
                                             the best other lock; each lock / its own 1-thread throughput
                  config.json, machine.json  the effective configuration; the machine and the run's sessions
                                             (its start and each --resume: start, load, stall probe)
                  logs/                      JMH's output per point

                Options:
                  --config FILE  a JSON configuration (see configs/); default: the built-in one
                                 (configs/default.json, about 5 minutes on 2 cores)
                  --quick        one round, 1 warm-up + 2 measured iterations, a tenth of the work: a first
                                 look, with no interval and no verdict
                  --precision P  how close each ratio to the reference must be known, in percent (default
                                 5: +-5%). The locks of a bench at one thread count run in rounds, one fresh
                                 JVM of each per round in a shuffled order; 4 pilot rounds plan how many
                                 more the widest ratio needs (at most 30). A ratio's verdict (faster,
                                 slower) needs its 95% interval to exclude 1; else it is a tie
                  --rounds N     exactly N rounds per bench and thread count instead (N >= 2 for verdicts)
                  --budget TIME  the most time the run spends measuring (300, 300s, 5m, 1h), shared among
                                 the benches; a group that would overrun its share stops early and says so.
                                 Default: 240 s for the built-in configuration, none for others
                  --seed N       the seed of the rounds' shuffled orders (default: random; run.json has it)
                  --out DIR      the results directory
                  --resume       continue a run that was cut short: points with a result in DIR are skipped
                                 (without --out: the latest run under results/; without --config: the
                                 configuration that run started with). No run there: status 2, nothing
                                 written; a run that finished with every point measured is left as it was.
                                 Each resume is a new session of the run: every row names its session, and
                                 points are compared only with points of the same session
                  --dry-run      validate the configuration and list its points, with the time they took
                                 in earlier runs under results/ if they all ran before; run nothing

                Your own critical section, instead of a configuration:
                  --workload-class CLASS
                                 a public class with a public no-argument constructor that implements
                                 Runnable: its run() is the critical section. Each round makes one
                                 instance, shared by all threads, and every thread calls run() under the
                                 lock. Compared: VNA, UNFAIR_REENTRANT (ReentrantLock) and SYNCHRONIZED at
                                 1, the CPU count and 4 x the CPU count threads, virtual and platform.
                                 Checked: the lock's exclusion, nothing of your data. Not with --config
                  --classpath JARS
                                 where CLASS and what it needs are: jars or class directories, separated
                                 by ':' (';' on Windows)
                  --locks L1,L2  other locks to compare (the names below)
                  --threads N1,N2
                                 other thread counts
                  --operations N critical sections per round over all threads (default 100000; raise it
                                 when a round takes less than about 100 ms, the "time ms" column)
                  --outside METHOD
                                 the work outside the lock: a public no-argument method of CLASS that
                                 every thread calls on the shared instance before each acquisition,
                                 without a lock (so it must be safe in all threads at once). The less
                                 of it, the more contention; default: none
                  --timeout SECONDS
                                 the longest one round may take before its point fails, 1 to 600
                                 (default {timeout}): a section that never returns fails its point after
                                 about that long (the reason shows where its threads were)
                  --virtual      on virtual threads only (half the points)
                  --platform     on platform threads only; with --virtual, or with neither: both
                  The same from Java: io.numaloom.bench.api.LockMatrix (see README.md).

                Your own JMH benchmarks, on the same method:
                  --jmh-jar JAR  a JMH benchmarks jar (java -jar JAR runs JMH). Each round runs one JMH
                                 fork of the selected benchmarks per value of the parameter, in a shuffled
                                 order; the reference (the first value) runs twice, its twin the A/A control.
                                 Prints each value's ratio to the reference per benchmark (and per
                                 combination of its other parameters) with its 95% interval and verdict;
                                 above 1 is faster (for avgt, sample and ss, the time's inverse). Writes
                                 rounds.csv, summary.csv, run.json and logs/ into DIR
                  --jmh-param NAME=V1,V2,...
                                 the compared @Param and its values, the reference first; NAME alone takes
                                 the values its @Param declares (default: lock)
                  --jmh-benchmark REGEX
                                 the benchmarks to run, as JMH selects them (default: all with the @Param)
                  --jmh-agent[=OPTIONS]
                                 instead of a @Param's values: each benchmark as it is (stock, the reference)
                                 against the same with numaloom's agent (agent: -jvmArgsAppend
                                 -javaagent:numaloom-agent/target/numaloom-agent.jar=OPTIONS in its forks), e.g.
                                 --jmh-agent=include=com.acme.; the agent's report of each such fork is written
                                 beside its log (logs/*.agent-report.txt). Does your code gain from VnaLock unchanged?
                  -- OPTIONS     more JMH options for every fork, e.g. -- -wi 3 -i 5 -w 1s -r 1s -t 4
                                 (not -f, -rf, -rff, nor -p for the compared parameter: the route sets them)
                  Without --precision or --rounds: rounds planned to +-5%, at most 30; no budget.

                Exit status: 0 all points measured; 2 bad usage or configuration (--resume where there is
                no run; a --jmh-jar that is not a JMH jar); 3 some points (or JMH comparisons) failed
                (the reason is in their row); 1 other errors; 130 stopped by Ctrl-C (the points done are
                kept and reported; the message says how to continue).

                Configuration (the format of the thesis's Appendix A, extended):
                  { "description": "...",
                    "defaults": { <payload fields for every bench> },
                    "benches": [ { "name": <workload>, "id": <optional>, "payload": { <fields> } } ] }

                Payload fields of every workload:
                  locks (array of {"name": ...}, required): the locks to compare; known:
                """.replace("{timeout}", Integer.toString(LockMatrix.DEFAULT_TIMEOUT_SECONDS)));
        sb.append("      ").append(String.join(", ", Mutex.names())).append('\n');
        sb.append("      keyed workload only: ").append(String.join(", ", KeyedSchemes.names())).append('\n');
        sb.append("      falseSharing workload only (counter layouts): ")
                .append(String.join(", ", io.numaloom.bench.workloads.FalseSharing.layoutNames())).append('\n');
        sb.append("      queue workload only (the JDK's blocking queue as the buffer): ")
                .append(String.join(", ", io.numaloom.bench.workloads.ProducerConsumer.jdkQueueNames())).append('\n');
        sb.append("""
                      a variant: {"name": "VNA", "label": "VNA-no-poll", "jvmArgs": ["-Dsome.switch=off"]} measures
                      the lock again under its own JVM arguments (after the bench's jvmArgs), named by its label
                      in every table; ./numaloom compare DIR VNA-no-poll VNA judges it against the lock it varies.
                      The twin of a reference with jvmArgs gets the same jvmArgs
                """);
        sb.append("  threads (array of integers >= 1): thread counts; default: powers of two up to 4 x CPUs, and the CPU count\n");
        for (Field f : ConfigReader.COMMON_FIELDS) {
            sb.append("  ").append(f.helpLine()).append('\n');
        }
        sb.append("\nWorkloads and their own fields:\n");
        for (WorkloadKind kind : WorkloadKind.values()) {
            sb.append("  ").append(kind.jsonName()).append(": ").append(kind.summary()).append('\n');
            for (Field f : kind.fields()) {
                sb.append("    ").append(f.helpLine()).append('\n');
            }
            for (Field f : ConfigReader.COMMON_FIELDS) {
                if (!kind.accepts(f.name())) {
                    sb.append("    (").append(f.name()).append(" does not apply)\n");
                }
            }
        }
        return sb.toString();
    }
}
