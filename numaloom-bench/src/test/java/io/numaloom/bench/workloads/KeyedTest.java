package io.numaloom.bench.workloads;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.locks.KeyedSchemes.KeyedScheme;
import io.numaloom.bench.locks.KeyedSchemes;
import io.numaloom.bench.run.Execution;
import io.numaloom.bench.run.ThreadPlacement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code keyed} workload: every keyed scheme runs it to a correct result on virtual and platform threads, a
 * scheme that loses an update fails the round, the key sequence has the skew asked for, and a configuration that
 * mixes keyed schemes and mutexes is refused with the offending field named.
 */
class KeyedTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static BenchDefinition bench(String fields) throws ConfigException {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [ { "name": "keyed", "payload": { %s "threads": [1], "locks": [ { "name": "KEYED_LOCK" } ] } } ] }
                """.formatted(fields), "test", 2, ConfigReader.lockNames());
        return config.benches().getFirst();
    }

    private static Keyed workload(String fields) throws ConfigException {
        BenchDefinition b = bench(fields);
        return (Keyed) b.kind().create(b.settings());
    }

    private static Execution.Outcome run(Round round, int threads, String threadType) throws InterruptedException {
        try (ThreadPlacement placement = ThreadPlacement.create(threadType, 2, false)) {
            return Execution.runOnce(round, threads, placement, false, TIMEOUT);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"KEYED_LOCK", "GUAVA_STRIPED", "GUAVA_LAZY_WEAK", "CHM_REENTRANT", "SYNCHRONIZED_CANONICAL"})
    void everySchemeKeepsEveryKeysCount(String scheme) throws Exception {
        Keyed keyed = workload("\"actionsCount\": 20000, \"keys\": 16, \"zipfPercent\": 99, \"stripes\": 4, \"inCpuTokens\": 5,");
        for (String threadType : List.of("virtual", "platform")) {
            Round round = keyed.newRound(new RoundContext(6, scheme, 0));
            Execution.Outcome o = run(round, 6, threadType);
            assertEquals(20000, o.operations(), "and the round's check passed: no key lost a step");
            assertEquals(scheme.equals("SYNCHRONIZED_CANONICAL"), round.footprint() == null, scheme + " footprint");
        }
    }

    @Test
    void anIdleKeyedLockIsWhatTheRoundLeaves() throws Exception {
        Keyed keyed = workload("\"actionsCount\": 5000, \"keys\": 1000,");
        Round round = keyed.newRound(new RoundContext(4, KeyedSchemes.KEYED_LOCK, 0));
        run(round, 4, "virtual");
        assertEquals(0, ((io.numaloom.KeyedLock<?>) round.footprint()).activeKeys(), "every record unbound");
    }

    /** A scheme that skips one critical section in a thousand: the round must not pass. */
    @Test
    void aLostUpdateFailsTheRound() throws Exception {
        Keyed keyed = workload("\"actionsCount\": 10000, \"keys\": 8,");
        KeyedScheme skipping = new KeyedScheme() {
            private final java.util.concurrent.atomic.AtomicLong calls = new java.util.concurrent.atomic.AtomicLong();

            @Override
            public void runExclusively(String key, Runnable section) {
                if (calls.incrementAndGet() % 1000 != 0) {
                    synchronized (key) {
                        section.run();
                    }
                }
            }

            @Override
            public Object footprint() {
                return null;
            }
        };
        Round round = keyed.newRound(new RoundContext(2, "SKIPPING", 0), skipping);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(round, 2, "virtual"));
        assertTrue(e.getMessage().contains("SKIPPING let two holders of one key in"), e.getMessage());
    }

    @Test
    void zipfSkewPutsTheFirstKeysOnTop() {
        int[] sequence = Keyed.draw(1024, 99, 400_000);
        long[] counts = new long[1024];
        for (int k : sequence) {
            counts[k]++;
        }
        // Zipf with exponent 0.99: rank 1 is drawn 2^0.99 = 1.99 times as often as rank 2, 4^0.99 = 3.95 times rank 4.
        assertEquals(1.99, (double) counts[0] / counts[1], 0.15);
        assertEquals(3.95, (double) counts[0] / counts[3], 0.4);
        assertTrue(counts[0] > 400_000 / 10, "the hottest key takes over a tenth: " + counts[0]);
        assertTrue(counts[1023] > 0 && counts[1023] < counts[0] / 500, "the coldest is rare: " + counts[1023]);
    }

    @Test
    void noSkewIsUniformAndEveryRunDrawsTheSameKeys() {
        int[] sequence = Keyed.draw(64, 0, 64_000);
        long[] counts = new long[64];
        for (int k : sequence) {
            counts[k]++;
        }
        for (long c : counts) {
            assertTrue(c > 800 && c < 1200, "about 1000 per key, got " + c);
        }
        assertTrue(java.util.Arrays.equals(sequence, Keyed.draw(64, 0, 64_000)), "a fixed seed");
    }

    @Test
    void aKeyedBenchNamesOnlyKeyedSchemesAndNoOtherBenchDoes() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse("""
                { "benches": [
                  { "name": "keyed", "payload": { "locks": [ { "name": "KEYED_LOCK" }, { "name": "VNA" } ] } },
                  { "name": "randBash", "payload": { "locks": [ { "name": "GUAVA_STRIPED" } ] } } ] }
                """, "mixed.json", 2, ConfigReader.lockNames()));
        String message = e.getMessage();
        assertTrue(message.contains("benches[0].payload.locks[1].name: VNA is not a keyed scheme"), message);
        assertTrue(message.contains("benches[1].payload.locks[0].name: GUAVA_STRIPED is a keyed scheme"), message);
    }

    @Test
    void aSequenceTooLongOrTooManyKeysToHoldAreRefusedUpFront() {
        ConfigException e = assertThrows(ConfigException.class, () -> bench("\"actionsCount\": 100000001, \"keys\": 10000001,"));
        assertTrue(e.getMessage().contains("benches[0].payload.actionsCount: must be <= 100000000"), e.getMessage());
        assertTrue(e.getMessage().contains("benches[0].payload.keys: must be <= 10000000"), e.getMessage());
    }

    @Test
    void anUnknownSchemeIsNamedWithTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyedSchemes.create("STRIPED", 4));
        assertTrue(e.getMessage().contains("unknown keyed scheme 'STRIPED'; known: KEYED_LOCK, GUAVA_STRIPED"), e.getMessage());
        assertNotNull(KeyedSchemes.create("GUAVA_STRIPED", 4).footprint());
        assertNull(KeyedSchemes.create("SYNCHRONIZED_CANONICAL", 4).footprint());
    }
}
