package io.numaloom.bench.cli;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.jmh.UncontendedLockUnlock;
import io.numaloom.bench.run.PointBenchmark;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./numaloom jmh [JMH options]}: JMH's own command line over the microbenchmarks of the bench jar
 * (package {@code io.numaloom.bench.jmh}), with two additions: when {@link UncontendedLockUnlock} is the
 * only selected benchmark with a {@code lock} parameter, that parameter defaults to every registered lock
 * (so baselines added later are measured without editing an annotation), and the
 * measured JVMs get {@code --enable-native-access=ALL-UNNAMED} unless {@code -jvmArgsAppend} is given. The
 * harness of {@code bench} ({@link PointBenchmark}) is never run from here.
 */
final class JmhCommand {
    private JmhCommand() {}

    /**
     * Whether, of the benchmarks the command line selects, {@link UncontendedLockUnlock} is the only one with
     * a {@code lock} parameter. JMH parameters are global, so every registered lock (and
     * {@code SYNCHRONIZED}) is injected only then; otherwise each benchmark keeps its own default list.
     */
    private static boolean onlyUncontendedTakesLock(CommandLineOptions cmd, String harness) {
        List<String> includes = cmd.getIncludes().isEmpty() ? List.of(".*") : cmd.getIncludes();
        List<String> excludes = new ArrayList<>(cmd.getExcludes());
        excludes.add(harness);
        var silent = OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT);
        boolean uncontended = false;
        for (BenchmarkListEntry entry : BenchmarkList.defaultList().find(silent, includes, excludes)) {
            boolean takesLock = entry.getParams().hasValue() && entry.getParams().get().containsKey("lock");
            if (takesLock && !entry.getUserClassQName().equals(UncontendedLockUnlock.class.getName())) {
                return false;
            }
            uncontended |= takesLock;
        }
        return uncontended;
    }

    /** JMH's help and lists print on System.out; this command prints on {@code out}. */
    private static void printingTo(PrintStream out, IoAction action) throws IOException {
        PrintStream saved = System.out;
        System.setOut(out);
        try {
            action.run();
        } finally {
            System.setOut(saved);
        }
    }

    private interface IoAction {
        void run() throws IOException;
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        // JMH knows -h only; --help, as every other command takes it, is JMH's -h here.
        args = java.util.Arrays.stream(args).map(a -> a.equals("--help") ? "-h" : a).toArray(String[]::new);
        CommandLineOptions cmd;
        try {
            cmd = new CommandLineOptions(args);
        } catch (CommandLineOptionException e) {
            throw new Main.UsageException(e.getMessage());
        }
        try {
            if (cmd.shouldHelp()) {
                out.println("""
                        Usage: ./numaloom jmh [JMH options] [benchmark regex]

                        Runs the JMH microbenchmarks of the bench jar, for example:
                          ./numaloom jmh -l                                       list them
                          ./numaloom jmh UncontendedLockUnlock -f 1 -wi 3 -i 5 -prof gc
                          ./numaloom jmh UncontendedLockUnlock -p lock=VNA,SYNCHRONIZED
                        Run alone, UncontendedLockUnlock measures every registered lock unless -p lock=... is
                        given. JMH's options:
                        """);
                printingTo(out, cmd::showHelp);
                return Main.OK;
            }
            if (cmd.shouldListProfilers()) {
                printingTo(out, cmd::listProfilers);
                return Main.OK;
            }
            if (cmd.shouldListResultFormats()) {
                printingTo(out, cmd::listResultFormats);
                return Main.OK;
            }
            OptionsBuilder options = new OptionsBuilder();
            options.parent(cmd);
            String harness = PointBenchmark.class.getName().replace(".", "\\.");
            options.exclude(harness);
            if (!cmd.getParameter("lock").hasValue() && onlyUncontendedTakesLock(cmd, harness)) {
                options.param("lock", Mutex.names().toArray(String[]::new));
            }
            if (!cmd.getJvmArgsAppend().hasValue()) {
                options.jvmArgsAppend("--enable-native-access=ALL-UNNAMED");
            }
            var built = options.build();
            Runner runner = new Runner(built, OutputFormatFactory.createFormatInstance(out,
                    built.verbosity().orElse(VerboseMode.NORMAL)));
            if (cmd.shouldList()) {
                runner.list();
            } else if (cmd.shouldListWithParams()) {
                runner.listWithParams(cmd);
            } else {
                runner.run();
            }
            return Main.OK;
        } catch (RunnerException e) {
            err.println("numaloom jmh: " + e.getMessage());
            return Main.ERROR;
        } catch (IOException e) {
            err.println("numaloom jmh: " + e);
            return Main.ERROR;
        }
    }
}
