package io.numaloom.bench.cli;

import io.numaloom.bench.run.BenchRunner;
import io.numaloom.bench.run.ChildProcesses;
import io.numaloom.bench.run.JmhJar;
import io.numaloom.bench.run.JmhJarRun;
import io.numaloom.bench.run.JmhRounds;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code ./numaloom bench --jmh-jar JAR}: the JMH route of the verdict method (docs/verdict-method.md). A user's own
 * JMH benchmark compares locks (or anything) through a {@code @Param}; JMH alone runs each value's forks one after
 * another and gives no interval on a ratio. This command checks the jar and the options (a usage error names the
 * option), then runs the values in interleaved rounds of JMH forks ({@link JmhRounds}, {@link JmhJarRun}), prints
 * each value's ratio to the reference with its interval and verdict, and writes the rounds and the ratios
 * ({@link JmhJarReport}).
 */
final class JmhJarBench {
    /** The parameter compared when {@code --jmh-param} is not given: the README's example benchmark's. */
    static final String DEFAULT_PARAM = "lock";

    /**
     * The JMH route's options as given.
     *
     * @param jar       {@code --jmh-jar}
     * @param param     the compared parameter's name
     * @param values    its values, the reference first, or empty for those its {@code @Param} declares
     * @param benchmark {@code --jmh-benchmark}, or null for every benchmark with the parameter
     * @param options   what follows {@code --}: more JMH options for every fork
     * @param agent     {@code --jmh-agent[=OPTIONS]}: the agent's options ("" for none), the benchmarks compared with
     *                  and without numaloom's agent instead of a parameter's values; null without it
     */
    record JmhArgs(Path jar, String param, List<String> values, String benchmark, List<String> options, String agent) {
        /** The alternatives of {@code --jmh-agent}: the benchmarks as they are (the reference), and through the agent. */
        static final List<String> AGENT_ALTERNATIVES = List.of("stock", "agent");

        /** Parses the options of the {@code @Param} route; a usage error names the one that is wrong. */
        static JmhArgs of(String jar, String param, String benchmark, List<String> options) {
            return of(jar, param, benchmark, options, null);
        }

        /** Whether the benchmarks are compared with and without the agent. */
        boolean agentRoute() {
            return agent != null;
        }

        /** Reserved JMH options: the route sets them itself. */
        private static final List<String> RESERVED = List.of("-f", "-rf", "-rff");

        /** Parses the options; a usage error names the one that is wrong. */
        static JmhArgs of(String jar, String param, String benchmark, List<String> options, String agent) {
            if (agent != null && param != null) {
                throw new Main.UsageException("--jmh-agent and --jmh-param exclude each other: --jmh-agent compares your "
                        + "benchmarks with and without numaloom's agent, --jmh-param the values of a @Param");
            }
            String name = agent != null ? null : DEFAULT_PARAM;
            List<String> values = List.of();
            if (param != null) {
                int eq = param.indexOf('=');
                name = (eq < 0 ? param : param.substring(0, eq)).strip();
                if (name.isEmpty()) {
                    throw new Main.UsageException("--jmh-param must be NAME=V1,V2,... (or NAME), got '" + param + "'");
                }
                if (eq >= 0) {
                    values = Arrays.stream(param.substring(eq + 1).split(",")).map(String::strip).filter(v -> !v.isEmpty()).toList();
                    checkValues(values, param);
                }
            }
            for (int i = 0; i < options.size(); i++) {
                String o = options.get(i);
                if (RESERVED.contains(o)) {
                    throw new Main.UsageException("-- " + o + ": the JMH route sets " + String.join(", ", RESERVED)
                            + " itself (one fork per value per round, its JSON result); leave it out");
                }
                if (name != null && (o.equals("-p") && i + 1 < options.size() && options.get(i + 1).startsWith(name + "=")
                        || o.startsWith("-p" + name + "="))) {
                    throw new Main.UsageException("-- -p " + name + "=...: the compared parameter's values go in --jmh-param "
                            + name + "=V1,V2,...");
                }
            }
            return new JmhArgs(Path.of(jar), name, agent != null ? AGENT_ALTERNATIVES : values, benchmark, List.copyOf(options), agent);
        }

        private static void checkValues(List<String> values, String given) {
            if (values.size() < 2) {
                throw new Main.UsageException("--jmh-param needs at least two values, the reference first (NAME=V1,V2,...), got '"
                        + given + "'");
            }
            if (values.stream().distinct().count() != values.size()) {
                throw new Main.UsageException("--jmh-param names a value twice: '" + given + "'");
            }
        }
    }

    /** What the checked jar and options say to run; {@code agentJar}: numaloom's agent, on the agent route only. */
    record Plan(JmhArgs args, List<String> values, String regex, List<String> benchmarks, Path agentJar) {}

    private final PrintStream out;
    private final PrintStream err;
    private final Path resultsRoot;

    JmhJarBench(PrintStream out, PrintStream err, Path resultsRoot) {
        this.out = out;
        this.err = err;
        this.resultsRoot = resultsRoot;
    }

    /**
     * Checks the jar against the options: it is a JMH jar, {@code --jmh-benchmark} selects benchmarks, and some have
     * the parameter (the values it declares when none are given). Selected benchmarks without the parameter are left
     * out (by an exact regex), with a note on {@code err}.
     */
    static Plan check(JmhArgs a, PrintStream err) {
        JmhJar jar;
        try {
            jar = JmhJar.read(a.jar());
        } catch (JmhJar.BadJarException e) {
            throw new Main.UsageException("--jmh-jar: " + e.getMessage());
        }
        List<JmhJar.Benchmark> selected;
        try {
            selected = jar.select(a.benchmark());
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException("--jmh-benchmark: " + e.getMessage());
        }
        if (selected.isEmpty()) {
            throw new Main.UsageException("--jmh-benchmark: no benchmark of " + a.jar() + " matches '" + a.benchmark()
                    + "'; it has: " + String.join(", ", jar.benchmarks().stream().map(JmhJar.Benchmark::name).distinct().toList()));
        }
        if (a.agentRoute()) {
            // found now, so that a missing jar is a usage error and not a failed fork per round
            return new Plan(a, a.values(), a.benchmark(), selected.stream().map(JmhJar.Benchmark::name).distinct().toList(),
                    agentJar());
        }
        List<JmhJar.Benchmark> withParam = selected.stream().filter(b -> b.params().containsKey(a.param())).toList();
        if (withParam.isEmpty()) {
            throw new Main.UsageException("--jmh-param: no " + (a.benchmark() == null ? "" : "selected ") + "benchmark of "
                    + a.jar() + " has a @Param '" + a.param() + "' (" + String.join(", ", selected.stream()
                    .map(b -> b.name() + (b.params().isEmpty() ? " has none" : " has " + String.join(", ", b.params().keySet())))
                    .toList()) + ")");
        }
        List<String> values = a.values();
        if (values.isEmpty()) {
            List<List<String>> declared = withParam.stream().map(b -> b.params().get(a.param())).distinct().toList();
            if (declared.size() > 1) {
                throw new Main.UsageException("--jmh-param: the benchmarks declare different values of '" + a.param() + "' ("
                        + declared + "): name them, --jmh-param " + a.param() + "=V1,V2,...");
            }
            values = declared.getFirst();
            JmhArgs.checkValues(values, a.param() + "=" + String.join(",", values) + " (its @Param)");
        }
        String regex = a.benchmark();
        if (withParam.size() < selected.size()) {
            List<String> without = selected.stream().filter(b -> !withParam.contains(b)).map(JmhJar.Benchmark::name).toList();
            err.println("numaloom bench: left out, without a @Param '" + a.param() + "': " + String.join(", ", without));
            regex = "^(" + String.join("|", withParam.stream().map(b -> Pattern.quote(b.name())).toList()) + ")$";
        }
        return new Plan(a, values, regex, withParam.stream().map(JmhJar.Benchmark::name).toList(), null);
    }

    /** The property that names numaloom's agent jar for {@code --jmh-agent}, where it is not beside the bench. */
    static final String AGENT_JAR_PROPERTY = "numaloom.agent.jar";

    /**
     * numaloom's agent jar for {@code --jmh-agent}: {@code -Dnumaloom.agent.jar}, else
     * {@code numaloom-agent/target/numaloom-agent.jar} of the checkout the bench runs from (which {@code ./numaloom}
     * builds with the bench).
     *
     * @throws Main.UsageException saying how to build it, where there is none
     */
    static Path agentJar() {
        String given = System.getProperty(AGENT_JAR_PROPERTY);
        if (given != null) {
            Path jar = Path.of(given).toAbsolutePath();
            if (!java.nio.file.Files.isRegularFile(jar)) {
                throw new Main.UsageException("--jmh-agent: -D" + AGENT_JAR_PROPERTY + "=" + given + " is not a file");
            }
            return jar;
        }
        Path start;
        try {
            start = Path.of(JmhJarBench.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
        } catch (java.net.URISyntaxException | RuntimeException e) {
            start = Path.of("").toAbsolutePath();
        }
        for (Path p = start; p != null; p = p.getParent()) {
            Path jar = p.resolve("numaloom-agent").resolve("target").resolve("numaloom-agent.jar");
            if (java.nio.file.Files.isRegularFile(jar)) {
                return jar;
            }
        }
        throw new Main.UsageException("--jmh-agent: numaloom's agent jar is not built (numaloom-agent/target/numaloom-agent.jar): "
                + "./mvnw -pl numaloom-agent -am package -DskipTests, or give its path with -D" + AGENT_JAR_PROPERTY + "=JAR");
    }

    /**
     * The agent's options for one fork: the user's, then {@code report=FILE} beside the fork's log
     * ({@code logs/v2-agent-round01.agent-report.txt}), so that every fork through the agent leaves what it swapped.
     */
    static String agentOptions(String given, Path log) {
        String name = log.getFileName().toString();
        Path report = log.resolveSibling((name.endsWith(".log") ? name.substring(0, name.length() - 4) : name) + ".agent-report.txt");
        return (given.isEmpty() ? "" : given + ",") + "report=" + report.toAbsolutePath();
    }

    /** One line on the rounds: planned to a precision, or a fixed number; the budget; the seed. */
    static String describe(BenchRunner.Method m) {
        String rounds = Double.isNaN(m.precision())
                ? (m.maxRounds() == 1 ? "one round: no interval, no verdict" : m.maxRounds() + " rounds")
                : String.format(java.util.Locale.ROOT, "rounds planned by a pilot of %d for ratios within +-%.1f%%, at most %d",
                        m.pilot(), 100 * m.precision(), m.maxRounds());
        return "interleaved rounds (seed " + m.seed() + "): " + rounds
                + (m.budget() == null ? ", no time budget" : ", within " + m.budget().toSeconds() + " s");
    }

    int run(BenchCommand.Args args, String[] argv) {
        JmhArgs a = args.jmh();
        Plan plan = check(a, err);
        BenchRunner.Method method = args.method(null);
        boolean verdicts = args.rounds() == null || args.rounds() >= 2;
        JmhRounds rounds = new JmhRounds(plan.values(), verdicts, method);
        Path dir = args.out() != null ? args.out()
                : resultsRoot.resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        ChildProcesses children = new ChildProcesses();
        Path agentJar = plan.agentJar();
        JmhJarRun forks = a.agentRoute()
                ? new JmhJarRun(children, a.jar().toAbsolutePath(), plan.regex(), null,
                        (value, log) -> value.equals("agent") ? JmhJarRun.agentArgs(agentJar, agentOptions(a.agent(), log)) : List.of(),
                        a.options(),
                        notice -> err.println("numaloom bench: " + notice))
                : new JmhJarRun(children, a.jar().toAbsolutePath(), plan.regex(), a.param(), a.options(),
                        notice -> err.println("numaloom bench: " + notice));
        String compared = a.agentRoute() ? "numaloom's agent" : a.param();
        Instant started = Instant.now();
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("command", "./numaloom bench " + String.join(" ", argv));
        run.put("jar", a.jar().toAbsolutePath().toString());
        run.put("param", a.param());
        if (a.agentRoute()) {
            run.put("agent", agentJar.toString());
            run.put("agentOptions", a.agent());
        }
        run.put("values", plan.values());
        run.put("reference", rounds.reference());
        run.put("twin", rounds.twin());
        run.put("benchmarks", plan.benchmarks());
        run.put("jmhRegex", plan.regex());
        run.put("jmhOptions", a.options());
        run.put("seed", method.seed());
        run.put("precision", Double.isNaN(method.precision()) ? null : method.precision());
        run.put("pilotRounds", method.pilot());
        run.put("maxRounds", method.maxRounds());
        run.put("budgetSeconds", method.budget() == null ? null : method.budget().toSeconds());
        run.put("java", JmhJarRun.currentJava());
        run.put("started", started.truncatedTo(ChronoUnit.SECONDS).toString());
        err.println("numaloom bench: " + plan.values().size() + (a.agentRoute() ? " alternatives, without and with " : " values of ")
                + compared + " (reference " + rounds.reference()
                + (rounds.twin() == null ? "" : ", twin " + rounds.twin()) + ") over " + plan.benchmarks().size()
                + " benchmark(s); " + describe(method));
        JmhRounds.Result result;
        try (JmhJarReport report = new JmhJarReport(dir)) {
            report.runFile(run);
            Thread reaper = new Thread(() -> {
                List<ProcessHandle> left = children.stop();
                err.println();
                err.println("numaloom bench: stopped; the rounds measured are in " + dir.resolve(JmhJarReport.ROUNDS_FILE)
                        + (left.isEmpty() ? "" : "; could not end " + left.stream().map(p -> Long.toString(p.pid())).toList()));
            }, "numaloom-stop-jmh-forks");
            Runtime.getRuntime().addShutdownHook(reaper);
            int[] planned = {0};
            try {
                result = rounds.run((name, value, index, round) -> {
                    String stem = JmhJarRun.fileStem(index, name) + String.format("-round%02d", round + 1);
                    return forks.run(name, value, dir.resolve("jmh").resolve(stem + ".json"), dir.resolve("logs").resolve(stem + ".log"));
                }, new JmhRounds.Listener() {
                    @Override
                    public void roundStarted(int round, int plannedRounds) {
                        planned[0] = plannedRounds;
                    }

                    @Override
                    public void forkDone(int round, int position, String name, String value, JmhJarRun.Outcome outcome) {
                        try {
                            report.fork(round, position, name, value, outcome);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                        err.println("  round " + (round + 1) + (planned[0] > 0 ? " of " + planned[0] : "") + ": " + name
                                + (outcome.ok() ? ", " + outcome.scores().size() + " score(s)" : " FAILED: " + outcome.failure()));
                    }
                });
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(reaper);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs anyway
                }
            }
            if (result.stopped()) {
                return Main.STOPPED;
            }
            report.summary(rounds, result);
            run.put("finished", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
            run.put("rounds", result.rounds());
            report.runFile(run);
            report.html(rounds, result, run, a.agentRoute() ? null : a.param());
        } catch (IOException | java.io.UncheckedIOException e) {
            err.println("numaloom bench: " + e);
            return Main.ERROR;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("numaloom bench: interrupted");
            return Main.ERROR;
        }
        out.println();
        out.print(JmhJarReport.text(rounds, result, a.agentRoute() ? null : a.param()));
        out.println("Results: " + dir + " (" + JmhJarReport.HTML_FILE + ", " + JmhJarReport.SUMMARY_FILE + ", " + JmhJarReport.ROUNDS_FILE + ", "
                + JmhJarReport.RUN_FILE + ", logs/)");
        boolean failed = !result.forkFailures().isEmpty() || result.comparisons().isEmpty()
                || result.comparisons().stream().anyMatch(c -> !c.failures().isEmpty());
        return failed ? Main.POINTS_FAILED : Main.OK;
    }
}
