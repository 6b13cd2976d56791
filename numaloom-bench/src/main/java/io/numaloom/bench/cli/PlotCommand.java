package io.numaloom.bench.cli;

import io.numaloom.bench.report.Recommendation;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.result.ResultsDirectory;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code ./numaloom plot RESULTS_DIR}: redraws the plots and report of a results directory and prints its verdict. */
final class PlotCommand {
    private PlotCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && Main.isHelp(args[0])) {
            out.print("""
                    Usage: ./numaloom plot RESULTS_DIR

                    Redraws the plots (<bench id>.png and .svg, and <bench id>-ratio.png and .svg: the ratios to the
                    reference with their 95% intervals) and index.html of a results directory from its
                    config.json, results.json and machine.json, e.g. after a run was cut short, or to draw
                    results copied from another machine, and prints its verdict (the run's last lines).
                    """);
            return Main.OK;
        }
        if (args.length != 1 || args[0].startsWith("-")) {
            throw new Main.UsageException("expected one results directory");
        }
        Path dir = Path.of(args[0]);
        if (!Files.isDirectory(dir)) {
            err.println("numaloom plot: no such directory: " + dir);
            return Main.USAGE;
        }
        if (!Files.exists(dir.resolve(ResultsDirectory.CONFIG_FILE))) {
            err.println("numaloom plot: " + dir + " is not a results directory: it has no " + ResultsDirectory.CONFIG_FILE
                    + " (give the folder ./numaloom bench wrote, e.g. results/<timestamp>)");
            return Main.USAGE;
        }
        try {
            Report.write(dir);
            out.print(Recommendation.read(dir).text());
        } catch (IOException e) {
            err.println("numaloom plot: " + e.getMessage());
            return Main.ERROR;
        }
        out.println("Report: " + dir.resolve(Report.INDEX));
        return Main.OK;
    }
}
