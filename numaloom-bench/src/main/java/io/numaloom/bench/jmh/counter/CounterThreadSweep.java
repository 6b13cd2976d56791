package io.numaloom.bench.jmh.counter;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the counter benchmarks once per thread count (JMH takes one {@code -t} per run) and prints one
 * table: benchmark, parameters, threads, score. Arguments are JMH's, plus:
 *
 * <pre>{@code
 * --threads 1,2,4      thread counts (default: 1, 2, 4 ... up to the CPU count, and the CPU count)
 * --virtual            benchmark threads are virtual threads (-Djmh.executor=VIRTUAL in the forks)
 * }</pre>
 *
 * Without a benchmark pattern it runs {@code io.numaloom.bench.jmh.counter.*}. Example:
 *
 * <pre>{@code
 * java -cp numaloom-bench/target/numaloom-bench.jar io.numaloom.bench.jmh.counter.CounterThreadSweep \
 *      --threads 1,2 AcquireReleasePair -f 1 -wi 2 -w 1s -i 3 -r 1s
 * }</pre>
 */
public final class CounterThreadSweep {
    private CounterThreadSweep() {}

    public static void main(String[] args) throws Exception {
        List<Integer> threads = defaultThreads(Runtime.getRuntime().availableProcessors());
        boolean virtualThreads = false;
        List<String> jmhArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--threads" -> {
                    if (i + 1 == args.length) {
                        throw new IllegalArgumentException("--threads needs a list, e.g. --threads 1,2,4");
                    }
                    threads = parseThreads(args[++i]);
                }
                case "--virtual" -> virtualThreads = true;
                default -> jmhArgs.add(args[i]);
            }
        }
        CommandLineOptions cmd = new CommandLineOptions(jmhArgs.toArray(String[]::new));
        boolean virtual = virtualThreads;
        List<String[]> rows = new ArrayList<>();
        for (int t : threads) {
            ChainedOptionsBuilder options = new OptionsBuilder().parent(cmd).threads(t);
            if (cmd.getIncludes().isEmpty()) {
                options.include("io\\.numaloom\\.bench\\.jmh\\.counter\\.");
            }
            if (virtual) {
                // Options set here replace the benchmarks' @Fork(jvmArgsAppend), so repeat its flag.
                List<String> append = new ArrayList<>(cmd.getJvmArgsAppend().orElse(List.of()));
                append.add("--enable-native-access=ALL-UNNAMED");
                append.add("-Djmh.executor=VIRTUAL");
                options.jvmArgsAppend(append.toArray(String[]::new));
            }
            Collection<RunResult> results = new Runner(options.build()).run();
            for (RunResult r : results) {
                Result<?> primary = r.getPrimaryResult();
                rows.add(new String[] {
                        r.getParams().getBenchmark().replace("io.numaloom.bench.jmh.counter.", ""),
                        params(r), Integer.toString(t), virtual ? "virtual" : "platform",
                        String.format(Locale.ROOT, "%.2f", primary.getScore()),
                        String.format(Locale.ROOT, "%.2f", primary.getScoreError()), primary.getScoreUnit()});
                r.getSecondaryResults().forEach((label, secondary) -> rows.add(new String[] {
                        r.getParams().getBenchmark().replace("io.numaloom.bench.jmh.counter.", "") + ":" + label,
                        params(r), Integer.toString(t), virtual ? "virtual" : "platform",
                        String.format(Locale.ROOT, "%.2f", secondary.getScore()),
                        String.format(Locale.ROOT, "%.2f", secondary.getScoreError()), secondary.getScoreUnit()}));
            }
        }
        print(rows);
    }

    static List<Integer> defaultThreads(int cpus) {
        TreeSet<Integer> set = new TreeSet<>();
        for (int t = 1; t <= cpus; t *= 2) {
            set.add(t);
        }
        set.add(cpus);
        return new ArrayList<>(set);
    }

    static List<Integer> parseThreads(String list) {
        List<Integer> threads = new ArrayList<>();
        for (String part : list.split(",")) {
            int t;
            try {
                t = Integer.parseInt(part.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--threads: '" + part + "' is not a number in '" + list + "'");
            }
            if (t < 1) {
                throw new IllegalArgumentException("--threads: " + t + " must be at least 1 in '" + list + "'");
            }
            threads.add(t);
        }
        return threads;
    }

    private static String params(RunResult r) {
        List<String> parts = new ArrayList<>();
        for (String key : r.getParams().getParamsKeys()) {
            parts.add(key + "=" + r.getParams().getParam(key));
        }
        return parts.isEmpty() ? "-" : String.join(" ", parts);
    }

    private static void print(List<String[]> rows) {
        String[] header = {"Benchmark", "Params", "Threads", "Kind", "Score", "Error", "Units"};
        int[] width = new int[header.length];
        List<String[]> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        for (String[] row : all) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        System.out.println();
        for (String[] row : all) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                String cell = row[i];
                boolean number = i >= 2 && i <= 5;
                String pad = " ".repeat(width[i] - cell.length());
                line.append(number ? pad + cell : cell + pad).append("  ");
            }
            System.out.println(line.toString().stripTrailing());
        }
        if (rows.isEmpty()) {
            System.out.println("(no results: did the benchmark pattern match?)");
        }
    }
}
