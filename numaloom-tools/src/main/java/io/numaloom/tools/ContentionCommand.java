package io.numaloom.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code contention FILE.jfr [--out DIR] [--top N] [--no-keys]}: the lock contention of a JFR
 * recording, as a table and {@code DIR/contention.html}. Run by this module's {@link Main}
 * ({@code java -jar numaloom-tools-VERSION.jar contention}) and by the bench's
 * {@code ./numaloom contention}.
 */
public final class ContentionCommand {
    /** Exit status: success. */
    public static final int OK = 0;
    /** Exit status: the report could not be written. */
    public static final int ERROR = 1;
    /** Exit status: bad usage, or a file that is not a recording. */
    public static final int USAGE = 2;
    static final int DEFAULT_TOP = 10;

    private ContentionCommand() {}

    /** The help of the command, as {@code command} (e.g. {@code ./numaloom contention}) runs it. */
    public static String help(String command) {
        return """
                Usage: %1$s FILE.jfr [--out DIR] [--top N] [--no-keys]

                Summarizes the lock waits of a JFR recording made by any application: numaloom's locks
                (io.numaloom.LockContended and io.numaloom.ConditionAwait: waits, percentiles, how often
                waiters parked, took the lock by reservation, or waited for a holder of another NUMA
                node, the holders that made them wait longest, the keys of a KeyedLock), and beside them
                the JDK's: ReentrantLock and other parks (jdk.ThreadPark) and synchronized
                (jdk.JavaMonitorEnter). For each lock, where in the application threads waited (the first
                frame outside numaloom and the JDK). Prints a table and writes DIR/contention.html (default
                DIR: FILE without .jfr, plus -contention). JDK 25 records parks and monitor enters of
                platform threads only, not of virtual threads; numaloom's events record both.

                Record with:  java -XX:StartFlightRecording:filename=app.jfr ...
                (waits of 20 ms or more; add ,+io.numaloom.LockContended#threshold=1ms for shorter ones)

                Options:
                  --out DIR   where to write contention.html
                  --top N     how many locks each table lists (default 10)
                  --no-keys   show a KeyedLock's keys by hash, not by the strings the recording holds
                """.formatted(command);
    }

    /**
     * Runs the command with {@code args} (after the command's name); returns the exit status.
     *
     * @param command how the user ran it, for the help and error messages, e.g. {@code ./numaloom contention}
     */
    public static int run(String[] args, PrintStream out, PrintStream err, String command) {
        try {
            return runOrThrow(args, out, err, command);
        } catch (UsageException e) {
            err.println("numaloom contention: " + e.getMessage());
            err.println("Try: " + command + " --help");
            return USAGE;
        }
    }

    private static int runOrThrow(String[] args, PrintStream out, PrintStream err, String command) {
        if (args.length == 1 && Main.isHelp(args[0])) {
            out.print(help(command));
            return OK;
        }
        Path file = null;
        Path dir = null;
        int top = DEFAULT_TOP;
        boolean showKeys = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> dir = Path.of(optionValue(args, ++i, "--out"));
                case "--top" -> top = positive(optionValue(args, ++i, "--top"));
                case "--no-keys" -> showKeys = false;
                default -> {
                    if (args[i].startsWith("-") || file != null) {
                        throw new UsageException("unexpected argument '" + args[i] + "'");
                    }
                    file = Path.of(args[i]);
                }
            }
        }
        if (file == null) {
            throw new UsageException("expected a JFR recording, e.g. " + command + " app.jfr");
        }
        if (!Files.isRegularFile(file)) {
            err.println("numaloom contention: no such file: " + file);
            return USAGE;
        }
        if (dir == null) {
            String name = file.getFileName().toString().replaceFirst("\\.jfr$", "");
            dir = file.toAbsolutePath().resolveSibling(name + "-contention");
        }
        Contention.Summary summary;
        try {
            summary = Contention.read(file, new Contention.Options(showKeys));
        } catch (IOException e) {
            err.println("numaloom contention: cannot read " + file + " as a JFR recording: " + oneLine(e.getMessage()));
            return USAGE;
        } catch (OutOfMemoryError e) {
            err.println("numaloom contention: " + file + " does not fit in this JVM's heap; give it more (java -Xmx...)");
            return ERROR;
        } catch (Throwable e) { // the JDK's parser throws InternalError, among others, for damaged metadata
            err.println("numaloom contention: cannot read " + file + " as a JFR recording: the recording is damaged ("
                    + oneLine(String.valueOf(e)) + ")");
            return USAGE;
        }
        out.print(Contention.text(summary, top));
        try {
            out.println("Report: " + ContentionReport.write(summary, dir, top));
        } catch (IOException e) {
            err.println("numaloom contention: cannot write the report into " + dir + ": " + e.getMessage());
            return ERROR;
        }
        return OK;
    }

    /** {@code text} on one line: a parser's message may span several. */
    static String oneLine(String text) {
        return text == null ? "" : text.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /** The value of {@code option} at {@code args[i]}; a usage error if it is missing or another option. */
    private static String optionValue(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
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
        throw new UsageException("--top must be a whole number >= 1, got '" + text + "'");
    }

    /** A command line that does not make sense; the message says why. */
    private static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
