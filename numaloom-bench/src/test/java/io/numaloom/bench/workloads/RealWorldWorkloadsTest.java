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

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application-shaped workloads (queue, cache, server) run to a correct result with every kind of lock, on
 * virtual and platform threads; their checks catch planted faults; bad payloads name the field. Nothing here
 * depends on how fast anything runs: the timeouts only guard against hangs.
 */
class RealWorldWorkloadsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** The locks of configs/real-world.json, plus one baseline of each family (queue, parking MCS, polling). */
    private static final String LOCKS = "VNA,UNFAIR_REENTRANT,FAIR_REENTRANT,SYNCHRONIZED,SHFL,NUMA_MCS,RELAXED,TTAS";

    /** A bench of one workload with the given payload fields, validated like a configuration. */
    private static BenchDefinition bench(String workload, String fields) throws ConfigException {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [ { "name": "%s", "payload": { %s "threads": [2], "locks": [ { "name": "UNFAIR_REENTRANT" } ] } } ] }
                """.formatted(workload, fields), "test", 2, Mutex.names());
        return config.benches().getFirst();
    }

    private static RoundContext context(int threads, String lock, String threadType) {
        return new RoundContext(threads, lock, 0, threadType, TIMEOUT);
    }

    private static Execution.Outcome run(Round round, int threads, String threadType) throws InterruptedException {
        try (ThreadPlacement placement = ThreadPlacement.create(threadType, 2, false)) {
            return Execution.runOnce(round, threads, placement, true, TIMEOUT);
        }
    }

    private static List<String> problems(String json) {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigReader.parse(json, "test", 2, ConfigReader.lockNames()));
        return e.problems();
    }

    // ---------------------------------------------------------------------------------------------------------
    // queue

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform"})
    void queueTransfersEveryItemOnceWithEveryLock(String threadType) throws Exception {
        BenchDefinition b = bench("queue", "\"actionsCount\": 3001, \"capacity\": 4,");
        for (String lock : LOCKS.split(",")) {
            Round round = b.kind().create(b.settings()).newRound(context(5, lock, threadType));
            // finish() runs the check: every item taken exactly once, the buffer empty.
            Execution.Outcome o = run(round, 5, threadType);
            assertEquals(3001, o.operations(), lock);
            assertEquals(3001, o.latency().getTotalCount(), lock + ": one put-to-take time per item");
            assertEquals(0, o.handoffs(), lock + ": the queue keeps no guarded region");
        }
    }

    @Test
    void queueWithOneSlotAndOneProducerPerConsumerStillEnds() throws Exception {
        BenchDefinition b = bench("queue", "\"actionsCount\": 2000, \"capacity\": 1, \"producerPercent\": 10,");
        for (String lock : List.of("VNA", "SYNCHRONIZED", "SHFL")) {
            assertEquals(2000, run(b.kind().create(b.settings()).newRound(context(2, lock, "virtual")), 2, "virtual").operations());
        }
    }

    @Test
    void queueSplitsThreadsIntoProducersAndConsumers() {
        assertEquals(1, ProducerConsumer.producers(2, 50));
        assertEquals(4, ProducerConsumer.producers(8, 50));
        assertEquals(1, ProducerConsumer.producers(8, 1), "at least one producer");
        assertEquals(7, ProducerConsumer.producers(8, 99), "at least one consumer");
        assertEquals(2, ProducerConsumer.producers(8, 25));
    }

    /** A buffer that drops one item on the floor: the round must fail, naming it. */
    @Test
    void aQueueThatLosesAnItemFailsTheRound() throws Exception {
        BenchDefinition b = bench("queue", "\"actionsCount\": 1000, \"capacity\": 8,");
        ProducerConsumer queue = (ProducerConsumer) b.kind().create(b.settings());
        Round round = queue.newRound(context(4, "VNA", "virtual"), (mutex, capacity) -> new BoundedBuffer(mutex, capacity) {
            @Override
            void enqueue(Object element) {
                if (element instanceof ProducerConsumer.Item item && item.id == 617) {
                    return; // lost
                }
                super.enqueue(element);
            }
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(round, 4, "virtual"));
        assertTrue(e.getMessage().contains("queue: item 617 was put but never taken: the buffer lost it (VNA)"), e.getMessage());
    }

    /** A buffer that hands one item out twice: the round must fail. */
    @Test
    void aQueueThatDuplicatesAnItemFailsTheRound() throws Exception {
        BenchDefinition b = bench("queue", "\"actionsCount\": 1000, \"capacity\": 8,");
        ProducerConsumer queue = (ProducerConsumer) b.kind().create(b.settings());
        Round round = queue.newRound(context(2, "UNFAIR_REENTRANT", "platform"), (mutex, capacity) -> new BoundedBuffer(mutex, capacity) {
            @Override
            void enqueue(Object element) {
                super.enqueue(element);
                if (element instanceof ProducerConsumer.Item item && item.id == 3 && size() < capacity()) {
                    super.enqueue(element); // duplicated
                }
            }
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(round, 2, "platform"));
        assertTrue(e.getMessage().contains("queue: 1001 items taken, 1000 put: an item was taken twice"), e.getMessage());
    }

    @Test
    void queueCheckFindsLossesAndDuplicatesAcrossConsumers() {
        long[][] good = {{0b0101L, 0}, {0b1010L, 0b1L}};
        ProducerConsumer.verifyTransfers(65, new long[][] {{-1L, 0}, {0, 1L}}, new long[] {64, 1}, "X");
        ProducerConsumer.verifyTransfers(4, new long[][] {{0b0101L}, {0b1010L}}, new long[] {2, 2}, "X");
        assertTrue(assertThrows(IllegalStateException.class,
                () -> ProducerConsumer.verifyTransfers(4, new long[][] {{0b0111L}, {0b1010L}}, new long[] {3, 2}, "X"))
                .getMessage().contains("item 1 was taken by two consumers"));
        assertTrue(assertThrows(IllegalStateException.class,
                () -> ProducerConsumer.verifyTransfers(65, good, new long[] {2, 3}, "X"))
                .getMessage().contains("item 4 was put but never taken"));
        assertTrue(assertThrows(IllegalStateException.class,
                () -> ProducerConsumer.verifyTransfers(4, new long[][] {{0b0101L}, {0b1010L}}, new long[] {2, 3}, "X"))
                .getMessage().contains("5 items taken, 4 put"));
    }

    // ---------------------------------------------------------------------------------------------------------
    // cache

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform"})
    void cacheKeepsItsCountsAndItsShapeWithEveryLock(String threadType) throws Exception {
        BenchDefinition b = bench("cache", "\"actionsCount\": 4000, \"capacity\": 50, \"keys\": 500, \"beforeCpuTokens\": 5,");
        Workload cache = b.kind().create(b.settings());
        for (String lock : LOCKS.split(",")) {
            Execution.Outcome o = run(cache.newRound(context(4, lock, threadType)), 4, threadType);
            assertEquals(4000, o.operations(), lock);
            assertEquals(4000, o.latency().getTotalCount(), lock + ": one acquire latency per operation");
            assertEquals(3999, o.handoffs(), lock);
        }
    }

    @Test
    void cacheDrawsTheGetShareAndEvictsBeyondItsCapacity() throws Exception {
        BenchDefinition b = bench("cache", "\"actionsCount\": 20000, \"capacity\": 10, \"keys\": 1000, \"getPercent\": 70,");
        LruCache.Cache probe = new LruCache.Cache(3);
        for (int k = 0; k < 5; k++) {
            probe.map.put(k, k);
        }
        assertEquals(List.of(2, 3, 4), List.copyOf(probe.map.keySet()), "the eldest two were evicted");
        probe.map.get(2);
        assertEquals(List.of(3, 4, 2), List.copyOf(probe.map.keySet()), "a get makes its key the most recent");
        assertEquals(20000, run(b.kind().create(b.settings()).newRound(context(3, "VNA", "virtual")), 3, "virtual").operations());
    }

    @Test
    void cacheCheckCatchesLostUpdatesAndATornMap() {
        LruCache.Cache cache = new LruCache.Cache(2);
        cache.map.put(1, 1);
        cache.gets = 5;
        cache.hits = 3;
        cache.misses = 2;
        cache.puts = 4;
        LruCache.verifyCache(cache, 5, 4, "X");
        assertTrue(assertThrows(IllegalStateException.class, () -> LruCache.verifyCache(cache, 6, 4, "X"))
                .getMessage().contains("counted 5 gets and 4 puts, the sequence has 6 and 4: an update was lost, X let two threads in"));
        cache.hits = 2;
        assertTrue(assertThrows(IllegalStateException.class, () -> LruCache.verifyCache(cache, 5, 4, "X"))
                .getMessage().contains("2 hits and 2 misses do not add up to 5 gets"));
        cache.hits = 3;
        cache.map.put(2, 7);
        assertTrue(assertThrows(IllegalStateException.class, () -> LruCache.verifyCache(cache, 5, 4, "X"))
                .getMessage().contains("key 2 maps to 7"));
    }

    // ---------------------------------------------------------------------------------------------------------
    // server

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform"})
    void serverAnswersEveryRequestInClosedLoopWithEveryLock(String threadType) throws Exception {
        BenchDefinition b = bench("server", "\"actionsCount\": 300, \"keys\": 7,");
        Workload server = b.kind().create(b.settings());
        for (String lock : LOCKS.split(",")) {
            Round round = server.newRound(context(3, lock, threadType));
            Execution.Outcome o = run(round, 3, threadType);
            assertEquals(300, o.operations(), lock);
            assertEquals(300, o.latency().getTotalCount(), lock + ": one response time per request");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform"})
    void serverOpenLoopMeasuresTheSaturationRateFirst(String threadType) throws Exception {
        BenchDefinition b = bench("server", "\"actionsCount\": 200, \"loadPercent\": 50, \"keys\": 5,");
        for (String lock : List.of("VNA", "SYNCHRONIZED", "NUMA_MCS")) {
            LoopbackServer.ServerRound round = (LoopbackServer.ServerRound) b.kind().create(b.settings())
                    .newRound(context(2, lock, threadType));
            assertTrue(round.saturationPerSecond() > 0, "measured before the round: " + round.saturationPerSecond());
            Execution.Outcome o = run(round, 2, threadType);
            // The check in finish() compares the handlers' counts with every answer, saturation run included.
            assertEquals(200, o.latency().getTotalCount(), lock);
        }
    }

    @Test
    void serverOpenLoopAtAGivenSaturationRateDoesNotMeasureIt() throws Exception {
        BenchDefinition b = bench("server", "\"actionsCount\": 200, \"loadPercent\": 50, \"saturationPerSecond\": 4000, \"keys\": 5,");
        LoopbackServer.ServerRound round = (LoopbackServer.ServerRound) b.kind().create(b.settings())
                .newRound(context(2, "VNA", "virtual"));
        assertEquals(4000.0, round.saturationPerSecond());
        Execution.Outcome o = run(round, 2, "virtual");
        // 200 requests at 2000/s: the schedule is 100 ms, and the handlers counted only these (no saturation run).
        assertEquals(200, o.latency().getTotalCount());
    }

    /**
     * A paired round: every other request of each connection goes to the second server, whose times come back apart
     * from the point's; both servers' counts are checked; and both servers are gone after the round.
     */
    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform"})
    void aPairedServerTakesEveryOtherRequestAndReportsItsOwnTimes(String threadType) throws Exception {
        BenchDefinition b = bench("server", "\"actionsCount\": 203, \"loadPercent\": 50, \"saturationPerSecond\": 8000, "
                + "\"pairedWith\": \"UNFAIR_REENTRANT\", \"keys\": 5,");
        LoopbackServer.ServerRound round = (LoopbackServer.ServerRound) b.kind().create(b.settings())
                .newRound(context(2, "VNA", threadType));
        Execution.Outcome o = run(round, 2, threadType);
        assertEquals(203, o.operations());
        // Connection 0 sends requests 0, 2, ..., 202: 102, 51 to each server; connection 1 sends 1, 3, ..., 201: 101,
        // and starts with the paired server: its 1st, 3rd, ... (51) go there, the other 50 to the measured one.
        assertEquals(101, o.latency().getTotalCount(), "the measured lock's requests");
        assertEquals(102, round.pairedLatency().getTotalCount(), "the paired server's requests");
        assertTrue(round.pairedLatency().getMinValue() > 0, "times were recorded");
        assertTrue(round.handlers().isTerminated(), "the measured server's handlers ended");
        assertTrue(round.pairedHandlers().isTerminated(), "the paired server's handlers ended");
        assertFalse(dispatcherAlive(), "both dispatcher threads were joined");
    }

    @Test
    void aRoundWithoutAPairReportsNoPairedTimes() throws Exception {
        BenchDefinition b = bench("server", "\"actionsCount\": 100, \"loadPercent\": 50, \"saturationPerSecond\": 8000, \"keys\": 5,");
        Round round = b.kind().create(b.settings()).newRound(context(2, "VNA", "virtual"));
        run(round, 2, "virtual");
        assertNull(round.pairedLatency());
    }

    @Test
    void serverListensOnLoopbackOnlyAndShutsDownAfterTheRound() throws Exception {
        BenchDefinition b = bench("server", "\"actionsCount\": 100,");
        LoopbackServer.ServerRound round = (LoopbackServer.ServerRound) b.kind().create(b.settings())
                .newRound(context(2, "VNA", "virtual"));
        InetSocketAddress address = round.address();
        assertEquals("127.0.0.1", address.getAddress().getHostAddress());
        assertTrue(address.getPort() > 0);
        assertTrue(dispatcherAlive(), "the JDK server's dispatcher runs");
        run(round, 2, "virtual");
        assertTrue(round.handlers().isTerminated(), "every handler thread ended");
        assertFalse(dispatcherAlive(), "the dispatcher thread was joined");
        assertThrows(ConnectException.class, () -> {
            try (Socket s = new Socket()) {
                s.connect(address, 10_000);
            }
        });
    }

    /** A server stopped under the client: the round fails, and still closes everything. */
    @Test
    void aFailedServerRoundStillShutsDown() throws Exception {
        BenchDefinition b = bench("server", "\"actionsCount\": 100,");
        for (String threadType : List.of("virtual", "platform")) {
            LoopbackServer.ServerRound round = (LoopbackServer.ServerRound) b.kind().create(b.settings())
                    .newRound(context(2, "SHFL", threadType));
            InetSocketAddress address = round.address();
            round.stopServerForTest();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(round, 2, threadType));
            assertTrue(e.getMessage().contains("a worker failed"), e.getMessage());
            assertTrue(round.handlers().isTerminated());
            assertFalse(dispatcherAlive());
            assertThrows(IOException.class, () -> {
                try (Socket s = new Socket()) {
                    s.connect(address, 10_000);
                }
            });
        }
    }

    /**
     * A server that accepts and never answers (what a client meets when {@code HttpServer.stop} leaves a connection it
     * had just accepted open): the client's read gives up with a socket timeout, so a round fails as a failed worker
     * instead of running into its own timeout as if the lock hung.
     */
    @Test
    void aServerThatNeverAnswersFailsTheClientsReadNotTheRoundsTimeout() throws Exception {
        assertEquals(15_000, LoopbackServer.readTimeoutMs(TIMEOUT));
        assertEquals(1_000, LoopbackServer.readTimeoutMs(Duration.ofMillis(10)));
        assertEquals(LoopbackServer.READ_TIMEOUT_MS, LoopbackServer.readTimeoutMs(Duration.ofHours(1)));
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                LoopbackServer.Connection client = new LoopbackServer.Connection(
                        (InetSocketAddress) silent.getLocalSocketAddress(), 1_000);
                Socket accepted = silent.accept()) {
            assertThrows(java.net.SocketTimeoutException.class, () -> client.call("GET /count/0 HTTP/1.1\r\n\r\n"
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)));
            assertTrue(accepted.isConnected());
        }
    }

    private static boolean dispatcherAlive() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive() && t.getName().equals("HTTP-Dispatcher"));
    }

    @Test
    void serverCheckCatchesALostUpdate() {
        LoopbackServer.verifyCounts(new long[] {3, 1}, new long[][] {{1, 1}, {2, 0}}, "X");
        assertTrue(assertThrows(IllegalStateException.class,
                () -> LoopbackServer.verifyCounts(new long[] {2, 1}, new long[][] {{1, 1}, {2, 0}}, "X"))
                .getMessage().contains("key 0 was counted 2 times by the handlers, the clients got 3 answers for it: an update was lost, "
                        + "X let two handlers in"));
    }

    @Test
    void serverParsesOnlyItsOwnPaths() {
        assertEquals(12, LoopbackServer.parseKey("/count/12", 64));
        assertEquals(-1, LoopbackServer.parseKey("/count/64", 64));
        assertEquals(-1, LoopbackServer.parseKey("/count/", 64));
        assertEquals(-1, LoopbackServer.parseKey("/count/1x", 64));
        assertEquals(-1, LoopbackServer.parseKey("/other/1", 64));
        assertEquals(-1, LoopbackServer.parseKey("/count/99999999999", 64));
    }

    // ---------------------------------------------------------------------------------------------------------
    // configuration

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            queue  | "capacity": 0,            | benches[0].payload.capacity: must be >= 1, got 0
            queue  | "producerPercent": 100,   | benches[0].payload.producerPercent: must be <= 99 (at least one thread consumes), got 100
            queue  | "producerPercent": 0,     | benches[0].payload.producerPercent: must be >= 1, got 0
            queue  | "produceCpuTokens": -1,   | benches[0].payload.produceCpuTokens: must be >= 0, got -1
            queue  | "threads": [1, 4],        | benches[0].payload.threads: queue needs at least 2 threads per point (a producer and a consumer), got 1
            queue  | "actionsCount": 60000000, | benches[0].payload.actionsCount: must be <= 50000000
            cache  | "capacity": 0,            | benches[0].payload.capacity: must be >= 1, got 0
            cache  | "getPercent": 101,        | benches[0].payload.getPercent: must be <= 100 (a percent), got 101
            cache  | "zipfPercent": -1,        | benches[0].payload.zipfPercent: must be >= 0, got -1
            cache  | "keys": 0,                | benches[0].payload.keys: must be >= 1, got 0
            server | "loadPercent": 120,       | benches[0].payload.loadPercent: must be <= 100 (a percent of the saturation rate; 0 is closed loop), got 120
            server | "inCpuTokens": -1,        | benches[0].payload.inCpuTokens: must be >= 0, got -1
            server | "keys": 70000,            | benches[0].payload.keys: must be <= 65536
            server | "remotePenaltyNs": 100,   | benches[0].payload.remotePenaltyNs: unknown field
            server | "pairedWith": "UNFAIR", "loadPercent": 50, | benches[0].payload.pairedWith: unknown lock 'UNFAIR'
            server | "pairedWith": "VNA",      | benches[0].payload.pairedWith: applies to an open loop only (loadPercent 1-100)
            """)
    void badPayloadsNameTheField(String workload, String fragment, String expected) {
        String threads = fragment.contains("\"threads\"") ? "" : "\"threads\": [2],";
        List<String> problems = problems("""
                { "benches": [ { "name": "%s", "payload": { %s %s "locks": [ { "name": "VNA" } ] } } ] }
                """.formatted(workload, fragment, threads));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.getFirst().startsWith(expected.strip()), problems.getFirst());
    }

    @Test
    void queueDefaultThreadCountsStartAtTwo() throws Exception {
        BenchConfig config = ConfigReader.parse("""
                { "benches": [ { "name": "queue", "payload": { "locks": [ { "name": "VNA" } ] } } ] }
                """, "test", 2, Mutex.names());
        assertEquals(List.of(2, 4, 8), config.benches().getFirst().threads());
    }

    @Test
    void keyedSchemesAndLayoutsAreNotLocksOfTheseWorkloads() {
        List<String> problems = problems("""
                { "benches": [ { "name": "cache", "payload": { "threads": [2], "locks": [ { "name": "KEYED_LOCK" } ] } } ] }
                """);
        assertEquals(List.of("benches[0].payload.locks[0].name: KEYED_LOCK is a keyed scheme, measured only by the keyed workload"),
                problems);
    }
}
