package io.numaloom.bench.workloads;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.locks.Locks;
import io.numaloom.bench.run.Execution;
import io.numaloom.bench.run.ThreadPlacement;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The futile wake-ups and signal-to-lock times of the {@code queue} workload's buffer over a lock. The scenarios are ordered by the mutex
 * and by polling under it, never by sleeping: nothing here depends on how fast anything runs, and the timeouts
 * only guard against hangs.
 */
class QueueWaitsTest {
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

    /** Polls {@code condition} holding the mutex until it holds (a hang guard, not a timing verdict). */
    private static void awaitUnderMutex(Mutex mutex, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + GUARD.toNanos();
        boolean[] holds = new boolean[1];
        while (true) {
            mutex.runExclusively(() -> holds[0] = condition.getAsBoolean());
            if (holds[0]) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "never happened: " + what);
            Thread.sleep(1);
        }
    }

    /** A platform thread that takes one element from {@code consumer} into {@code got}. */
    private static Thread taker(BoundedBuffer.Consumer consumer, AtomicReference<Object> got) {
        return Thread.ofPlatform().start(() -> {
            try {
                got.set(consumer.take());
            } catch (InterruptedException e) {
                got.set(e);
            }
        });
    }

    /**
     * A taker waits on the empty buffer; a thread holding the mutex puts an item (signalling it) and takes the item
     * back itself before the taker can hold the mutex again. The woken taker finds the buffer empty: one futile
     * wake-up, and it waits again until the next put. Both of its returns from await followed a signal.
     */
    @ParameterizedTest
    @ValueSource(strings = {"VNA", "UNFAIR_REENTRANT", "FAIR_REENTRANT", Locks.SYNCHRONIZED})
    void aTakerWokenAfterABargerTookTheItemCountsAFutileWakeUp(String lock) throws Exception {
        Mutex mutex = Mutex.create(lock);
        BoundedBuffer buffer = new BoundedBuffer(mutex, 1);
        BoundedBuffer.Producer producer = buffer.producer();
        BoundedBuffer.Consumer woken = buffer.consumer();
        BoundedBuffer.Consumer barger = buffer.consumer();
        AtomicReference<Object> got = new AtomicReference<>();
        Thread taker = taker(woken, got);
        awaitUnderMutex(mutex, () -> buffer.waitingToTake() == 1, "the taker waits on the empty buffer");

        Object[] barged = new Object[1];
        mutex.runExclusively(() -> { // nested holds: every mutex here is reentrant
            try {
                producer.put("first");
                barged[0] = barger.take();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals("first", barged[0]);
        // The taker increments its count holding the mutex and waits again before it lets go of it.
        awaitUnderMutex(mutex, () -> woken.futileWakeups >= 1, "the woken taker found the buffer empty");
        producer.put("second");
        assertTrue(taker.join(GUARD), lock + ": the taker got the second item");
        assertEquals("second", got.get());

        ConditionWaits waits = buffer.waits();
        if (Locks.isSynchronized(lock)) {
            // Object.wait may return spuriously: one more futile wake-up then, and no more signal-to-lock times.
            assertTrue(waits.futileWakeups() >= 1, lock + ": " + waits.futileWakeups());
        } else {
            assertEquals(1, waits.futileWakeups(), lock);
        }
        assertEquals(2, waits.signalToLock().getTotalCount(), lock + ": both returns from await followed a signal");
        assertEquals(0, buffer.size());
    }

    /** A taker woken by a put finds the item: no futile wake-up, one signal-to-lock time. */
    @ParameterizedTest
    @ValueSource(strings = {"VNA", "UNFAIR_REENTRANT", "SHFL"})
    void aTakerWokenByAPutTakesTheItem(String lock) throws Exception {
        Mutex mutex = Mutex.create(lock);
        BoundedBuffer buffer = new BoundedBuffer(mutex, 4);
        BoundedBuffer.Producer producer = buffer.producer();
        AtomicReference<Object> got = new AtomicReference<>();
        Thread taker = taker(buffer.consumer(), got);
        awaitUnderMutex(mutex, () -> buffer.waitingToTake() == 1, "the taker waits on the empty buffer");
        producer.put("item");
        assertTrue(taker.join(GUARD), lock);
        assertEquals("item", got.get());
        ConditionWaits waits = buffer.waits();
        assertEquals(0, waits.futileWakeups(), lock);
        assertEquals(1, waits.signalToLock().getTotalCount(), lock);
        assertTrue(waits.signalToLock().getMaxValue() >= 0);
    }

    /**
     * One producer and one consumer: a woken thread is the only one of its side, so it always finds what it waited
     * for. Over a lock's own conditions (which absorb spurious wake-ups) no wake-up is futile, however the threads
     * run. Nothing that never waits is recorded.
     */
    @ParameterizedTest
    @ValueSource(strings = {"VNA", "UNFAIR_REENTRANT", "SHFL"})
    void withOneProducerAndOneConsumerNoWakeUpIsFutile(String lock) throws Exception {
        BenchDefinition b = queue("\"actionsCount\": 3000, \"capacity\": 1,", "UNFAIR_REENTRANT");
        for (String threadType : List.of("virtual", "platform")) {
            Round round = b.kind().create(b.settings()).newRound(new RoundContext(2, lock, 0, threadType, GUARD));
            assertEquals(3000, run(round, 2, threadType).operations());
            ConditionWaits waits = round.conditionWaits();
            assertNotNull(waits, lock);
            assertEquals(0, waits.futileWakeups(), lock + " on " + threadType + " threads");
        }
    }

    /** Several consumers on one slot: the round ends, and its waits are reported (how many depends on the run). */
    @ParameterizedTest
    @ValueSource(strings = {"VNA", "UNFAIR_REENTRANT", Locks.SYNCHRONIZED})
    void oneSlotSharedByManyConsumersReportsItsWaits(String lock) throws Exception {
        BenchDefinition b = queue("\"actionsCount\": 2000, \"capacity\": 1, \"producerPercent\": 20,", "UNFAIR_REENTRANT");
        Round round = b.kind().create(b.settings()).newRound(new RoundContext(5, lock, 0, "virtual", GUARD));
        assertEquals(2000, run(round, 5, "virtual").operations());
        ConditionWaits waits = round.conditionWaits();
        assertTrue(waits.futileWakeups() >= 0 && waits.signalToLock().getTotalCount() >= 0, lock);
    }
}
