package io.numaloom.bench.workloads;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * The {@code queue} workload: producers hand items to consumers through one bounded buffer built as
 * {@link java.util.concurrent.ArrayBlockingQueue} is ({@link BoundedBuffer}: a ring under one lock, with the two
 * conditions notFull and notEmpty), the shape of a work queue between the stages of an application. Every
 * acquisition of the lock is a put or a take, and every full or empty buffer is a wait on a condition and a
 * signal, so the score is the lock's handover together with its conditions' park and wake-up.
 *
 * <p>Measured: items transferred per millisecond (an operation is one item, put and taken), and, in the point's
 * latency columns, each item's put-to-take time: from the moment its producer calls put (waiting for a free slot
 * included) to the moment a consumer's take returns it, from {@link System#nanoTime()} stamped in the item.
 *
 * <p>Parameters:
 * <ul>
 * <li>{@code actionsCount}: items per round, split evenly over the producers;</li>
 * <li>{@code capacity}: slots of the buffer;</li>
 * <li>{@code producerPercent}: the share of the point's threads that produce, the rest consume (at least one of
 *     each, so every point needs two threads or more);</li>
 * <li>{@code produceCpuTokens}, {@code consumeCpuTokens}: {@code Blackhole.consumeCPU} work outside the lock
 *     before each put and after each take.</li>
 * </ul>
 *
 * <p>Conditions come from {@link Mutex#newCondition()}: the lock's own for VnaLock and ReentrantLock,
 * {@code wait}/{@code notifyAll} on the monitor for {@code SYNCHRONIZED}, and for the baselines, which have none,
 * a queue of parked waiters kept under the lock. For a lock-based buffer the round also reports its
 * {@link ConditionWaits}: the futile wake-ups (a woken thread that finds the buffer still full or still empty and
 * waits again) and each woken thread's time from the signal to holding the lock ({@link BoundedBuffer} says how
 * they are counted).
 *
 * <p>Two names measure the JDK's own blocking queues in place of the buffer, as the references an application
 * would pick: {@value #ARRAY_BLOCKING_QUEUE}, {@code new ArrayBlockingQueue<>(capacity)} (one unfair
 * ReentrantLock, the layout {@link BoundedBuffer} copies), and {@value #LINKED_BLOCKING_QUEUE},
 * {@code new LinkedBlockingQueue<>(capacity)} (a lock for puts and one for takes, a node per element), both used
 * with {@code put} and {@code take}: the same items, end markers and checks. Their waits are the JDK's own and
 * are not counted. These names are valid for this workload only.
 *
 * <p>Check: items are preallocated per round (untimed) with ids {@code 0..actionsCount-1}; each consumer marks the
 * ids it took in a bit set of its own and counts them. When the last producer is done it puts one end marker per
 * consumer, so a lost item ends the round instead of leaving a consumer waiting. {@link Round#verify()} then
 * requires every id taken exactly once (no loss, no duplicate: a duplicate within one consumer shows in the
 * counts) and the buffer empty.
 */
public final class ProducerConsumer implements Workload {
    /** The JDK's {@link ArrayBlockingQueue} as the buffer: a lock name of this workload only. */
    public static final String ARRAY_BLOCKING_QUEUE = "ARRAY_BLOCKING_QUEUE";
    /** The JDK's {@link LinkedBlockingQueue} as the buffer: a lock name of this workload only. */
    public static final String LINKED_BLOCKING_QUEUE = "LINKED_BLOCKING_QUEUE";

    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 400_000L, "items transferred per round, split evenly over the producers"),
            Field.intField("capacity", 1, 64, "slots of the bounded buffer"),
            Field.intField("producerPercent", 1, 50, "percent of the threads that produce (at most 99), the rest consume; "
                    + "at least one of each"),
            Field.longField("produceCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens a producer spends before each put, outside the lock"),
            Field.longField("consumeCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens a consumer spends after each take, outside the lock"));

    /** The most items a round may have: they are preallocated, and every consumer keeps a bit per item. */
    public static final long MAX_ITEMS = 50_000_000L;

    /** The names that measure one of the JDK's blocking queues instead of a buffer over a lock. */
    public static List<String> jdkQueueNames() {
        return List.of(ARRAY_BLOCKING_QUEUE, LINKED_BLOCKING_QUEUE);
    }

    /** Whether {@code name} is one of {@link #jdkQueueNames()}. */
    public static boolean isJdkQueue(String name) {
        return ARRAY_BLOCKING_QUEUE.equals(name) || LINKED_BLOCKING_QUEUE.equals(name);
    }

    /** A producing thread's end of the queue. */
    interface Putter {
        /** Waits for room and adds {@code e}. */
        void put(Object e) throws InterruptedException;
    }

    /** A consuming thread's end of the queue. */
    interface Taker {
        /** Waits for an element and removes it. */
        Object take() throws InterruptedException;
    }

    /** One transferred item: its id and the time its producer called put. */
    static final class Item {
        final int id;
        /** Written by the producer before put, read by the consumer after take (ordered by the lock). */
        long putNanos;

        Item(int id) {
            this.id = id;
        }
    }

    /** What the last producer puts once per consumer: take no more. */
    private static final Item END = new Item(-1);

    private final long actions;
    private final int capacity;
    private final int producerPercent;
    private final long produceTokens;
    private final long consumeTokens;

    public ProducerConsumer(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.capacity = settings.getInt("capacity");
        this.producerPercent = settings.getInt("producerPercent");
        this.produceTokens = settings.getLong("produceCpuTokens");
        this.consumeTokens = settings.getLong("consumeCpuTokens");
        if (actions > MAX_ITEMS) {
            throw new IllegalArgumentException("queue: actionsCount " + actions + " is over " + MAX_ITEMS);
        }
    }

    /** How many of {@code threads} produce: {@code producerPercent} of them, rounded, at least one and not all. */
    static int producers(int threads, int producerPercent) {
        long p = Math.round(threads * producerPercent / 100.0);
        return (int) Math.max(1, Math.min(threads - 1, p));
    }

    @Override
    public Round newRound(RoundContext context) {
        return newRound(context, BoundedBuffer::new);
    }

    /**
     * A round over the buffer {@code buffers} makes from the measured mutex and the capacity (tests plant faults), or
     * over the JDK's queue when the lock name is one of {@link #jdkQueueNames()}.
     */
    Round newRound(RoundContext context, BiFunction<Mutex, Integer, BoundedBuffer> buffers) {
        int threads = context.threads();
        if (threads < 2) {
            throw new IllegalArgumentException("queue needs at least 2 threads (a producer and a consumer), got " + threads);
        }
        int producers = producers(threads, producerPercent);
        int consumers = threads - producers;
        int items = (int) actions;
        String lock = context.lockName();
        BlockingQueue<Object> jdk = switch (lock) {
            case ARRAY_BLOCKING_QUEUE -> new ArrayBlockingQueue<>(capacity);
            case LINKED_BLOCKING_QUEUE -> new LinkedBlockingQueue<>(capacity);
            default -> null;
        };
        BoundedBuffer buffer = jdk == null ? buffers.apply(context.newMutex(), capacity) : null;
        // Every thread's end is made here, untimed: a handle of the buffer carries its thread's wait counts.
        Putter[] putters = new Putter[producers];
        for (int p = 0; p < producers; p++) {
            putters[p] = jdk == null ? buffer.producer() : jdk::put;
        }
        Taker[] takers = new Taker[consumers];
        for (int c = 0; c < consumers; c++) {
            takers[c] = jdk == null ? buffer.consumer() : jdk::take;
        }
        Item[] all = new Item[items];
        for (int i = 0; i < items; i++) {
            all[i] = new Item(i);
        }
        long[][] takenBits = new long[consumers][(items + 63) >>> 6];
        long[] takenCounts = new long[consumers];
        AtomicInteger producing = new AtomicInteger(producers);
        return new Round() {
            @Override
            public void runThread(Worker worker) throws InterruptedException {
                int index = worker.index();
                if (index < producers) {
                    produce(worker, index);
                } else {
                    consume(worker, index - producers);
                }
            }

            private void produce(Worker worker, int p) throws InterruptedException {
                Putter producer = putters[p];
                int from = p * (items / producers) + Math.min(p, items % producers);
                int to = from + items / producers + (p < items % producers ? 1 : 0);
                for (int id = from; id < to; id++) {
                    Blackhole.consumeCPU(produceTokens);
                    Item item = all[id];
                    item.putNanos = System.nanoTime();
                    producer.put(item);
                    worker.completed();
                }
                if (producing.decrementAndGet() == 0) {
                    for (int c = 0; c < consumers; c++) {
                        producer.put(END);
                    }
                }
            }

            private void consume(Worker worker, int c) throws InterruptedException {
                Taker consumer = takers[c];
                long[] bits = takenBits[c];
                long count = 0;
                for (Object taken = consumer.take(); taken != END; taken = consumer.take()) {
                    Item item = (Item) taken;
                    worker.record(System.nanoTime() - item.putNanos);
                    bits[item.id >>> 6] |= 1L << item.id;
                    count++;
                    Blackhole.consumeCPU(consumeTokens);
                    worker.completed();
                }
                takenCounts[c] = count;
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public void verify() {
                verifyTransfers(items, takenBits, takenCounts, lock);
                int left = jdk == null ? buffer.size() : jdk.size();
                if (left != 0) {
                    throw new IllegalStateException("queue: " + left + " elements left in the buffer after every consumer "
                            + "took its end marker: " + (jdk == null ? "the buffer's count is wrong, " + lock + " let two threads in"
                            : "the JDK's queue (" + lock + ") kept them"));
                }
            }

            @Override
            public ConditionWaits conditionWaits() {
                return buffer == null ? null : buffer.waits();
            }
        };
    }

    /**
     * Checks that every item id in {@code 0..items-1} was taken exactly once: by exactly one consumer (its bit set in
     * exactly one of {@code takenBits}), and no more often than the ids (the sum of {@code takenCounts}).
     *
     * @throws IllegalStateException naming the first item lost or taken twice, and the lock
     */
    static void verifyTransfers(int items, long[][] takenBits, long[] takenCounts, String lock) {
        int words = (items + 63) >>> 6;
        for (int w = 0; w < words; w++) {
            long seen = 0;
            long twice = 0;
            for (long[] bits : takenBits) {
                twice |= seen & bits[w];
                seen |= bits[w];
            }
            if (twice != 0) {
                throw new IllegalStateException("queue: item " + (w * 64 + Long.numberOfTrailingZeros(twice))
                        + " was taken by two consumers: the buffer handed it out twice (" + lock + ")");
            }
            long expected = w < words - 1 || items % 64 == 0 ? -1L : (1L << (items % 64)) - 1;
            long missing = expected & ~seen;
            if (missing != 0) {
                throw new IllegalStateException("queue: item " + (w * 64 + Long.numberOfTrailingZeros(missing))
                        + " was put but never taken: the buffer lost it (" + lock + ")");
            }
        }
        long taken = 0;
        for (long c : takenCounts) {
            taken += c;
        }
        if (taken != items) {
            throw new IllegalStateException("queue: " + taken + " items taken, " + items
                    + " put: an item was taken twice by one consumer (" + lock + ")");
        }
    }
}
