package io.numaloom.bench.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One JMH fork of a user's benchmarks jar for one value of the compared parameter: the child JVM
 * {@code java -jar JAR REGEX -p NAME=V -f 1 -rf json -rff FILE [options]}, and the scores its JSON result holds.
 *
 * <p><b>Why a child JVM per value.</b> JMH runs the values of a {@code @Param} one after another, every fork of one
 * before the next, so a stretch of the machine's weather lands on one value, and it gives no interval on a ratio.
 * The JMH route of {@code ./numaloom bench --jmh-jar} instead runs one fork of each value per round, in the round's
 * shuffled order ({@link JmhRounds}); this class is one such fork. It starts through {@link ChildProcesses}, so a
 * stop (Ctrl-C) ends it and every JVM JMH forked from it, on the same {@code java} as the bench itself.
 *
 * <p><b>Scores.</b> Each benchmark (and each combination of its other parameters, and each mode) gives one primary
 * score. Throughput ({@code thrpt}) is better higher; average time, sample time and single-shot time
 * ({@code avgt}, {@code sample}, {@code ss}) are better lower, so {@link Score#faster()} inverts them: a ratio of
 * {@code faster()} values above 1 always means faster.
 */
public final class JmhJarRun {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What one score is of: a benchmark's full name, its mode ({@code thrpt}, {@code avgt}, {@code sample},
     * {@code ss}) and its parameters other than the compared one, sorted by name.
     */
    public record Key(String benchmark, String mode, Map<String, String> params) implements Comparable<Key> {
        public Key {
            params = Collections.unmodifiableMap(new TreeMap<>(params));
        }

        /** {@code com.acme.Bench.m (thrpt, size=10)}. */
        public String label() {
            StringBuilder sb = new StringBuilder(benchmark).append(" (").append(mode);
            params.forEach((k, v) -> sb.append(", ").append(k).append('=').append(v));
            return sb.append(')').toString();
        }

        /** The other parameters as {@code a=1;b=x} (empty with none): a CSV column. */
        public String paramsText() {
            StringBuilder sb = new StringBuilder();
            params.forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ";").append(k).append('=').append(v));
            return sb.toString();
        }

        @Override
        public int compareTo(Key o) {
            int c = benchmark.compareTo(o.benchmark);
            if (c == 0) {
                c = mode.compareTo(o.mode);
            }
            return c != 0 ? c : paramsText().compareTo(o.paramsText());
        }
    }

    /** One benchmark's primary score in one fork, in JMH's unit ({@code ops/us}, {@code us/op}, ...). */
    public record Score(Key key, double score, String unit) {
        /** The score on a scale where higher is faster: the score itself for throughput, its inverse for a time. */
        public double faster() {
            return higherIsBetter(key.mode()) ? score : 1 / score;
        }
    }

    /**
     * What a fork gave: its scores, or why it gave none ({@code failure}, one line, with the log's path); {@code log}
     * is JMH's output.
     */
    public record Outcome(List<Score> scores, String failure, Path log) {
        public boolean ok() {
            return failure == null;
        }
    }

    /**
     * Whether a higher score is better in JMH mode {@code mode}: true for throughput ({@code thrpt}), false for the
     * times ({@code avgt}, {@code sample}, {@code ss}).
     *
     * @throws IllegalArgumentException for another mode
     */
    public static boolean higherIsBetter(String mode) {
        return switch (mode) {
            case "thrpt" -> true;
            case "avgt", "sample", "ss" -> false;
            default -> throw new IllegalArgumentException("unknown JMH mode '" + mode + "' (thrpt, avgt, sample, ss)");
        };
    }

    /**
     * The primary scores of a JMH JSON result ({@code -rf json}), each keyed without the parameter {@code param} (null:
     * with all its parameters).
     *
     * @throws IOException if it is not JMH's JSON (an array of results with a benchmark, a mode and a primary metric)
     */
    public static List<Score> parse(String json, String param) throws IOException {
        JsonNode root = JSON.readTree(json);
        if (root == null || !root.isArray()) {
            throw new IOException("not a JMH JSON result: not an array of benchmark results");
        }
        List<Score> scores = new ArrayList<>();
        for (JsonNode result : root) {
            JsonNode metric = result.path("primaryMetric");
            String benchmark = result.path("benchmark").asText(null);
            String mode = result.path("mode").asText(null);
            if (benchmark == null || mode == null || !metric.path("score").isNumber()) {
                throw new IOException("not a JMH JSON result: an entry without benchmark, mode or primaryMetric.score");
            }
            Map<String, String> params = new TreeMap<>();
            result.path("params").properties().forEach(e -> params.put(e.getKey(), e.getValue().asText()));
            if (param != null) {
                params.remove(param);
            }
            try {
                higherIsBetter(mode);
            } catch (IllegalArgumentException e) {
                throw new IOException(benchmark + ": " + e.getMessage());
            }
            scores.add(new Score(new Key(benchmark, mode, params), metric.path("score").asDouble(),
                    metric.path("scoreUnit").asText("")));
        }
        return scores;
    }

    /**
     * The child's command line: {@code java [jvmArgs] -jar JAR REGEX -p NAME=V -f 1 -rf json -rff FILE [options]}.
     */
    public static List<String> command(String java, List<String> jvmArgs, Path jar, String regex, String param, String value,
                                       Path json, List<String> options) {
        return command(java, jvmArgs, jar, regex, paramArgs(param, value), json, options);
    }

    /**
     * The child's command line: {@code java [jvmArgs] -jar JAR REGEX [alternative] -f 1 -rf json -rff FILE [options]},
     * where {@code alternative} is what makes this alternative: {@code -p NAME=V} ({@link #paramArgs}) or the agent
     * ({@link #agentArgs}).
     */
    public static List<String> command(String java, List<String> jvmArgs, Path jar, String regex, List<String> alternative,
                                       Path json, List<String> options) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-jar", jar.toString()));
        if (regex != null) {
            cmd.add(regex);
        }
        cmd.addAll(alternative);
        cmd.addAll(List.of("-f", "1", "-rf", "json", "-rff", json.toString()));
        cmd.addAll(options);
        return cmd;
    }

    /** JMH's options for the value {@code value} of the {@code @Param} {@code param}. */
    public static List<String> paramArgs(String param, String value) {
        return List.of("-p", param + "=" + value);
    }

    /**
     * JMH's options that start the measured JVM with numaloom's agent: {@code -jvmArgsAppend
     * -javaagent:JAR[=options]} (appended to what JMH passes on, so the user's {@code -jvmArgs} stay).
     */
    public static List<String> agentArgs(Path agentJar, String agentOptions) {
        return List.of("-jvmArgsAppend", "-javaagent:" + agentJar + (agentOptions.isEmpty() ? "" : "=" + agentOptions));
    }

    /** The {@code java} of the JVM that runs the bench. */
    public static String currentJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * JVM options of the JMH host JVM, which JMH passes on to the JVMs it forks unless {@code -jvmArgs} is given:
     * numaloom finds CPUs through native calls, and JMH 1.37 uses {@code sun.misc.Unsafe}; without these JDK 25 warns.
     */
    public static final List<String> HOST_JVM_ARGS = List.of("--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow");

    /** The longest a fork waits for another JMH run on the machine to release JMH's lock file, in seconds. */
    static final int LOCK_WAIT_SECONDS = 600;
    /** What JMH 1.37 prints when another JMH run holds its lock file ({@code java.io.tmpdir/jmh.lock}). */
    static final String LOCK_HELD = "Unable to acquire the JMH lock";

    private final ChildProcesses children;
    private final java.util.function.Consumer<String> notices;
    private final Path jar;
    private final String regex;
    private final String param;
    private final java.util.function.BiFunction<String, Path, List<String>> alternatives;
    private final List<String> options;

    /**
     * @param children through which the forks start (and end on a stop)
     * @param jar      the benchmarks jar (its manifest's main class is JMH's {@code org.openjdk.jmh.Main})
     * @param regex    the benchmarks to run (JMH's regex), or null for all
     * @param param    the compared {@code @Param}
     * @param options  more JMH options, after the route's own
     * @param notices  where to say that a fork waits for another JMH run's lock
     */
    public JmhJarRun(ChildProcesses children, Path jar, String regex, String param, List<String> options,
                     java.util.function.Consumer<String> notices) {
        this(children, jar, regex, param, (value, log) -> paramArgs(param, value), options, notices);
    }

    /**
     * @param param        the compared {@code @Param}, left out of the scores' keys; null where the alternatives are
     *                     not values of a parameter (the agent against none)
     * @param alternatives the JMH options that make a value's fork ({@link #paramArgs}, {@link #agentArgs}), given the
     *                     value and the fork's log
     */
    public JmhJarRun(ChildProcesses children, Path jar, String regex, String param,
                     java.util.function.BiFunction<String, Path, List<String>> alternatives, List<String> options,
                     java.util.function.Consumer<String> notices) {
        this.children = children;
        this.notices = notices;
        this.jar = jar;
        this.regex = regex;
        this.param = param;
        this.alternatives = alternatives;
        this.options = List.copyOf(options);
    }

    /**
     * Runs one fork for {@code value}: JMH's output goes to {@code log}, its result to {@code json}.
     *
     * @param name the alternative's name for the failure's reason ({@code VNA}, or the reference's twin)
     * @throws ChildProcesses.StoppingException if the run is stopping (nothing was started)
     */
    public Outcome run(String name, String value, Path json, Path log) throws IOException, InterruptedException,
            ChildProcesses.StoppingException {
        Files.createDirectories(json.toAbsolutePath().getParent());
        Files.createDirectories(log.toAbsolutePath().getParent());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LOCK_WAIT_SECONDS);
        int status;
        boolean said = false;
        while (true) {
            Files.deleteIfExists(json);
            status = fork(value, json, log);
            // JMH keeps two runs on one machine from measuring at once: wait for the other one, as bench does.
            if (status == 0 || !logSays(log, LOCK_HELD) || System.nanoTime() - deadline > 0) {
                break;
            }
            if (!said) {
                notices.accept("another JMH run holds JMH's lock (" + System.getProperty("java.io.tmpdir")
                        + "/jmh.lock): waiting for it, at most " + LOCK_WAIT_SECONDS + " s (-Djmh.ignoreLock=true on the bench"
                        + " JVM, e.g. in NUMALOOM_JAVA_OPTS, skips the lock)");
                said = true;
            }
            Thread.sleep(1000);
        }
        String where = " (log: " + log + ")";
        if (status != 0 || !Files.exists(json)) {
            String hint = firstError(log);
            return new Outcome(List.of(), name + ": JMH exited with status " + status
                    + (Files.exists(json) ? "" : " and wrote no result") + (hint.isEmpty() ? "" : ": " + hint) + where, log);
        }
        try {
            return new Outcome(parse(Files.readString(json), param), null, log);
        } catch (IOException e) {
            return new Outcome(List.of(), name + ": unreadable JMH result " + json + ": " + e.getMessage() + where, log);
        }
    }

    private int fork(String value, Path json, Path log) throws IOException, InterruptedException, ChildProcesses.StoppingException {
        List<String> jvmArgs = new ArrayList<>(HOST_JVM_ARGS);
        if (System.getProperty("jmh.ignoreLock") != null) {
            jvmArgs.add("-Djmh.ignoreLock=" + System.getProperty("jmh.ignoreLock"));
        }
        ProcessBuilder builder = new ProcessBuilder(command(currentJava(), jvmArgs, jar, regex, alternatives.apply(value, log), json, options))
                .redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(nullFile()));
        Process p = children.start(builder);
        try {
            return p.waitFor();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static boolean logSays(Path log, String text) {
        try {
            return Files.readString(log).contains(text);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static java.io.File nullFile() {
        return new java.io.File(System.getProperty("os.name", "").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    /** The first line of a log that names an exception or error, shortened; empty if none. */
    static String firstError(Path log) {
        try (var lines = Files.lines(log)) {
            return lines.map(String::strip)
                    .filter(l -> l.contains("Exception") || l.startsWith("Error") || l.startsWith("ERROR"))
                    .findFirst().map(l -> l.length() > 160 ? l.substring(0, 157) + "..." : l).orElse("");
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** {@code v1-VNA}: a file name stem for alternative number {@code index} (from 1), safe on any file system. */
    public static String fileStem(int index, String name) {
        return "v" + index + "-" + name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
