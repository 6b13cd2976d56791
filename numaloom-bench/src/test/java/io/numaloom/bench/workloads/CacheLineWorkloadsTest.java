package io.numaloom.bench.workloads;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.run.Execution;
import io.numaloom.bench.run.ThreadPlacement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two workloads of the talk on NUMA and cache-line contention: {@code lockRate} (ticket vs queued locks)
 * and {@code falseSharing} (counter layouts). They run to a checked result on pinned and unpinned platform
 * threads; which layout or lock is faster is the bench's to measure ({@code configs/seed004-cache-lines.json}),
 * not a unit test's.
 */
class CacheLineWorkloadsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static BenchDefinition bench(String workload, String fields, String lock) throws ConfigException {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [ { "name": "%s", "payload": { %s "threads": [2], "locks": [ { "name": "%s" } ] } } ] }
                """.formatted(workload, fields, lock), "test", 2, ConfigReader.lockNames());
        return config.benches().getFirst();
    }

    private static Execution.Outcome run(BenchDefinition b, String lock, boolean pin) throws InterruptedException {
        Round round = b.kind().create(b.settings()).newRound(new RoundContext(2, lock, 0));
        try (ThreadPlacement placement = ThreadPlacement.create("platform", 2, pin)) {
            return Execution.runOnce(round, 2, placement, true, TIMEOUT);
        }
    }

    @ParameterizedTest(name = "load {0}")
    @ValueSource(ints = {0, 1})
    void lockRateRunsEveryLockOfTheTalk(int load) throws Exception {
        for (String lock : List.of("TICKET", "MCS", "CLH", "VNA", "UNFAIR_REENTRANT")) {
            BenchDefinition b = bench("lockRate", "\"actionsCount\": 20000, \"load\": " + load + ",", lock);
            for (boolean pin : new boolean[] {false, true}) {
                Execution.Outcome o = run(b, lock, pin); // verify(): with load 1, the counter holds every add
                assertEquals(20_000, o.operations(), lock);
                assertEquals(0, o.handoffs(), "lockRate bypasses the harness's bookkeeping");
            }
        }
    }

    @ParameterizedTest(name = "access {0}")
    @ValueSource(strings = {"atomic", "opaque"})
    void falseSharingKeepsEveryThreadsCountInEveryLayout(String access) throws Exception {
        for (String layout : FalseSharing.layoutNames()) {
            BenchDefinition b = bench("falseSharing", "\"actionsCount\": 100001, \"access\": \"" + access + "\",", layout);
            for (boolean pin : new boolean[] {false, true}) {
                Execution.Outcome o = run(b, layout, pin); // verify(): each counter equals its thread's share
                assertEquals(100_001, o.operations(), layout);
            }
        }
    }

    @Test
    void layoutsAndLocksAreNotMixedAndLoadIsZeroOrOne() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse("""
                { "benches": [
                  { "name": "falseSharing", "payload": { "locks": [ { "name": "PACKED" }, { "name": "VNA" } ] } },
                  { "name": "consumeCpu", "payload": { "locks": [ { "name": "PADDED_128" } ] } },
                  { "name": "lockRate", "payload": { "load": 2, "locks": [ { "name": "TICKET" } ] } } ] }
                """, "mixed.json", 2, ConfigReader.lockNames()));
        String message = e.getMessage();
        assertTrue(message.contains("benches[0].payload.locks[1].name: VNA is not a counter layout; falseSharing compares"
                + " PACKED, PADDED_64, PADDED_128"), message);
        assertTrue(message.contains("benches[1].payload.locks[0].name: PADDED_128 is a counter layout, measured only by"
                + " the falseSharing workload"), message);
        assertTrue(message.contains("benches[2].payload.load: must be 0 (an empty critical section) or 1"), message);
    }

    @Test
    void theirThreadsGoUpToTheCpusByDefault() {
        assertEquals(List.of(1, 2, 4, 8, 16), WorkloadKind.LOCK_RATE.defaultThreads(16));
        assertEquals(List.of(1, 2, 4, 6), WorkloadKind.FALSE_SHARING.defaultThreads(6));
        assertEquals(List.of(1, 2, 4, 8, 16, 32, 64), WorkloadKind.RAND_BASH.defaultThreads(16), "others oversubscribe");
    }

    @Test
    void aLayoutThatIsNotOneIsRefusedByTheRound() throws Exception {
        BenchDefinition b = bench("falseSharing", "", "PACKED");
        Workload w = b.kind().create(b.settings());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.newRound(new RoundContext(2, "VNA", 0)));
        assertTrue(e.getMessage().contains("falseSharing measures the layouts [PACKED, PADDED_64, PADDED_128], not VNA"), e.getMessage());
    }
}
