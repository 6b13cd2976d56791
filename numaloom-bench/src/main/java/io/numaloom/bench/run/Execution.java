package io.numaloom.bench.run;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.SectionGaps;
import io.numaloom.bench.Worker;
import io.numaloom.bench.result.Stats;
import io.numaloom.bench.workloads.Round;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One timed round on real threads: start the workers untimed, release them together, wait for the last.
 *
 * <p>{@link #start()} creates and starts every worker; each one parks on a start gate. {@link #run(Duration)}
 * opens the gate and joins them all: that is the timed part (JMH times the benchmark method that calls it).
 * {@link #finish()} then checks the round and gathers its statistics. The round is {@link Round#close() closed}
 * once it is over: after its check, or when it fails to start, fails or times out.
 *
 * <p>Fairness is measured at the moment the first worker finishes its share: it copies every worker's
 * progress counter. With a fair lock all counters are then close to the share; with an unfair one some
 * workers lag far behind. Jain's index and the min/max ratio of those counts go into {@link Outcome}.
 */
public final class Execution {
    private final Round round;
    private final ThreadPlacement placement;
    private final Worker[] workers;
    private final Thread[] threads;
    private final CountDownLatch gate = new CountDownLatch(1);
    private final CountDownLatch atGate;
    private final AtomicInteger finished = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile long[] countsAtFirstFinish;

    /**
     * @param round         the round to run
     * @param threads       the number of workers
     * @param placement     how to start them
     * @param recordLatency whether workers record acquire latencies
     */
    public Execution(Round round, int threads, ThreadPlacement placement, boolean recordLatency) {
        this(round, threads, placement, recordLatency, 0);
    }

    /**
     * @param migrationPenaltyNs NUMA cost model: spin charged each time a worker is seen on another node than the
     *                           last time (see {@link Worker}); nodes are tracked only on a multi-node topology
     */
    public Execution(Round round, int threads, ThreadPlacement placement, boolean recordLatency, long migrationPenaltyNs) {
        boolean nodeAware = io.numaloom.topology.Topology.current().nodeCount() > 1;
        this.round = round;
        this.placement = placement;
        this.workers = new Worker[threads];
        this.threads = new Thread[threads];
        this.atGate = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            workers[i] = new Worker(i, threads, recordLatency ? new Histogram(2) : null, nodeAware, migrationPenaltyNs);
        }
    }

    /**
     * Starts every worker and waits until all of them wait at the gate, so that the timed part does not
     * include starting or first scheduling a thread. Untimed.
     *
     * @throws IllegalStateException if the workers do not all reach the gate within a minute
     */
    public void start() throws InterruptedException {
        boolean started = false;
        try {
            for (int i = 0; i < workers.length; i++) {
                Worker worker = workers[i];
                threads[i] = placement.start(i, () -> work(worker));
            }
            if (!atGate.await(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException(atGate.getCount() + " of " + workers.length + " workers did not start within a minute");
            }
            started = true;
        } finally {
            if (!started) {
                round.close();
            }
        }
    }

    private void work(Worker worker) {
        try {
            atGate.countDown();
            gate.await();
            round.runThread(worker);
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        } finally {
            if (finished.getAndIncrement() == 0) {
                long[] counts = new long[workers.length];
                for (int i = 0; i < workers.length; i++) {
                    counts[i] = workers[i].progressOpaque();
                }
                countsAtFirstFinish = counts;
            }
        }
    }

    /**
     * Releases the workers and waits for all of them: the timed part.
     *
     * @throws IllegalStateException if a worker failed (with its exception as the cause) or the round took
     *         longer than {@code timeout} (the stuck workers are interrupted and left behind)
     */
    public void run(Duration timeout) throws InterruptedException {
        boolean passed = false;
        try {
            runWorkers(timeout);
            passed = true;
        } finally {
            if (!passed) {
                round.close();
            }
        }
    }

    private void runWorkers(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        gate.countDown();
        for (Thread thread : threads) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !thread.join(Duration.ofNanos(left))) {
                String stuck = describeStuck();
                int alive = 0;
                for (Thread t : threads) {
                    if (t.isAlive()) {
                        alive++;
                        t.interrupt();
                    }
                }
                throw new IllegalStateException("round timed out after " + timeout.toSeconds() + " s with " + alive
                        + " of " + threads.length + " threads still running (a lost wake-up or a deadlock in the lock?)" + stuck);
            }
        }
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("a worker failed: " + t, t);
        }
    }

    /** Each worker still running: its progress, state and innermost frames, for the timeout's message. */
    private String describeStuck() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < threads.length; i++) {
            Thread t = threads[i];
            if (!t.isAlive()) {
                continue;
            }
            sb.append(System.lineSeparator()).append("  worker ").append(i).append(" (").append(t).append(", ")
                    .append(t.getState()).append(", ").append(workers[i].progressOpaque()).append(" operations done)");
            StackTraceElement[] frames = t.getStackTrace();
            for (int f = 0; f < Math.min(frames.length, 12); f++) {
                sb.append(System.lineSeparator()).append("    at ").append(frames[f]);
            }
        }
        return sb.toString();
    }

    /**
     * Checks the round (the workload's own check and mutual exclusion) and gathers its statistics.
     *
     * @throws IllegalStateException if a check fails
     */
    public Outcome finish() {
        try {
            return check();
        } finally {
            round.close();
        }
    }

    private Outcome check() {
        round.verify();
        long inside = 0;
        long handoffs = 0;
        long local = 0;
        SectionGaps gaps = SectionGaps.NONE;
        for (GuardedRegion region : round.regions()) {
            inside += region.acquisitions();
            handoffs += region.handoffs();
            local += region.localHandoffs();
            gaps = gaps.plus(region.sectionGaps());
        }
        long outside = 0;
        long nodeAcquisitions = 0;
        long foreign = 0;
        long migrations = 0;
        Histogram latency = null;
        for (Worker worker : workers) {
            outside += worker.acquisitions();
            nodeAcquisitions += worker.nodeAcquisitions();
            foreign += worker.foreignAcquisitions();
            migrations += worker.migrations();
            if (worker.latency() != null) {
                if (latency == null) {
                    latency = new Histogram(2);
                }
                latency.add(worker.latency());
            }
        }
        if (!round.regions().isEmpty() && inside != outside) {
            throw new IllegalStateException("mutual exclusion violated: the threads made " + outside
                    + " acquisitions but the critical sections counted " + inside + " (lost updates)");
        }
        return new Outcome(round.operations(), countsAtFirstFinish, latency, handoffs, local, nodeAcquisitions, foreign, migrations,
                gaps);
    }

    /**
     * What one round measured besides its time.
     *
     * @param operations          operations performed
     * @param countsAtFirstFinish each worker's completed operations when the first worker finished
     * @param latency             acquire latencies in nanoseconds, or null if not recorded
     * @param handoffs            consecutive acquisitions over all regions
     * @param localHandoffs       those whose two holders ran on one node
     * @param nodeAcquisitions    acquisitions whose nodes were tracked (multi-node topologies only)
     * @param foreignAcquisitions of which made on another node than the one the thread asked on
     * @param migrations          times a worker was seen on another node than the last time
     * @param sectionGaps         the gaps between critical sections over all regions ({@link SectionGaps#NONE} unless
     *                            the holders timed them)
     */
    public record Outcome(long operations, long[] countsAtFirstFinish, Histogram latency, long handoffs, long localHandoffs,
                          long nodeAcquisitions, long foreignAcquisitions, long migrations, SectionGaps sectionGaps) {

        /** Jain's fairness index of the counts: 1 when all equal, 1/n when one thread did everything. */
        public double jainIndex() {
            return Stats.jainIndex(countsAtFirstFinish);
        }

        /** The smallest count over the largest: 1 when all equal, 0 when a thread did nothing. */
        public double minMaxRatio() {
            return Stats.minMaxRatio(countsAtFirstFinish);
        }
    }

    /** Runs a whole round in the calling thread's JVM (tests and the in-process path): start, run, finish. */
    public static Outcome runOnce(Round round, int threads, ThreadPlacement placement, boolean recordLatency,
                                  Duration timeout) throws InterruptedException {
        Execution execution = new Execution(round, threads, placement, recordLatency);
        execution.start();
        execution.run(timeout);
        return execution.finish();
    }
}
