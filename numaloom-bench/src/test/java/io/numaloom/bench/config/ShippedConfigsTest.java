package io.numaloom.bench.config;

import io.numaloom.bench.run.BenchRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.DynamicTest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every configuration shipped in the repository's configs/ folder is valid, and so is its --quick form. */
class ShippedConfigsTest {
    /** Surefire runs in the module directory; configs/ is beside it. */
    static final Path CONFIGS = Path.of("..", "configs");

    static List<Path> shipped() throws IOException {
        try (Stream<Path> files = Files.list(CONFIGS)) {
            return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyShippedConfigIsValid() throws IOException {
        List<Path> files = shipped();
        assertTrue(files.size() >= 8, "configs/ has the seeds' configurations: " + files);
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
            BenchConfig config = ConfigReader.read(f);
            assertFalse(config.activeBenches().isEmpty());
            assertFalse(config.description().isBlank(), f + " says what it reproduces");
            BenchConfig quick = config.quick();
            assertEquals(BenchRunner.points(config).size(), BenchRunner.points(quick).size());
        }));
    }

    /**
     * The default run answers "which lock for this machine?" with a verdict in about 5 minutes on 2 cores: short
     * critical sections first (VnaLock must beat ReentrantLock where real code spends its locking time) on platform and
     * virtual threads, the thesis's high contention and an application-shaped cache, on few enough groups (bench x
     * thread count) of few enough locks that each gets rounds enough for an interval: VnaLock, unfair ReentrantLock
     * (the reference, whose twin the run adds) and synchronized.
     */
    @Test
    void theBuiltInDefaultIsTheShippedDefaultAndComparesVnaWithTheJdkLocks() throws Exception {
        assertEquals(Files.readString(CONFIGS.resolve("default.json")), BenchConfig.builtInDefaultText());
        BenchConfig config = BenchConfig.builtInDefault();
        List<String> ids = config.activeBenches().stream().map(BenchDefinition::id).toList();
        assertEquals(List.of("short-cs-platform", "short-cs-virtual", "high-contention", "cache-virtual"), ids);
        int groups = 0;
        for (BenchDefinition b : config.activeBenches()) {
            assertEquals(List.of("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED"), b.locks(), b.id());
            groups += b.threads().size();
            if (b.id().startsWith("short-cs")) {
                assertEquals(b.id().endsWith("platform") ? "platform" : "virtual", b.threadType());
            } else {
                assertEquals("virtual", b.threadType(), b.id());
            }
        }
        assertEquals(6, groups, "a 240 s budget over 6 groups of 4 forks a round leaves each about 8 rounds");
        BenchDefinition shortCs = config.activeBenches().getFirst();
        assertEquals(100, shortCs.settings().values().path("inCpuTokens").asInt());
        assertEquals(0, shortCs.settings().values().path("beforeCpuTokens").asInt());
        assertFalse(shortCs.settings().values().path("yieldInCrit").asBoolean(true));
        assertTrue(config.description().contains("About 5 minutes on 2 cores"), config.description());
    }

    /**
     * The short critical sections and the thesis's three configurations measure VnaLock beside the locks its summary is
     * held against (issue 46): unfair ReentrantLock, the reference; synchronized; SHFL and NUMA_MCS, the best baselines;
     * and each says how long it takes. The short critical sections also measure the twin, what a lock that ties the
     * others reads against the best of them.
     */
    @Test
    void theShortCriticalSectionsAndTheThesisConfigurationsIncludeTheBestBaselinesAndSynchronized() throws Exception {
        for (String file : List.of("short-critical-sections.json", "thesis-high-contention.json",
                "thesis-low-contention.json", "thesis-text-statistics.json")) {
            BenchConfig config = ConfigReader.read(CONFIGS.resolve(file));
            for (BenchDefinition b : config.activeBenches()) {
                assertTrue(b.locks().containsAll(List.of("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED", "SHFL", "NUMA_MCS")),
                        file + " " + b.id() + ": " + b.locks());
            }
            assertTrue(config.description().matches("(?s).*[0-9]+ minutes.*"), file + " says how long it takes: "
                    + config.description());
        }
        for (BenchDefinition b : ConfigReader.read(CONFIGS.resolve("short-critical-sections.json")).activeBenches()) {
            assertTrue(b.locks().contains("UNFAIR_REENTRANT_TWIN"), "the noise gauge of VNA against the best other lock: "
                    + b.id() + ": " + b.locks());
        }
    }

    /**
     * The application-shaped run (issue 28): queue and cache on both thread types, the server closed loop and at four
     * load levels, each with VnaLock, the JDK's locks and the best baseline, and enough forks for an interval.
     */
    @Test
    void realWorldRunsQueueCacheAndServerWithTheJdkLocksAndTheBestBaseline() throws Exception {
        BenchConfig config = ConfigReader.read(CONFIGS.resolve("real-world.json"));
        List<BenchDefinition> benches = config.activeBenches();
        for (BenchDefinition b : benches) {
            assertEquals(List.of("VNA", "UNFAIR_REENTRANT", "FAIR_REENTRANT", "SYNCHRONIZED", "NUMA_MCS"), b.locks(), b.id());
            assertTrue(b.forks() >= 3, b.id() + ": a verdict needs the forks' interval");
        }
        for (String workload : List.of("queue", "cache")) {
            assertEquals(List.of("platform", "virtual"), benches.stream().filter(b -> b.kind().jsonName().equals(workload))
                    .map(BenchDefinition::threadType).sorted().toList(), workload);
        }
        assertEquals(List.of(0, 25, 50, 75, 90), benches.stream().filter(b -> b.kind().jsonName().equals("server"))
                .map(b -> b.settings().values().path("loadPercent").asInt()).toList());
        assertTrue(config.description().matches("(?s).*[0-9]+ minutes.*"), "says how long it takes: " + config.description());
    }

    /**
     * The queue sweep (issue 44): N producers and N consumers for N = 1, 2, 4, 16, 64, capacities 1, 16 and 1024,
     * both thread types, the buffer over VnaLock, unfair ReentrantLock and its twin beside the JDK's two blocking
     * queues, with rounds ten times those that could not tell the locks apart (at least 40000 items, 5 warm-up
     * rounds); synchronized in benches of its own beside the same ReentrantLock at a tenth of the items; one fork per
     * point, and the description says how long it takes.
     */
    @Test
    void theQueueSweepCoversEveryCapacityThreadTypeAndProducerCount() throws Exception {
        BenchConfig config = ConfigReader.read(CONFIGS.resolve("queue-sweep.json"));
        List<BenchDefinition> benches = config.activeBenches();
        assertEquals(12, benches.size());
        Map<Integer, Long> items = Map.of(1, 40_000L, 16, 300_000L, 1024, 600_000L);
        Predicate<BenchDefinition> monitorBench = b -> b.id().endsWith("-synchronized");
        for (BenchDefinition b : benches) {
            boolean monitor = monitorBench.test(b);
            assertEquals("queue", b.kind().jsonName(), b.id());
            List<String> locks = monitor ? List.of("SYNCHRONIZED", "UNFAIR_REENTRANT")
                    : List.of("VNA", "UNFAIR_REENTRANT", "UNFAIR_REENTRANT_TWIN",
                            "ARRAY_BLOCKING_QUEUE", "LINKED_BLOCKING_QUEUE");
            assertEquals(locks, b.locks(), b.id());
            assertEquals(List.of(2, 4, 8, 32, 128), b.threads(), b.id() + ": N = 1, 2, 4, 16, 64 producers and as many consumers");
            assertEquals(50, b.settings().getInt("producerPercent"), b.id());
            assertEquals(1, b.forks(), b.id());
            long expected = items.get(b.settings().getInt("capacity")) / (monitor ? 10 : 1);
            assertEquals(expected, b.settings().getLong("actionsCount"), b.id());
            assertEquals(monitor ? 3 : 5, b.warmupIterations(), b.id());
            assertEquals("UNFAIR_REENTRANT", io.numaloom.bench.report.Summary.baselineOf(b), b.id());
        }
        List<String> order = List.of("1 platform", "1 virtual", "16 platform", "16 virtual", "1024 platform",
                "1024 virtual");
        for (Predicate<BenchDefinition> part : List.of(monitorBench.negate(), monitorBench)) {
            assertEquals(order, benches.stream().filter(part)
                    .map(b -> b.settings().getInt("capacity") + " " + b.threadType()).toList());
        }
        assertEquals(210, BenchRunner.points(config).size());
        assertTrue(config.description().matches("(?s).*[0-9]+ minutes.*"), "says how long it takes: " + config.description());
    }
}
