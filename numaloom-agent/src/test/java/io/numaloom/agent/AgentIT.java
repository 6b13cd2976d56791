package io.numaloom.agent;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged agent as a user runs it: {@code java -javaagent:numaloom-agent.jar[=options] -cp app
 * org.example.app.AgentMain}, the application unchanged (its classes are this module's test classes).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AgentIT {
    private static final Path JAR = Path.of(System.getProperty("numaloom.agent.jar", "target/numaloom-agent.jar"));

    private record Run(int status, String out, String err) {}

    private static Run java(Path dir, String agentOptions) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        if (agentOptions != null) {
            command.add("-javaagent:" + JAR.toAbsolutePath() + (agentOptions.isEmpty() ? "" : "=" + agentOptions));
        }
        command.addAll(List.of("-cp", Path.of("target", "test-classes").toAbsolutePath().toString(), "org.example.app.AgentMain"));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the application did not end: " + command);
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void withoutTheAgentTheApplicationHasItsOwnLocks(@TempDir Path dir) throws Exception {
        Run run = java(dir, null);
        assertEquals(0, run.status(), run.err());
        assertTrue(run.out().contains("plain=java.util.concurrent.locks.ReentrantLock"), run.out());
        assertTrue(run.out().contains("count=8000"), run.out());
    }

    @Test
    void theAgentSwapsTheUnfairLocksKeepsTheFairOneAndReports(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("report.txt");
        Run run = java(dir, "include=org.example.,counts,report=" + report);
        assertEquals(0, run.status(), run.err());
        assertTrue(run.out().contains("plain=io.numaloom.agent.CountingLock"), run.out());
        assertTrue(run.out().contains("fair=java.util.concurrent.locks.ReentrantLock"), run.out());
        assertTrue(run.out().contains("subclass-super=io.numaloom.agent.CountingLock"), run.out());
        assertTrue(run.out().contains("computed-unfair=io.numaloom.agent.CountingLock"), run.out());
        assertTrue(run.out().contains("computed-fair-isFair=true"), "a computed fairness that asks for it keeps it: " + run.out());
        assertTrue(run.out().contains("count=8000"), "mutual exclusion under the swapped lock: " + run.out());
        String text = Files.readString(report);
        assertTrue(text.contains("swapped org.example.app.UnfairHolder.<init>:7: ReentrantLock -> io.numaloom.agent.CountingLock"
                + " (8000 acquisitions"), text);
        assertTrue(text.contains("left    org.example.app.FairHolder.<init>:6: makes a fair ReentrantLock"), text);
    }

    @Test
    void aBadOptionStopsTheJvmWithOneLine(@TempDir Path dir) throws Exception {
        Run run = java(dir, "verbose");
        assertEquals(2, run.status());
        assertEquals("numaloom-agent: unknown option 'verbose'; " + AgentOptions.USAGE, run.err().strip());
        assertEquals("", run.out());
    }
}
