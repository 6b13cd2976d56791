package io.numaloom.bench.cli;

import io.numaloom.bench.report.Contention;
import io.numaloom.bench.report.ContentionReport;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code ./numaloom contention FILE.jfr [--out DIR] [--top N]}: the contention of numaloom locks in a JFR recording. */
final class ContentionCommand {
    static final int DEFAULT_TOP = 10;

    private ContentionCommand() {}

    static String help() {
        return """
                Usage: ./numaloom contention FILE.jfr [--out DIR] [--top N]

                Summarizes the io.numaloom.LockContended and io.numaloom.ConditionAwait events of a JFR
                recording made by any application that uses numaloom: the most contended locks by total
                wait, their wait percentiles, how often waiters parked, took the lock by reservation, or
                waited for a holder of another NUMA node, and the holders that made them wait longest.
                Prints a table and writes DIR/contention.html with a histogram of wait times (default DIR:
                FILE without .jfr, plus -contention).

                Record with:  java -XX:StartFlightRecording:filename=app.jfr ...
                (waits of 20 ms or more; add ,+io.numaloom.LockContended#threshold=1ms for shorter ones)

                Options:
                  --out DIR   where to write contention.html and its plot
                  --top N     how many locks the table lists (default 10)
                """;
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && Main.isHelp(args[0])) {
            out.print(help());
            return Main.OK;
        }
        Path file = null;
        Path dir = null;
        int top = DEFAULT_TOP;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> dir = Path.of(Main.optionValue(args, ++i, "--out"));
                case "--top" -> top = positive(Main.optionValue(args, ++i, "--top"));
                default -> {
                    if (args[i].startsWith("-") || file != null) {
                        throw new Main.UsageException("unexpected argument '" + args[i] + "'");
                    }
                    file = Path.of(args[i]);
                }
            }
        }
        if (file == null) {
            throw new Main.UsageException("expected a JFR recording, e.g. ./numaloom contention app.jfr");
        }
        if (!Files.isRegularFile(file)) {
            err.println("numaloom contention: no such file: " + file);
            return Main.USAGE;
        }
        if (dir == null) {
            String name = file.getFileName().toString().replaceFirst("\\.jfr$", "");
            dir = file.toAbsolutePath().resolveSibling(name + "-contention");
        }
        Contention.Summary summary;
        try {
            summary = Contention.read(file);
        } catch (IOException | RuntimeException e) {
            err.println("numaloom contention: cannot read " + file + " as a JFR recording: " + e.getMessage());
            return Main.USAGE;
        }
        out.print(Contention.text(summary, top));
        try {
            out.println("Report: " + ContentionReport.write(summary, dir, top));
        } catch (IOException e) {
            err.println("numaloom contention: cannot write the report into " + dir + ": " + e.getMessage());
            return Main.ERROR;
        }
        return Main.OK;
    }

    private static int positive(String text) {
        try {
            int n = Integer.parseInt(text);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // below
        }
        throw new Main.UsageException("--top must be a whole number >= 1, got '" + text + "'");
    }
}
