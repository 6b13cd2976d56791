package io.numaloom.stress;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs jcstress in a child JVM with its whole output in a log file, and prints one line: how many
 * tests ran, how many failed or erred, where the report and the log are. The build's console thus
 * says what ran and what it found, not jcstress's per-test tables; a failure prints jcstress's
 * failed and erred test names too, and the exit status is jcstress's.
 *
 * <p>Usage: {@code java -cp numaloom-jcstress.jar io.numaloom.stress.JcstressRun LOG [jcstress args]}.
 */
public final class JcstressRun {
    private static final Pattern COUNT = Pattern.compile("^\\s*(Interesting|Failed|Error|All remaining) tests: (\\d+|No) match");
    private static final Pattern PROBLEM = Pattern.compile("^\\.+ \\[(FAILED|ERROR)\\] (\\S+)");

    private JcstressRun() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length < 1) {
            System.err.println("usage: JcstressRun LOG [jcstress arguments]");
            System.exit(2);
        }
        Path log = Path.of(args[0]).toAbsolutePath();
        Files.createDirectories(log.getParent());
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("org.openjdk.jcstress.Main");
        command.addAll(List.of(args).subList(1, args.length));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        int exit = p.waitFor();
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
        System.out.println(summary(Files.readAllLines(log), exit, seconds, log));
        System.exit(exit);
    }

    /** The one line (more when tests failed) the console shows. */
    static String summary(List<String> log, int exit, long seconds, Path logFile) {
        long interesting = 0, failed = 0, errors = 0, remaining = 0;
        List<String> problems = new ArrayList<>();
        String report = null;
        for (String line : log) {
            Matcher m = COUNT.matcher(line);
            if (m.find()) {
                long n = m.group(2).equals("No") ? 0 : Long.parseLong(m.group(2));
                switch (m.group(1)) {
                    case "Interesting" -> interesting = n;
                    case "Failed" -> failed = n;
                    case "Error" -> errors = n;
                    default -> remaining = n;
                }
            }
            Matcher pm = PROBLEM.matcher(line.strip());
            if (pm.find() && !problems.contains(pm.group(1) + " " + pm.group(2))) {
                problems.add(pm.group(1) + " " + pm.group(2));
            }
            if (line.contains("HTML report generated at ")) {
                report = line.substring(line.indexOf("at ") + 3).strip();
            }
        }
        StringBuilder sb = new StringBuilder("jcstress: ");
        long total = interesting + failed + errors + remaining;
        if (exit == 0) {
            sb.append(total).append(" test results, none forbidden (").append(interesting).append(" with interesting outcomes)");
        } else {
            sb.append("exit ").append(exit).append(": ").append(failed).append(" failed, ").append(errors)
                    .append(" erred of ").append(total).append(" test results");
        }
        sb.append(", ").append(seconds).append(" s; report ").append(report == null ? "(none)" : report)
                .append("; log ").append(logFile);
        for (String problem : problems) {
            sb.append(System.lineSeparator()).append("  ").append(problem);
        }
        return sb.toString();
    }
}
