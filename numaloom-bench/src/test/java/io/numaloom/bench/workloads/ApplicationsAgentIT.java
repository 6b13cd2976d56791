package io.numaloom.bench.workloads;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * logback, commons-pool2 and H2 run unchanged through numaloom's agent, as the bench runs them: a JVM started with
 * {@code -javaagent:numaloom-agent.jar=include=...,counts,report=FILE} runs one checked round of the workload. The
 * round's own check requires the library's hot lock to be the agent's (it reads the lock's class); the agent's report
 * must name the swapped site and count the acquisitions made there.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ApplicationsAgentIT {
    private static final Path AGENT = Path.of(System.getProperty("numaloom.agent.jar", "../numaloom-agent/target/numaloom-agent.jar"));

    private record Run(int status, String output) {}

    private static Run run(String workload, String fields, String agentOptions, Path dir) throws Exception {
        assertTrue(Files.isRegularFile(AGENT), AGENT.toAbsolutePath() + " is missing: ./mvnw -pl numaloom-agent -am package");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + AGENT.toAbsolutePath() + "=" + agentOptions,
                "-cp", classPath, ApplicationRoundMain.class.getName(), workload, fields, "4", "virtual"));
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(150, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(workload + " did not end: " + Files.readString(out));
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "logback | \"actionsCount\": 4000, | ch.qos.logback. | swapped ch.qos.logback.core.OutputStreamAppender.<init>",
            "pool    | \"actionsCount\": 4000, \"poolSize\": 2, | org.apache.commons.pool2. | swapped org.apache.commons.pool2.impl.InterruptibleReentrantLock.<init>",
            "h2      | \"actionsCount\": 2000, \"rows\": 10, | org.h2. | swapped org.h2.jdbc.JdbcConnection.<init>"})
    void theAgentSwapsTheLibrarysLockAndTheRoundsCheckPasses(String workload, String fields, String include, String site,
                                                            @TempDir Path dir) throws Exception {
        Path report = dir.resolve("report.txt");
        Run run = run(workload, fields, "include=" + include + ",counts,report=" + report, dir);
        assertEquals(0, run.status(), run.output());
        assertTrue(run.output().contains("operations="), run.output());
        String text = Files.readString(report, StandardCharsets.UTF_8);
        assertTrue(text.contains(site), text);
        // The counted site made the lock the round used: its acquisitions are there, and not zero.
        assertTrue(text.lines().anyMatch(l -> l.contains(site) && l.matches(".*\\((?!0 )\\d+ acquisitions.*")), text);
    }

    /** The agent on, but told to touch nothing of the library: the round refuses to pass for a measurement of it. */
    @org.junit.jupiter.api.Test
    void aRunInWhichTheAgentSwappedNothingFails(@TempDir Path dir) throws Exception {
        Run run = run("pool", "\"actionsCount\": 400,", "include=org.example.nothing.", dir);
        assertTrue(run.status() != 0, run.output());
        assertTrue(run.output().contains("the agent swapped nothing there"), run.output());
    }
}
