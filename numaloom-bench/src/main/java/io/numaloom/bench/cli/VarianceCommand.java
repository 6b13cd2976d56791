package io.numaloom.bench.cli;

import io.numaloom.bench.report.VarianceComponents;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code ./numaloom variance RESULTS_DIR}: where each point's noise lives, within a JVM's measured iterations or between
 * JVMs, and how many measured iterations per fork would narrow its intervals most for the time
 * ({@link VarianceComponents}).
 */
final class VarianceCommand {
    private VarianceCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && Main.isHelp(args[0])) {
            out.print("""
                    Usage: ./numaloom variance RESULTS_DIR

                    Per point of a run with two or more rounds: the sd of a measured iteration's time within
                    one JVM (fork), the sd of the JVMs' own means beyond that, what an iteration and the rest
                    of a fork cost, and the measured iterations per fork that narrow the intervals most for
                    the time (T. Kalibera and R. Jones, ISMM 2013). Where the noise is within a JVM, raise a
                    bench's "measurementIterations"; where it is between JVMs, only more rounds help.
                    """);
            return Main.OK;
        }
        if (args.length != 1 || args[0].startsWith("-")) {
            throw new Main.UsageException("expected one results directory");
        }
        Path dir = Path.of(args[0]);
        if (!Files.isDirectory(dir)) {
            throw new Main.UsageException("no such directory: " + dir);
        }
        try {
            out.print(VarianceComponents.text(dir, VarianceComponents.of(dir)));
            return Main.OK;
        } catch (IllegalArgumentException e) {
            err.println("numaloom variance: " + e.getMessage());
            return Main.USAGE;
        } catch (IOException e) {
            err.println("numaloom variance: " + e.getMessage());
            return Main.ERROR;
        }
    }
}
