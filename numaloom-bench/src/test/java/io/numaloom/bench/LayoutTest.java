package io.numaloom.bench;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bench's layout shows its architecture (issue 29 §6): the root package holds only the types that workloads
 * and locks implement or use, and the report is drawn from results, never from the runner. Reads the source tree
 * (surefire runs in the module directory).
 */
class LayoutTest {
    private static final Path ROOT = Path.of("src/main/java/io/numaloom/bench");
    /** Source files (package-info.java included) the root package may hold. */
    private static final int ROOT_LIMIT = 12;
    /** An import of the runner: its package, or {@code BenchRunner} wherever it lives. */
    private static final Pattern RUNNER_IMPORT =
            Pattern.compile("^\\s*import\\s+(static\\s+)?io\\.numaloom\\.bench\\.(run\\.|(\\w+\\.)*BenchRunner\\b)");

    @Test
    void theRootPackageHoldsAtMostADozenFiles() throws IOException {
        assertTrue(Files.isDirectory(ROOT), "run from the numaloom-bench module directory: no " + ROOT.toAbsolutePath());
        List<String> files;
        try (Stream<Path> list = Files.list(ROOT)) {
            files = list.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".java")).sorted().toList();
        }
        assertTrue(files.size() <= ROOT_LIMIT, "io.numaloom.bench holds " + files.size() + " source files, at most "
                + ROOT_LIMIT + " allowed; move the new one into config, run or result: " + files);
    }

    @Test
    void theReportImportsNothingOfTheRunner() throws IOException {
        List<String> offending = runnerImports(ROOT.resolve("report"));
        assertTrue(offending.isEmpty(), "the report depends on results, not on the runner: " + offending);
    }

    @Test
    void theResultsImportNothingOfTheRunner() throws IOException {
        List<String> offending = runnerImports(ROOT.resolve("result"));
        assertTrue(offending.isEmpty(), "what a run produced is read without the runner: " + offending);
    }

    /** Every line of a source file under {@code dir} that imports the runner, with its file. */
    private static List<String> runnerImports(Path dir) throws IOException {
        assertTrue(Files.isDirectory(dir), "no " + dir.toAbsolutePath());
        List<String> offending = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                for (String line : Files.readAllLines(file)) {
                    if (RUNNER_IMPORT.matcher(line).find()) {
                        offending.add(ROOT.relativize(file) + ": " + line.strip());
                    }
                }
            }
        }
        return offending;
    }
}
