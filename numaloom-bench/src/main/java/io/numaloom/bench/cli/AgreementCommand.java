package io.numaloom.bench.cli;

import io.numaloom.bench.report.RunsAgreement;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./numaloom agreement RESULTS_DIR RESULTS_DIR...}: how far two or more runs of one configuration agree
 * ({@link RunsAgreement}): the A/A control over all of them, each lock's verdicts run against run, the precision each
 * run reached, and what every run judged slower or faster. The check of the verdict method that
 * {@code configs/aa.json} describes.
 */
final class AgreementCommand {
    private AgreementCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && Main.isHelp(args[0])) {
            out.print("""
                    Usage: ./numaloom agreement RESULTS_DIR RESULTS_DIR [RESULTS_DIR...]

                    Reads the summary.csv of two or more runs of the same configuration and prints how far
                    they agree: how often the reference's twin (the A/A control) was judged different and
                    how often its ratio lay within 0.9-1.1; per lock, at how many points its verdict
                    (faster, slower, tied) was the same in every run; the median and widest half-width of
                    each run's intervals; and what every run judged slower or faster. E.g., after
                      ./numaloom bench --config configs/aa.json --budget 12m --seed 1 --out results/aa-1
                      ./numaloom bench --config configs/aa.json --budget 12m --seed 2 --out results/aa-2
                    run ./numaloom agreement results/aa-1 results/aa-2
                    """);
            return Main.OK;
        }
        List<Path> dirs = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("-")) {
                throw new Main.UsageException("unknown option '" + a + "'");
            }
            Path dir = Path.of(a);
            if (!Files.isDirectory(dir)) {
                throw new Main.UsageException("no such directory: " + dir);
            }
            dirs.add(dir);
        }
        if (dirs.size() < 2) {
            throw new Main.UsageException("expected two or more results directories of the same configuration");
        }
        try {
            out.print(RunsAgreement.read(dirs).text());
            return Main.OK;
        } catch (IllegalArgumentException e) {
            err.println("numaloom agreement: " + e.getMessage());
            return Main.USAGE;
        } catch (IOException e) {
            err.println("numaloom agreement: " + e.getMessage());
            return Main.ERROR;
        }
    }
}
