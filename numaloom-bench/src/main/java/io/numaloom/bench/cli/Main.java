package io.numaloom.bench.cli;

import io.numaloom.bench.config.Suggest;
import io.numaloom.tools.ContentionCommand;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code ./numaloom} command: {@code bench}, {@code topology}, {@code plot}, {@code agreement}, {@code variance},
 * {@code compare}, {@code jmh} and {@code contention}.
 *
 * <p>Exit status: 0 success; 1 an error; 2 bad usage or a bad configuration; 3 a bench run that finished
 * with failed points (their rows and reasons are in the results); 130 a bench run stopped by Ctrl-C.
 */
public final class Main {
    static final int OK = 0;
    static final int ERROR = 1;
    static final int USAGE = 2;
    static final int POINTS_FAILED = 3;
    /** Stopped by Ctrl-C (SIGINT), as a shell reports it. */
    static final int STOPPED = 130;

    private Main() {}

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command line; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || isHelp(args[0])) {
            out.print(usage());
            return args.length == 0 ? USAGE : OK;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            return switch (args[0]) {
                case "bench" -> new BenchCommand(out, err).run(rest);
                case "topology" -> TopologyCommand.run(rest, out, err);
                case "plot" -> PlotCommand.run(rest, out, err);
                case "agreement" -> AgreementCommand.run(rest, out, err);
                case "variance" -> VarianceCommand.run(rest, out, err);
                case "compare" -> CompareCommand.run(rest, out, err);
                case "jmh" -> JmhCommand.run(rest, out, err);
                case "contention" -> ContentionCommand.run(rest, out, err, "./numaloom contention");
                default -> {
                    err.println("numaloom: unknown command '" + args[0] + "'"
                            + Suggest.hint(args[0], List.of("bench", "topology", "plot", "agreement", "variance", "compare", "jmh", "contention")));
                    err.print(usage());
                    yield USAGE;
                }
            };
        } catch (UsageException e) {
            err.println("numaloom " + args[0] + ": " + e.getMessage());
            err.println("Try: ./numaloom " + args[0] + " --help");
            return USAGE;
        }
    }

    /** The value of {@code option} at {@code args[i]}; a usage error if it is missing or another option. */
    static String optionValue(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }

    static boolean isHelp(String arg) {
        return arg.equals("--help") || arg.equals("-h") || arg.equals("help");
    }

    static String usage() {
        return """
                Usage: ./numaloom <command> [options]

                Measures locks for virtual threads on this machine and writes a report.

                Commands:
                  bench [--config FILE] [--quick] [--out DIR] [--resume] [--dry-run]
                                 run the benchmarks of a configuration (without --config, the built-in
                                 default: short critical sections, the thesis's high contention and a
                                 cache, VNA against ReentrantLock and synchronized, with a verdict on
                                 every ratio, about 5 minutes on 2 cores) into DIR (default results/<timestamp>/):
                                 results.csv, results.json, summary.csv, a PNG and SVG plot per bench,
                                 index.html; at the end, who won
                  bench --workload-class CLASS --classpath JARS [--quick] [--out DIR]
                                 your own critical section: the run() of your Runnable class, under
                                 VNA, ReentrantLock and synchronized, virtual and platform threads
                  bench --jmh-jar JAR [--jmh-param NAME=V1,V2] [--jmh-benchmark REGEX] [-- JMH options]
                                 your own JMH benchmarks: the values of a @Param compared in interleaved
                                 rounds of JMH forks, each value's ratio to the first with its interval
                  topology [--topology SPEC]
                                 print the NUMA topology numaloom sees and where the current CPU comes from
                  plot RESULTS_DIR
                                 redraw the plots and index.html of a results directory
                  agreement RESULTS_DIR RESULTS_DIR...
                                 how far runs of one configuration agree: the A/A control, each lock's
                                 verdicts run against run, the precision reached (configs/aa.json)
                  variance RESULTS_DIR
                                 where each point's noise lives (within a JVM or between JVMs) and how
                                 many measured iterations per fork pay best
                  compare RESULTS_DIR LOCK OTHER
                                 two locks of one run against each other (a variant against the lock
                                 it varies): each point's ratio with its interval, and their mean
                  jmh [JMH options]
                                 run the JMH microbenchmarks in the bench jar (e.g. -prof gc; -l lists them)
                  contention FILE.jfr [--out DIR] [--top N] [--no-keys]
                                 the lock waits of a JFR recording of any application: numaloom's locks
                                 (percentiles, parks, cross-node waits, holders, keys, conditions) beside
                                 ReentrantLock and other parks and synchronized, with where the application
                                 waited; a table and an HTML page (also numaloom-tools' jar: java -jar
                                 numaloom-tools/target/numaloom-tools-*.jar contention FILE.jfr)

                Each command takes --help. Configurations: see configs/ and ./numaloom bench --help.
                """;
    }

    /** A command line that does not make sense; the message says why. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
