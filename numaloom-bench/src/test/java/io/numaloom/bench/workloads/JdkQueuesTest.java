package io.numaloom.bench.workloads;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.run.Execution;
import io.numaloom.bench.run.ThreadPlacement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JDK's blocking queues as the {@code queue} workload's buffer: they run a round and pass its checks, and they are
 * names of this workload only. The timeouts only guard against hangs.
 */
class JdkQueuesTest {
    private static final Duration GUARD = Duration.ofSeconds(60);

    private static BenchDefinition queue(String fields, String lock) throws ConfigException {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [ { "name": "queue", "payload": { %s "threads": [2], "locks": [ { "name": "%s" } ] } } ] }
                """.formatted(fields, lock), "test", 2, ConfigReader.lockNames());
        return config.benches().getFirst();
    }

    private static Execution.Outcome run(Round round, int threads, String threadType) throws InterruptedException {
        try (ThreadPlacement placement = ThreadPlacement.create(threadType, 2, false)) {
            return Execution.runOnce(round, threads, placement, true, GUARD);
        }
    }

    @ParameterizedTest
    @CsvSource({
        "ARRAY_BLOCKING_QUEUE, virtual", "ARRAY_BLOCKING_QUEUE, platform",
        "LINKED_BLOCKING_QUEUE, virtual", "LINKED_BLOCKING_QUEUE, platform"})
    void theJdkQueuesTransferEveryItemOnce(String lock, String threadType) throws Exception {
        for (String fields : List.of("\"actionsCount\": 3001, \"capacity\": 4,", "\"actionsCount\": 2000, \"capacity\": 1, \"producerPercent\": 20,")) {
            BenchDefinition b = queue(fields, lock);
            assertEquals(List.of(lock), b.locks());
            Round round = b.kind().create(b.settings()).newRound(new RoundContext(5, lock, 0, threadType, GUARD));
            // finish() runs the check: every item taken exactly once, the queue empty.
            Execution.Outcome o = run(round, 5, threadType);
            long items = b.settings().getLong("actionsCount");
            assertEquals(items, o.operations(), lock);
            assertEquals(items, o.latency().getTotalCount(), lock + ": one put-to-take time per item");
            assertNull(round.conditionWaits(), lock + ": the JDK's waits are its own, not counted");
        }
    }

    @Test
    void theJdkQueueNamesAreNotMutexes() {
        assertEquals(List.of("ARRAY_BLOCKING_QUEUE", "LINKED_BLOCKING_QUEUE"), ProducerConsumer.jdkQueueNames());
        assertTrue(ConfigReader.lockNames().containsAll(ProducerConsumer.jdkQueueNames()));
        for (String name : ProducerConsumer.jdkQueueNames()) {
            assertTrue(!Mutex.names().contains(name), name);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cache", "consumeCpu", "keyed", "falseSharing", "server"})
    void theJdkQueuesAreRejectedOutsideTheQueueWorkloadNamingTheField(String workload) {
        for (String lock : ProducerConsumer.jdkQueueNames()) {
            ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse("""
                    { "benches": [ { "name": "%s", "payload": { "threads": [2], "locks": [ { "name": "VNA" }, { "name": "%s" } ] } } ] }
                    """.formatted(workload, lock), "test", 2, ConfigReader.lockNames()));
            List<String> mine = e.problems().stream().filter(p -> p.contains(lock)).toList();
            assertEquals(List.of("benches[0].payload.locks[1].name: " + lock
                    + " is one of the JDK's blocking queues, measured only by the queue workload"), mine, workload);
        }
    }

    @Test
    void aJdkQueueInTheDefaultsIsRejectedThereForABenchOfAnotherWorkload() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse("""
                { "defaults": { "locks": [ { "name": "ARRAY_BLOCKING_QUEUE" } ] },
                  "benches": [ { "name": "queue", "payload": { "threads": [2] } },
                               { "name": "cache", "payload": { "threads": [2] } } ] }
                """, "test", 2, ConfigReader.lockNames()));
        assertEquals(List.of("defaults.locks[0].name: ARRAY_BLOCKING_QUEUE is one of the JDK's blocking queues, measured "
                + "only by the queue workload"), e.problems());
    }
}
