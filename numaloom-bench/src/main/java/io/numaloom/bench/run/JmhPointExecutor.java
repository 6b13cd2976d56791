package io.numaloom.bench.run;

import io.numaloom.bench.Point;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.result.ForkReport;
import io.numaloom.bench.result.MachineStalls;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Measures a point with JMH, driven through its API: {@link PointBenchmark} with the point as its parameter,
 * the bench's forks, warm-up and measured rounds, and the measured JVMs' arguments
 * ({@link BenchDefinition#measuredJvmArgs()}), started from a class cache where the bench asks for one
 * ({@link AotCache}). JMH's human-readable output goes to the point's log file.
 *
 * <p>Every JVM it starts goes through a {@link ChildProcesses}, so that a stopped run starts none. A measured JVM
 * halts when this JVM is gone, and says when it is ended while its point runs ({@link ForkGuard}).
 *
 * <p>JMH refuses to run while another JMH run on the machine holds its lock file
 * ({@code java.io.tmpdir/jmh.lock}), which keeps measurements from overlapping; this executor then waits,
 * up to {@link #LOCK_WAIT_SECONDS}, and says so. ({@code -Djmh.ignoreLock=true} on the bench JVM, e.g.
 * through {@code NUMALOOM_JAVA_OPTS}, skips the lock.)
 */
public final class JmhPointExecutor implements PointExecutor {
    /** The longest to wait for another JMH run to release its lock, per point. */
    static final int LOCK_WAIT_SECONDS = 600;

    private final Consumer<String> notices;
    private final ChildProcesses children;
    private final AotCache aotCache;
    /** Whether the points run in this JVM (JMH's forks 0) rather than in forked ones. */
    /** How long a failed point measured in a child JVM waits for a stop before it is recorded. */
    static final Duration FORKED_STOP_GRACE = Duration.ofSeconds(1);
    private final boolean inThisJvm;

    /**
     * An executor whose measured JVMs start without a class cache.
     *
     * @param notices where to say that the run waits for another JMH run
     */
    public JmhPointExecutor(Consumer<String> notices) {
        this(notices, null);
    }

    /**
     * @param notices  where to say that the run waits for another JMH run, or that a class cache could not be made
     * @param aotCache where the measured JVMs' class caches go ({@link AotCache}, for the benches with
     *                 {@code startupCache}); null for none
     */
    public JmhPointExecutor(Consumer<String> notices, Path aotCache) {
        this(notices, aotCache, new ChildProcesses());
    }

    /**
     * @param notices  where to say that the run waits for another JMH run, or that a class cache could not be made
     * @param aotCache where the measured JVMs' class caches go ({@link AotCache}, for the benches with
     *                 {@code startupCache}); null for none
     * @param children what starts the JVMs, and refuses to once the run is stopping ({@link ChildProcesses#stop()})
     */
    public JmhPointExecutor(Consumer<String> notices, Path aotCache, ChildProcesses children) {
        this(notices, aotCache, false, children);
    }

    private JmhPointExecutor(Consumer<String> notices, Path aotCache, boolean inThisJvm, ChildProcesses children) {
        this.notices = notices;
        this.children = children;
        this.aotCache = aotCache == null ? null : AotCache.forForksOfThisJvm(aotCache, notices, children);
        this.inThisJvm = inThisJvm;
    }

    /**
     * An executor that measures every point in this JVM (JMH with no fork), for a critical section that exists only
     * here (a {@code Runnable} handed to {@code io.numaloom.bench.api.LockMatrix}): the same warm-up, measured rounds,
     * checks and side reports, but one JVM for all points, whose arguments are this JVM's ({@link
     * BenchDefinition#measuredJvmArgs()} and {@code forks} do not apply), and whose JIT has seen the other points'
     * locks before each point.
     */
    public static JmhPointExecutor inThisJvm(Consumer<String> notices) {
        return new JmhPointExecutor(notices, null, true, new ChildProcesses());
    }

    /** Every CPU busy, as during a contended point, for {@link MachineStalls#PROBE}. */
    /** One second for a point measured in a child JVM (see {@link PointExecutor#stopGrace()}); none in this JVM. */
    @Override
    public Duration stopGrace() {
        return inThisJvm ? Duration.ZERO : FORKED_STOP_GRACE;
    }

    @Override
    public MachineStalls probeStalls() throws InterruptedException {
        return MachineStalls.measure(Runtime.getRuntime().availableProcessors(), MachineStalls.PROBE);
    }

    @Override
    public Measurement measure(Point point, Path workDir, Path logFile) throws PointFailedException, InterruptedException {
        BenchDefinition b = point.bench();
        List<String> jvmArgs = b.measuredJvmArgs(point.lock());
        if (aotCache != null && b.startupCache()) {
            jvmArgs = aotCache.jvmArgs(jvmArgs, (recordArgs, trainingLog) -> train(point, workDir, logFile, recordArgs, trainingLog));
        }
        Options options = options(point, workDir, logFile, jvmArgs, b.warmupIterations(), b.measurementIterations(), b.forks());
        Collection<RunResult> results = runWaitingForLock(options, logFile);
        List<List<Double>> times = new ArrayList<>();
        for (RunResult run : results) {
            for (BenchmarkResult fork : run.getBenchmarkResults()) {
                List<Double> rounds = new ArrayList<>();
                for (IterationResult iteration : fork.getIterationResults()) {
                    rounds.add(iteration.getPrimaryResult().getScore());
                }
                times.add(rounds);
            }
        }
        try {
            return new Measurement(times, ForkReport.readAll(workDir));
        } catch (IOException e) {
            throw new PointFailedException("cannot read the forks' reports in " + workDir + ": " + e, e);
        }
    }

    /**
     * One unmeasured round of the point in one JVM of {@code jvmArgs}, which records the classes it loads.
     *
     * @throws PointFailedException if the point itself failed in it (its report names an error: the measured JVMs would
     *         meet it too, after as long again, a round's timeout for a section that never returns), its log then
     *         copied to the point's {@code logFile}; or if the run is stopping
     * @throws Exception if it failed otherwise (the JVM did not start, or did not record): the point runs without a cache
     */
    private void train(Point point, Path workDir, Path logFile, List<String> jvmArgs, Path log) throws Exception {
        Path trainingWork = Files.createDirectories(workDir.resolve("aot-training"));
        try {
            runWaitingForLock(options(point, trainingWork, log, jvmArgs, 0, 1, 1), log);
        } catch (PointFailedException e) {
            if (children.stopping()) {
                throw e;
            }
            String error = ForkReport.readAll(trainingWork).stream().map(ForkReport::error).filter(s -> s != null).findFirst()
                    .orElse(null);
            if (error == null) {
                throw new IllegalStateException(e.getMessage(), e);
            }
            if (Files.exists(log)) {
                Files.createDirectories(logFile.toAbsolutePath().getParent());
                Files.copy(log, logFile, StandardCopyOption.REPLACE_EXISTING);
            }
            throw new PointFailedException(error + " (in the unmeasured round that records the class cache)", e);
        } finally {
            BenchRunner.deleteRecursively(trainingWork);
        }
    }

    private Options options(Point point, Path workDir, Path logFile, List<String> jvmArgs,
                                   int warmupIterations, int measurementIterations, int forks) {
        OptionsBuilder options = new OptionsBuilder();
        options.include("^" + PointBenchmark.class.getName().replace(".", "\\.") + "\\.round$")
                .param("point", point.spec(workDir.toAbsolutePath().toString()).encode())
                .mode(Mode.SingleShotTime)
                .timeUnit(TimeUnit.MILLISECONDS)
                .warmupIterations(warmupIterations)
                .warmupBatchSize(1)
                .measurementIterations(measurementIterations)
                .measurementBatchSize(1)
                .forks(inThisJvm ? 0 : forks)
                .threads(1)
                .jvmArgs(jvmArgs.toArray(String[]::new))
                .timeout(TimeValue.seconds(point.bench().timeoutSeconds() + 60L))
                .shouldFailOnError(true)
                .shouldDoGC(false)
                .verbosity(VerboseMode.NORMAL)
                .output(logFile.toAbsolutePath().toString());
        if (!inThisJvm) {
            // The forked JVM halts when this one is gone (ForkGuard): not an argument of the cache's key.
            options.jvmArgsAppend("-D" + ForkGuard.PARENT_PROPERTY + "=" + ProcessHandle.current().pid());
        }
        return options.build();
    }

    private Collection<RunResult> runWaitingForLock(Options options, Path logFile)
            throws PointFailedException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LOCK_WAIT_SECONDS);
        boolean told = false;
        while (true) {
            try {
                return children.run(() -> new Runner(options).run());
            } catch (ChildProcesses.StoppingException e) {
                throw new PointFailedException(e.getMessage(), e);
            } catch (RunnerException e) {
                boolean locked = String.valueOf(e.getMessage()).contains("JMH lock");
                if (!locked || System.nanoTime() > deadline) {
                    throw new PointFailedException(failureText(e, logFile), e);
                }
                if (!told) {
                    notices.accept("waiting for another JMH run on this machine to finish (" + e.getMessage().lines().findFirst().orElse("") + ")");
                    told = true;
                }
                Thread.sleep(2000);
            }
        }
    }

    /** The failure's root cause from JMH's log when it has one, else the exception's message. */
    private static String failureText(RunnerException e, Path logFile) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage().strip();
        try {
            if (Files.exists(logFile)) {
                return rootCause(Files.readAllLines(logFile), message);
            }
        } catch (IOException ignored) {
            // The exception's message is what there is.
        }
        return message;
    }

    private static final Pattern EXCEPTION = Pattern.compile("^(Caused by: )?([a-zA-Z_$][\\w.$]*(Exception|Error))(:.*)?$");
    private static final Pattern VM_FAILED = Pattern.compile("^<forked VM failed with exit code (\\d+)>$");

    /** ": " and the first line the failed JVM wrote on stderr (JMH's {@code <stderr>} block), if any. */
    private static String firstLineOfStderr(List<String> log, int from) {
        boolean inStderr = false;
        for (String line : log.subList(from, log.size())) {
            String l = line.strip();
            if (l.startsWith("<stderr")) {
                inStderr = true;
            } else if (l.startsWith("</stderr>")) {
                break;
            } else if (inStderr && !l.isEmpty() && !l.startsWith("Error: ")) {
                return ": " + l;
            }
        }
        return "";
    }

    /**
     * The first line of what made a point fail, read from JMH's log: the deepest {@code Caused by} of the
     * first stack trace, or, when the measured JVM exited, the first line it wrote on stderr.
     */
    static String rootCause(List<String> log, String fallback) {
        String cause = null;
        boolean inTrace = false;
        for (String line : log) {
            String l = line.strip();
            Matcher m = EXCEPTION.matcher(l);
            if (m.matches() && (cause == null || m.group(1) != null && inTrace)) {
                cause = m.group(2) + (m.group(4) == null ? "" : m.group(4));
                inTrace = true;
            } else if (inTrace && !l.startsWith("at ") && !l.startsWith("...") && !l.startsWith("Caused by: ")) {
                inTrace = false;
            }
            if (cause != null && !inTrace) {
                break;
            }
        }
        if (cause != null) {
            return cause;
        }
        for (int i = 0; i < log.size(); i++) {
            Matcher m = VM_FAILED.matcher(log.get(i).strip());
            if (m.matches()) {
                return "the measured JVM exited with code " + m.group(1) + firstLineOfStderr(log, i);
            }
        }
        return fallback;
    }
}
