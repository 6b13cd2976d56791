package io.numaloom.bench.workloads;

import io.numaloom.VnaReentrantLock;
import io.numaloom.bench.Mutex;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.run.Execution;
import io.numaloom.bench.run.ThreadPlacement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The workloads of applications nobody here wrote (logback, commons-pool2, H2) run unchanged to a checked result on
 * virtual and platform threads with their stock locks (this JVM has no agent; ApplicationsAgentIT runs them through
 * it); each check catches a planted fault; the swap check refuses a run that is not what its JVM was started for.
 * The timeouts only guard against hangs.
 */
class ApplicationWorkloadsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    static Execution.Outcome runRound(String workload, String fields, int threads, String threadType) throws Exception {
        BenchDefinition b = ConfigReader.parse("""
                { "benches": [ { "name": "%s", "payload": { %s "threads": [%d], "locks": [ { "name": "UNFAIR_REENTRANT" } ] } } ] }
                """.formatted(workload, fields, threads), "test", 2, Mutex.names()).benches().getFirst();
        Round round = b.kind().create(b.settings()).newRound(new RoundContext(threads, "UNFAIR_REENTRANT", 0, threadType, TIMEOUT));
        try (ThreadPlacement placement = ThreadPlacement.create(threadType, 2, false)) {
            return Execution.runOnce(round, threads, placement, true, TIMEOUT); // runs the round's check, then closes it
        }
    }

    @ParameterizedTest
    @CsvSource({
            "logback, '\"actionsCount\": 6001,', virtual",
            "logback, '\"actionsCount\": 6001,', platform",
            "pool, '\"actionsCount\": 6001, \"poolSize\": 2, \"useCpuTokens\": 10,', virtual",
            "pool, '\"actionsCount\": 6001, \"poolSize\": 2, \"useCpuTokens\": 10,', platform",
            "h2, '\"actionsCount\": 3001, \"rows\": 7,', virtual",
            "h2, '\"actionsCount\": 3001, \"rows\": 7,', platform"})
    void eachApplicationRunsUnchangedToACheckedResult(String workload, String fields, String threadType) throws Exception {
        assertFalse(AgentSwap.AGENT_ON, "the test JVM runs without numaloom's agent");
        assertEquals(workload.equals("h2") ? 3001 : 6001, runRound(workload, fields, 5, threadType).operations());
    }

    @Test
    void theLogChecksCatchALostATornAndAReorderedLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("log");
        Files.writeString(file, "INFO orders t0 0\nINFO orders t1 0\nINFO orders t0 1\n", StandardCharsets.US_ASCII);
        LogbackAppender.checkFile(file, 2, 3);
        assertTrue(assertThrows(IllegalStateException.class, () -> LogbackAppender.checkFile(file, 2, 4))
                .getMessage().contains("3 lines in the file, 4 events"));
        Files.writeString(file, "INFO orders t0 0\nINFO orders t0 2\n", StandardCharsets.US_ASCII);
        assertTrue(assertThrows(IllegalStateException.class, () -> LogbackAppender.checkFile(file, 1, 2))
                .getMessage().contains("expected 1"));
        Files.writeString(file, "INFO orders t0 0\nINFO ordINFO orders t0 1\n", StandardCharsets.US_ASCII);
        assertTrue(assertThrows(IllegalStateException.class, () -> LogbackAppender.checkFile(file, 1, 2))
                .getMessage().contains("torn"));
    }

    @Test
    void thePoolCheckCatchesAnObjectLentTwiceOrKeptOut() {
        CommonsPool.check(new CommonsPool.Counts(100, 100, 100, 2, 0, 0, 2), 100, 2);
        assertThrows(IllegalStateException.class, () -> CommonsPool.check(new CommonsPool.Counts(99, 100, 100, 2, 0, 0, 2), 100, 2),
                "a use lost: one object was in two borrowers' hands");
        assertThrows(IllegalStateException.class, () -> CommonsPool.check(new CommonsPool.Counts(100, 100, 99, 2, 0, 1, 2), 100, 2),
                "one object never returned");
        assertThrows(IllegalStateException.class, () -> CommonsPool.check(new CommonsPool.Counts(100, 100, 100, 3, 0, 0, 3), 100, 2),
                "more objects than maxTotal");
    }

    @Test
    void theDatabaseCheckCatchesALostUpdate() throws Exception {
        try (Connection c = new org.h2.Driver().connect("jdbc:h2:mem:numaloom-check", new Properties());
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE counters(id INT PRIMARY KEY, n BIGINT NOT NULL)");
            // 2 threads, 5 updates, 3 rows: thread 0 sends rows 0, 2, 1; thread 1 rows 1, 0.
            s.execute("INSERT INTO counters VALUES (0, 2), (1, 2), (2, 1)");
            H2Updates.checkCounters(c, 3, 5, 2);
            s.execute("UPDATE counters SET n = n - 1 WHERE id = 1");
            assertTrue(assertThrows(IllegalStateException.class, () -> H2Updates.checkCounters(c, 3, 5, 2))
                    .getMessage().contains("row 1 counts 1, expected 2"));
        }
    }

    @Test
    void theSwapCheckRefusesANumaloomLockWhereTheAgentIsOff() {
        AgentSwap.require(new ReentrantLock(), "a stock lock");
        AgentSwap.require(new VnaReentrantLock(true), "a lock made fair, which is ReentrantLock's own");
        assertTrue(assertThrows(IllegalStateException.class, () -> AgentSwap.require(new VnaReentrantLock(), "the lock"))
                .getMessage().contains("agent is not on"));
        assertTrue(assertThrows(IllegalStateException.class, () -> AgentSwap.field(new Object(), Object.class, "lock"))
                .getMessage().contains("has no field lock"));
    }
}
