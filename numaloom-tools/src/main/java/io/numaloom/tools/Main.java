package io.numaloom.tools;

import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * {@code java -jar numaloom-tools-VERSION.jar contention app.jfr}: the tools that read what an
 * application using numaloom records, with nothing but a JDK (25 or later) on the machine: no clone
 * of numaloom, no other jar.
 *
 * <p>Exit status: 0 success; 1 an error; 2 bad usage or a file that is not a recording.
 */
public final class Main {

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command line; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || isHelp(args[0])) {
            (args.length == 0 ? err : out).print(usage());
            return args.length == 0 ? ContentionCommand.USAGE : ContentionCommand.OK;
        }
        if (args[0].equals("--version")) {
            out.println("numaloom-tools " + version());
            return ContentionCommand.OK;
        }
        if (args[0].equals("contention")) {
            return ContentionCommand.run(Arrays.copyOfRange(args, 1, args.length), out, err, launcher() + " contention");
        }
        err.println("numaloom-tools: unknown command '" + args[0] + "'; the command is: contention");
        err.print(usage());
        return ContentionCommand.USAGE;
    }

    static boolean isHelp(String arg) {
        return arg.equals("--help") || arg.equals("-h") || arg.equals("help");
    }

    static String usage() {
        return """
                Usage: %1$s <command> [options]

                Reads what an application that uses numaloom records, with nothing but a JDK.

                Commands:
                  contention FILE.jfr [--out DIR] [--top N] [--no-keys]
                                 the lock waits of a JFR recording of any application: numaloom's locks
                                 (keys, holders, conditions), ReentrantLock and other parks, synchronized;
                                 where in the application threads waited; a table and an HTML page

                %1$s contention --help says more. --version prints the version.
                """.formatted(launcher());
    }

    /** {@code java -jar numaloom-tools-0.1.0.jar}: this jar's name when run from it, else the artifact's pattern. */
    static String launcher() {
        try {
            var source = Main.class.getProtectionDomain().getCodeSource();
            if (source != null) {
                Path p = Path.of(source.getLocation().toURI());
                String name = p.getFileName() == null ? "" : p.getFileName().toString();
                if (name.endsWith(".jar")) {
                    return "java -jar " + name;
                }
            }
        } catch (URISyntaxException | RuntimeException e) {
            // a class path entry that is not a file: fall back to the pattern
        }
        return "java -jar numaloom-tools-" + version() + ".jar";
    }

    /** The version in the jar's manifest, or {@code VERSION} outside a jar. */
    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "VERSION" : v;
    }
}
