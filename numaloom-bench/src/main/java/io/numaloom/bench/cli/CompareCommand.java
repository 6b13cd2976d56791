package io.numaloom.bench.cli;

import io.numaloom.bench.report.LockComparison;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code ./numaloom compare RESULTS_DIR LOCK OTHER}: two locks of one run compared with each other rather than with
 * the reference ({@link LockComparison}): per point the ratio of {@code LOCK} to {@code OTHER} with its 95% interval,
 * paired by round, and the geometric mean. How a variant (a lock entry with a {@code label} and {@code jvmArgs}) is
 * judged against the lock it varies.
 */
final class CompareCommand {
    private CompareCommand() {}

    static final String HELP = """
            Usage: ./numaloom compare RESULTS_DIR LOCK OTHER [--wait max|p999]

            Reads the results of one run (results.json) and prints, at every bench and thread count where both
            locks were measured, the throughput ratio LOCK / OTHER with its 95% interval over the
            rounds (each round's forks paired, as the summary pairs a lock with its reference), its
            verdict (faster or slower only where the interval excludes 1), and the geometric mean of
            the ratios with its interval. LOCK and OTHER are the names the run gives its locks: a
            lock entry's "label" where it has one. E.g., with a configuration whose locks are
              [ { "name": "UNFAIR_REENTRANT" }, { "name": "VNA" },
                { "name": "VNA", "label": "VNA-no-poll", "jvmArgs": ["-Dsome.switch=off"] } ]
            run ./numaloom compare results/ablation VNA-no-poll VNA

            --wait max compares instead each round's longest acquire wait of LOCK's fork with
            OTHER's in the same round (--wait p999: the 99.9th percentile of the round's waits),
            with the same intervals: below 1, LOCK waits less ("shorter"). For a mechanism kept for
            the bound on waits rather than for throughput.
            """;

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && Main.isHelp(args[0])) {
            out.print(HELP);
            return Main.OK;
        }
        LockComparison.Measure measure = LockComparison.Measure.THROUGHPUT;
        java.util.List<String> positional = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--wait")) {
                String v = Main.optionValue(args, ++i, "--wait");
                measure = switch (v) {
                    case "max" -> LockComparison.Measure.LONGEST_WAIT;
                    case "p999" -> LockComparison.Measure.P999_WAIT;
                    default -> throw new Main.UsageException("--wait takes max or p999, got '" + v + "'");
                };
            } else if (a.startsWith("-")) {
                throw new Main.UsageException("unknown option '" + a + "'");
            } else {
                positional.add(a);
            }
        }
        if (positional.size() != 3) {
            throw new Main.UsageException("expected a results directory and two lock names, got " + positional.size()
                    + " argument" + (positional.size() == 1 ? "" : "s"));
        }
        Path dir = Path.of(positional.get(0));
        if (!Files.isDirectory(dir)) {
            throw new Main.UsageException("no such directory: " + dir);
        }
        try {
            out.print(LockComparison.read(dir, positional.get(1), positional.get(2), measure).text());
            return Main.OK;
        } catch (IllegalArgumentException e) {
            err.println("numaloom compare: " + e.getMessage());
            return Main.USAGE;
        } catch (IOException e) {
            err.println("numaloom compare: cannot read " + dir + ": " + e.getMessage());
            return Main.ERROR;
        }
    }
}
