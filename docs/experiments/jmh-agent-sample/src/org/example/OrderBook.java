package org.example;

import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;

import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A sample of a user's own JMH benchmark, written as an application writes it: an order book behind one unfair
 * ReentrantLock, four threads placing and cancelling orders (about a microsecond under the lock, a little work
 * outside). ./numaloom bench --jmh-jar ... --jmh-agent compares it as it is with the same through numaloom's agent.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OrderBook {
    private final ReentrantLock lock = new ReentrantLock();
    private final TreeMap<Long, Long> bids = new TreeMap<>();

    @Benchmark
    @Threads(4)
    public long placeAndCancel() {
        long price = 1000 + ThreadLocalRandom.current().nextInt(200);
        Blackhole.consumeCPU(50); // the request's work outside the book
        lock.lock();
        try {
            bids.merge(price, 1L, Long::sum);
            Long best = bids.lastKey();
            if (bids.size() > 150) {
                bids.pollFirstEntry();
            }
            return best;
        } finally {
            lock.unlock();
        }
    }
}
