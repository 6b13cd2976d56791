package io.numaloom.bench;

import io.numaloom.topology.CurrentCpu;

import org.HdrHistogram.Histogram;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Padding before a worker's fields (class-hierarchy padding, see {@link GuardedRegion}). */
abstract class WorkerPadBefore {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** Fields written by the worker's own thread on every operation. */
abstract class WorkerFields extends WorkerPadBefore {
    /** Operations completed; written by the owner (opaque), read by the first thread to finish. */
    long progress;
    /** Acquisitions made through {@link Worker#locked}; owner only. */
    long acquisitions;
    /** {@link System#nanoTime()} just before the current acquisition; owner only. */
    long acquireStart;
    /** The region and section of the acquisition in flight; owner only. */
    GuardedRegion region;
    Runnable section;
    /** Node this thread was last seen on, -1 before the first look; owner only (multi-node topologies only). */
    int lastNode = -1;
    /** Node this thread ran on when it asked for the lock in flight (where a VnaLock queues it); owner only. */
    int askedNode;
    /** Region acquisitions seen on a multi-node topology; owner only. */
    long nodeAcquisitions;
    /** Of which made on another node than the one the thread asked on; owner only. */
    long foreignAcquisitions;
    /** Times this thread was seen on another node than the last time it was looked at; owner only. */
    long migrations;
}

/** Padding after a worker's fields. */
abstract class WorkerPadAfter extends WorkerFields {
    long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
}

/**
 * One measured thread's view of a round: its index, its share of the work, and the measuring probe that
 * every acquisition goes through.
 *
 * <p>{@link #locked(GuardedRegion, Runnable)} is the only way a workload enters a critical section (the
 * {@code sync} workload, which measures the bare lock, calls the mutex directly). It takes the start time,
 * passes this worker itself as the section to {@link Mutex#runExclusively(Runnable)} (no allocation per
 * operation), and inside the section records the acquire latency, lets the region do its NUMA bookkeeping
 * and runs the workload's section.
 *
 * <p>Thread-safety: owned by one thread; {@link #progressOpaque()} may be called from any thread.
 */
public final class Worker extends WorkerPadAfter implements Runnable {
    private static final VarHandle PROGRESS;

    static {
        try {
            PROGRESS = MethodHandles.lookup().findVarHandle(WorkerFields.class, "progress", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int index;
    private final int threads;
    private final Histogram latency;
    /** Whether the topology has several nodes: only then are nodes looked up before each acquisition. */
    private final boolean nodeAware;
    private final long migrationPenaltyNs;

    /**
     * @param index   this worker's index in {@code [0, threads)}
     * @param threads the number of workers of the round
     * @param latency where acquire latencies go, in nanoseconds; null to record none
     */
    public Worker(int index, int threads, Histogram latency) {
        this(index, threads, latency, false, 0);
    }

    /**
     * @param nodeAware          whether to track nodes (a multi-node topology): the node asked on, foreign
     *                           acquisitions and migrations
     * @param migrationPenaltyNs NUMA cost model: spin this long each time the thread is seen on another node than
     *                           the last time (before each acquisition and inside each critical section)
     */
    public Worker(int index, int threads, Histogram latency, boolean nodeAware, long migrationPenaltyNs) {
        this.index = index;
        this.threads = threads;
        this.latency = latency;
        this.nodeAware = nodeAware;
        this.migrationPenaltyNs = migrationPenaltyNs;
    }

    public int index() {
        return index;
    }

    public int threads() {
        return threads;
    }

    /** This worker's share of {@code total} items: they are split as evenly as possible. */
    public long share(long total) {
        return shareOf(total, index, threads);
    }

    /** Worker {@code index}'s share of {@code total} items among {@code threads} ({@link #share}), for a round's check. */
    public static long shareOf(long total, int index, int threads) {
        return total / threads + (index < total % threads ? 1 : 0);
    }

    /** The first item of this worker's contiguous share of {@code total} items. */
    public long shareStart(long total) {
        return index * (total / threads) + Math.min(index, total % threads);
    }

    /** Runs {@code section} holding {@code region}'s mutex, measuring the acquisition. */
    public void locked(GuardedRegion region, Runnable section) {
        this.region = region;
        this.section = section;
        acquisitions++;
        if (nodeAware) {
            int node = CurrentCpu.node();
            seenOn(node);
            askedNode = node;
        }
        if (latency != null) {
            acquireStart = System.nanoTime();
        }
        region.mutex.runExclusively(this);
    }

    /**
     * Runs {@code section} holding the lock of {@code key} in {@code scheme}, measuring the acquisition as
     * {@link #locked} does (a keyed scheme has no region: no NUMA bookkeeping).
     */
    public void lockedByKey(io.numaloom.bench.locks.KeyedSchemes.KeyedScheme scheme, String key, Runnable section) {
        this.region = null;
        this.section = section;
        acquisitions++;
        if (latency != null) {
            acquireStart = System.nanoTime();
        }
        scheme.runExclusively(key, this);
    }

    /** Inside the critical section; not for workloads. */
    @Override
    public void run() {
        if (latency != null) {
            latency.recordValue(System.nanoTime() - acquireStart);
        }
        GuardedRegion r = region;
        if (r != null) {
            if (GuardedRegion.TIMED) {
                r.entered(this);
            } else if (GuardedRegion.COUNTED) {
                r.counted(this);
            }
            int node = CurrentCpu.node();
            r.acquired(node);
            if (nodeAware) {
                seenOn(node);
                nodeAcquisitions++;
                if (node != askedNode) {
                    foreignAcquisitions++;
                }
            }
        }
        section.run();
        if (GuardedRegion.TIMED && r != null) {
            r.left();
        }
    }

    /** A look at where this thread runs: a migration if it is another node than last time (charged the penalty). */
    private void seenOn(int node) {
        if (lastNode >= 0 && node != lastNode) {
            migrations++;
            Spin.nanos(migrationPenaltyNs);
        }
        lastNode = node;
    }

    /**
     * Records one latency that the workload measures itself (a queue's put-to-take time, a server's response
     * time) into the point's latency histogram, in nanoseconds; nothing when latency is not recorded. A workload
     * that records its own latencies takes no lock through {@link #locked}, whose acquire latencies would go to
     * the same histogram.
     */
    public void record(long nanos) {
        if (latency != null) {
            latency.recordValue(Math.max(0, nanos));
        }
    }

    /** Counts one completed operation towards this worker's progress. */
    public void completed() {
        PROGRESS.setOpaque(this, progress + 1);
    }

    /** Counts {@code n} completed operations. */
    public void completed(long n) {
        PROGRESS.setOpaque(this, progress + n);
    }

    public long progressOpaque() {
        return (long) PROGRESS.getOpaque(this);
    }

    public long acquisitions() {
        return acquisitions;
    }

    public long nodeAcquisitions() {
        return nodeAcquisitions;
    }

    public long foreignAcquisitions() {
        return foreignAcquisitions;
    }

    public long migrations() {
        return migrations;
    }

    public Histogram latency() {
        return latency;
    }
}
