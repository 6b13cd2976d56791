package io.numaloom.bench.config;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.workloads.WorkloadKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigReaderTest {
    private static final List<String> LOCKS = List.of("VNA", "UNFAIR_REENTRANT", "FAIR_REENTRANT", "NUMA_MCS", "SYNCHRONIZED");

    /** The thesis's Appendix A example, verbatim but for the lock names being known and skip false. */
    private static final String THESIS = """
            {
              "benches": [
                {
                  "name": "consumeCpu",
                  "payload": {
                    "actionsCount": 64000,
                    "beforeCpuTokens": 0,
                    "inCpuTokens": 1000,
                    "warmupIterations": 7,
                    "measurementIterations": 7,
                    "forks": 3,
                    "yieldsBefore": 1,
                    "yieldInCrit": true,
                    "title": "ConsumeCPU. High contention.",
                    "skip": false,
                    "locks": [
                      { "name": "NUMA_MCS" },
                      { "name": "UNFAIR_REENTRANT" },
                      { "name": "FAIR_REENTRANT" }
                    ]
                  }
                }
              ]
            }
            """;

    private static BenchConfig parse(String json) throws ConfigException {
        return ConfigReader.parse(json, "test.json", 2, LOCKS);
    }

    private static List<String> problems(String json) {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(json));
        return e.problems();
    }

    /** A one-bench config whose payload gets {@code extra} fields (a JSON fragment ending in a comma). */
    private static String withPayload(String extra) {
        return """
                { "benches": [ { "name": "consumeCpu", "payload": { %s "locks": [ { "name": "VNA" } ] } } ] }
                """.formatted(extra);
    }

    @Test
    void readsTheThesisFormat() throws ConfigException {
        BenchConfig config = parse(THESIS);
        BenchDefinition b = config.benches().getFirst();
        assertEquals(WorkloadKind.CONSUME_CPU, b.kind());
        assertEquals("ConsumeCPU. High contention.", b.title());
        assertEquals("consumecpu-high-contention", b.id());
        assertEquals(List.of("NUMA_MCS", "UNFAIR_REENTRANT", "FAIR_REENTRANT"), b.locks());
        assertEquals(7, b.warmupIterations());
        assertEquals(7, b.measurementIterations());
        assertEquals(3, b.forks());
        assertEquals(64000, b.settings().getLong("actionsCount"));
        assertEquals(1000, b.settings().getLong("inCpuTokens"));
        assertEquals(1, b.settings().getInt("yieldsBefore"));
        assertTrue(b.settings().getBoolean("yieldInCrit"));
        // Defaults filled in: virtual threads, one carrier per CPU, generated thread counts.
        assertEquals("virtual", b.threadType());
        assertEquals(2, b.carriers());
        assertEquals(List.of(1, 2, 4, 8), b.threads());
        assertTrue(b.recordLatency());
    }

    @Test
    void effectiveConfigurationReadsBackToTheSameBenches() throws ConfigException {
        BenchConfig config = parse(THESIS);
        BenchConfig again = parse(config.effective().toPrettyString());
        assertEquals(config.effective(), again.effective());
        assertEquals(config.benches().getFirst().fingerprint(), again.benches().getFirst().fingerprint());
    }

    @Test
    void fingerprintChangesWithWhatIsMeasuredButNotWithTheTitle() throws ConfigException {
        String base = parse(withPayload("\"title\": \"a\", \"inCpuTokens\": 10,")).benches().getFirst().fingerprint();
        assertEquals(base, parse(withPayload("\"title\": \"b\", \"inCpuTokens\": 10,")).benches().getFirst().fingerprint());
        assertNotEquals(base, parse(withPayload("\"title\": \"a\", \"inCpuTokens\": 11,")).benches().getFirst().fingerprint());
    }

    @Test
    void negativeForksNamesThePath() {
        String json = """
                { "benches": [
                    { "name": "consumeCpu", "payload": { "locks": [ { "name": "VNA" } ] } },
                    { "name": "consumeCpu", "payload": { "forks": -2, "locks": [ { "name": "VNA" } ] } } ] }
                """;
        assertEquals(List.of("benches[1].payload.forks: must be >= 1, got -2"), problems(json));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            "inCpuTokenz": 5,           | benches[0].payload.inCpuTokenz: unknown field (did you mean 'inCpuTokens'?); known fields for consumeCpu:
            "forks": "three",           | benches[0].payload.forks: must be an integer, got "three"
            "forks": 1.5,               | benches[0].payload.forks: must be an integer, got 1.5
            "forks": 0,                 | benches[0].payload.forks: must be >= 1, got 0
            "actionsCount": -5,         | benches[0].payload.actionsCount: must be >= 1, got -5
            "beforeCpuTokens": -1,      | benches[0].payload.beforeCpuTokens: must be >= 0, got -1
            "warmupIterations": -1,     | benches[0].payload.warmupIterations: must be >= 0, got -1
            "yieldInCrit": "yes",       | benches[0].payload.yieldInCrit: must be true or false, got "yes"
            "threadType": "green",      | benches[0].payload.threadType: must be one of "virtual", "platform", got "green"
            "threads": [1, 0],          | benches[0].payload.threads[1]: must be >= 1, got 0
            "threads": [2, 2],          | benches[0].payload.threads[1]: thread count 2 is listed twice
            "threads": 4,               | benches[0].payload.threads: must be a non-empty array of thread counts, got 4
            "forks": 99999999999,       | benches[0].payload.forks: is out of range, got 99999999999
            "jvmArgs": ["-Xmx1g", 3],   | benches[0].payload.jvmArgs[1]: must be a string, got 3
            "actionsCount": 3,          | benches[0].payload.actionsCount: must be >= the largest thread count (8) so that every thread has work, got 3
            "topology": "nodes=9",      | benches[0].payload.topology: numaloom.topology="nodes=9" is invalid
            "scheduler": "fifo",        | benches[0].payload.scheduler: must be one of "default", "numa", "numa-park", got "fifo"
            "scheduler": "numa", "threadType": "platform", | benches[0].payload.scheduler: "numa" schedules virtual threads; threadType is "platform"
            """)
    void badPayloadValuesNameTheirPath(String fragment, String expected) {
        List<String> problems = problems(withPayload(fragment));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.getFirst().startsWith(expected.strip()), problems.getFirst());
    }

    @Test
    void unknownLockListsTheKnownOnes() {
        String json = """
                { "benches": [ { "name": "matrix", "payload": { "locks": [ { "name": "VNA" }, { "name": "MCS_TYPO" } ] } } ] }
                """;
        assertEquals(List.of("benches[0].payload.locks[1].name: unknown lock 'MCS_TYPO'; known: "
                + String.join(", ", LOCKS)), problems(json));
    }

    @Test
    void unknownWorkloadListsTheKnownOnes() {
        List<String> p = problems("""
                { "benches": [ { "name": "consumeCPU", "payload": { "locks": [ { "name": "VNA" } ] } } ] }
                """);
        assertEquals(List.of("benches[0].name: unknown workload 'consumeCPU' (did you mean 'consumeCpu'?); known: consumeCpu, matrix, textStats, "
                + "randBash, contend, sync, keyed, lockRate, falseSharing, queue, cache, server, logback, pool, h2, runnable"), p);
    }

    @Test
    void fieldsOfAnotherWorkloadAreUnknown() {
        List<String> p = problems("""
                { "benches": [ { "name": "sync", "payload": { "recordLatency": true, "inCpuTokens": 4,
                                                               "locks": [ { "name": "VNA" } ] } } ] }
                """);
        assertEquals(2, p.size(), p.toString());
        assertTrue(p.get(0).startsWith("benches[0].payload.recordLatency: unknown field; known fields for sync:"), p.get(0));
        assertTrue(p.get(1).startsWith("benches[0].payload.inCpuTokens: unknown field"), p.get(1));
    }

    @Test
    void missingLocksAndStructureErrors() {
        assertEquals(List.of("benches[0].payload.locks: is required (an array like [{\"name\": \"VNA\"}]; known: "
                        + String.join(", ", LOCKS) + ")"),
                problems("{ \"benches\": [ { \"name\": \"consumeCpu\", \"payload\": {} } ] }"));
        assertEquals(List.of("benches: is required (an array of benches)"), problems("{ }"));
        assertEquals(List.of("benches: must not be empty"), problems("{ \"benches\": [] }"));
        assertEquals(List.of("benches[0].payload: is required (an object with the bench's settings and \"locks\")"),
                problems("{ \"benches\": [ { \"name\": \"consumeCpu\" } ] }"));
        assertEquals(List.of("benches[0].extra: unknown field; known fields of a bench: name, id, payload"),
                problems("{ \"benches\": [ { \"name\": \"consumeCpu\", \"extra\": 1, \"payload\": { \"locks\": [ { \"name\": \"VNA\" } ] } } ] }"));
        assertEquals(List.of("verbose: unknown field; known top-level fields: benches, defaults, description"),
                problems("{ \"verbose\": true, \"benches\": [ { \"name\": \"sync\", \"payload\": { \"locks\": [ { \"name\": \"VNA\" } ] } } ] }"));
        assertEquals(List.of("benches[0].payload.locks[0]: must be an object like {\"name\": \"VNA\"}, got \"VNA\""),
                problems("{ \"benches\": [ { \"name\": \"sync\", \"payload\": { \"locks\": [ \"VNA\" ] } } ] }"));
    }

    @Test
    void syntaxErrorsAndDuplicateKeysGiveTheLine() {
        List<String> p = problems("{\n  \"benches\": [\n    { \"name\": \"sync\", }\n  ]\n}");
        assertTrue(p.getFirst().startsWith("line 3, column"), p.toString());
        List<String> dup = problems("{\n \"benches\": [ { \"name\": \"sync\", \"name\": \"matrix\", \"payload\": {} } ] }");
        assertTrue(dup.getFirst().startsWith("line 2, column") && dup.getFirst().contains("Duplicate field 'name'"), dup.toString());
        assertTrue(problems("").getFirst().contains("empty"));
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        String json = """
                { "benches": [
                    { "name": "consumeCpu", "payload": { "forks": 0, "skip": 1, "locks": [ { "name": "NOPE" } ] } },
                    { "name": "nope", "payload": { "locks": [ { "name": "VNA" } ] } } ] }
                """;
        List<String> p = problems(json);
        assertEquals(4, p.size(), p.toString());
        ConfigException e = assertThrows(ConfigException.class, () -> parse(json));
        assertTrue(e.getMessage().startsWith("test.json: 4 problems"), e.getMessage());
    }

    @Test
    void defaultsApplyWhereTheyFitAndAreCheckedOnce() throws ConfigException {
        BenchConfig config = parse("""
                { "defaults": { "forks": 2, "inCpuTokens": 7, "locks": [ { "name": "FAIR_REENTRANT" } ], "threads": [1, 3] },
                  "benches": [ { "name": "consumeCpu", "payload": { "forks": 1 } },
                               { "name": "sync", "payload": {} } ] }
                """);
        BenchDefinition cpu = config.benches().get(0);
        BenchDefinition sync = config.benches().get(1);
        assertEquals(1, cpu.forks(), "the payload wins over the defaults");
        assertEquals(2, sync.forks());
        assertEquals(7, cpu.settings().getLong("inCpuTokens"));
        assertFalse(sync.settings().values().has("inCpuTokens"), "a default applies only where the field exists");
        assertEquals(List.of("FAIR_REENTRANT"), sync.locks());
        assertEquals(List.of(1, 3), cpu.threads());

        List<String> p = problems("""
                { "defaults": { "forks": -1, "colour": 1 },
                  "benches": [ { "name": "consumeCpu", "payload": { "locks": [ { "name": "VNA" } ] } },
                               { "name": "matrix", "payload": { "locks": [ { "name": "VNA" } ] } } ] }
                """);
        assertEquals(List.of("defaults.forks: must be >= 1, got -1",
                "defaults.colour: unknown field; a default must be a payload field of some workload"), p);
    }

    @Test
    void idsAreMadeUniqueAndExplicitDuplicatesRejected() throws ConfigException {
        BenchConfig config = parse("""
                { "benches": [ { "name": "sync", "payload": { "locks": [ { "name": "VNA" } ] } },
                               { "name": "sync", "payload": { "locks": [ { "name": "VNA" } ] } } ] }
                """);
        assertEquals(List.of("sync", "sync-2"), config.benches().stream().map(BenchDefinition::id).toList());
        assertEquals(List.of(1), config.benches().getFirst().threads(), "sync runs single-threaded by default");
        assertEquals(List.of("benches[1].id: duplicate id 'a'; every bench needs its own"), problems("""
                { "benches": [ { "name": "sync", "id": "a", "payload": { "locks": [ { "name": "VNA" } ] } },
                               { "name": "sync", "id": "a", "payload": { "locks": [ { "name": "VNA" } ] } } ] }
                """));
    }

    @Test
    void nestedSyncNeedsReentrantLocks() throws ConfigException {
        String nonReentrant = Mutex.names().stream().filter(n -> !Mutex.create(n).isReentrant()).findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(nonReentrant != null, "no non-reentrant lock is registered");
        String json = """
                { "benches": [ { "name": "sync", "payload": { "depth": %d,
                  "locks": [ { "name": "UNFAIR_REENTRANT" }, { "name": "%s" } ] } } ] }
                """;
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigReader.parse(json.formatted(2, nonReentrant), "t", 2, Mutex.names()));
        assertEquals(List.of("benches[0].payload.locks[1].name: " + nonReentrant
                + " is not reentrant; sync with depth 2 takes the held lock again"), e.problems());
        assertEquals(2, ConfigReader.parse(json.formatted(1, nonReentrant), "t", 2, Mutex.names()).benches().getFirst().locks().size());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "\"saturationFrom\": \"clsoed\"|'clsoed' is not the id of a bench listed before this one (did you mean 'closed'?)",
            "\"saturationFrom\": \"later\"|'later' is not the id of a bench listed before this one",
            "\"saturationFrom\": \"cpu\"|'cpu' is not a closed-loop server bench (loadPercent 0)",
            "\"saturationFrom\": \"closed\", \"saturationPerSecond\": 5000|and saturationPerSecond both give the saturation rate",
            "\"saturationFrom\": \"closed\", \"threadType\": \"platform\"|'closed' measures virtual threads, this bench platform",
            "\"saturationFrom\": \"closed\", \"threads\": [2, 8]|'closed' measures [2, 4] threads, not every count of this bench's [2, 8]",
            "\"saturationFrom\": \"no-rl\"|'no-rl' does not measure UNFAIR_REENTRANT"})
    void saturationFromMustNameAnEarlierClosedLoopOfTheReferenceLock(String fields, String expected) {
        String json = """
                { "defaults": { "threads": [2, 4], "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ] },
                  "benches": [
                    { "name": "consumeCpu", "id": "cpu", "payload": { } },
                    { "name": "server", "id": "closed", "payload": { } },
                    { "name": "server", "id": "no-rl", "payload": { "locks": [ { "name": "VNA" } ] } },
                    { "name": "server", "id": "load", "payload": { "loadPercent": 50, %s } },
                    { "name": "server", "id": "later", "payload": { } } ] }
                """.formatted(fields);
        List<String> problems = problems(json);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("benches[3].payload.saturationFrom: ") && problems.get(0).contains(expected),
                problems.get(0));
    }

    @Test
    void saturationFromOnAClosedLoopIsAnError() {
        List<String> problems = problems("""
                { "benches": [ { "name": "server", "id": "closed", "payload": { "locks": [ { "name": "UNFAIR_REENTRANT" } ] } },
                               { "name": "server", "payload": { "saturationFrom": "closed", "locks": [ { "name": "VNA" } ] } } ] }
                """);
        assertEquals(List.of("benches[1].payload.saturationFrom: applies to an open loop only (loadPercent 1-100); this bench is "
                + "the closed loop"), problems);
    }

    @Test
    void allSkippedIsAnError() {
        assertEquals(List.of("benches: every bench has \"skip\": true; there is nothing to run"),
                problems(withPayload("\"skip\": true,")));
    }

    @Test
    void quickShortensEveryBench() throws ConfigException {
        BenchConfig config = parse(THESIS).quick();
        BenchDefinition b = config.benches().getFirst();
        assertEquals(1, b.forks());
        assertEquals(1, b.warmupIterations());
        assertEquals(2, b.measurementIterations());
        assertEquals(6400, b.settings().getLong("actionsCount"));
        assertEquals(List.of(1, 2, 4, 8), b.threads());
    }
}
