package io.numaloom.bench;

import io.numaloom.topology.CurrentCpu;

/** Padding before the fields, so that two regions allocated together never share a cache line. */
abstract class GuardedRegionPadBefore {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The data a region's mutex protects, besides the workload's own. */
abstract class GuardedRegionFields extends GuardedRegionPadBefore {
    /** Node of the last holder, -1 before the first acquisition. Guarded by the region's mutex. */
    int lastNode = -1;
    /** Acquisitions seen inside the critical section. Guarded by the region's mutex. */
    long acquisitions;
    /** Handoffs (consecutive acquisitions) that stayed on one node. Guarded by the region's mutex. */
    long localHandoffs;
    /**
     * With {@link GuardedRegion#COUNTED}: the last holder; with {@link GuardedRegion#TIMED}, also when its section's
     * work ended (nanoTime, 0 before).
     */
    Object lastHolder;
    long sectionEnd;
    /**
     * With {@link GuardedRegion#COUNTED}: the gaps between sections (see {@link SectionGaps}), timed with
     * {@link GuardedRegion#TIMED}. Guarded by the mutex.
     */
    long gaps;
    long gapNs;
    long ownerChanges;
    long handoffGapNs;
}

/** Padding after the fields (class-hierarchy padding: the JVM does not reorder fields across classes). */
abstract class GuardedRegionPadAfter extends GuardedRegionFields {
    long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
}

/**
 * One lock instance and the shared data it protects, with the NUMA bookkeeping every workload gets.
 *
 * <h2>NUMA cost model</h2>
 * Inside the critical section {@link #acquired(int)} is told, from {@link CurrentCpu#node()}, where the new holder runs
 * (a virtual topology such as {@code -Dnumaloom.topology=nodes=2} applies) and compares it with the previous
 * holder's node. A <em>handoff</em> is any two consecutive acquisitions; it is <em>local</em> when both ran
 * on one node. A remote handoff costs {@code remotePenaltyNs} of spinning before the workload's section runs,
 * modelling the transfer of the protected data's cache lines from another node. So a lock that keeps the
 * lock on one node (VNA) gains on a one-node machine what it would gain on a NUMA server, and the fraction of
 * local handoffs is recorded whether or not the penalty is on.
 *
 * <h2>Mutual-exclusion check</h2>
 * {@link #acquisitions} is a plain counter incremented under the mutex; the workers count their own
 * acquisitions too. If the mutex ever lets two holders in, increments get lost and the totals disagree,
 * which {@link io.numaloom.bench.run.Execution} reports as a failed point.
 *
 * <p>Thread-safety: the fields are guarded by {@link #mutex}; the getters are read after all workers were
 * joined.
 */
public final class GuardedRegion extends GuardedRegionPadAfter {
    /**
     * The system property that makes holders time the gaps between critical sections ({@link SectionGaps}): set on
     * the measured JVMs by the bench's {@code handoffTiming} setting. Off, the two {@code nanoTime} calls per
     * acquisition are compiled away.
     */
    public static final String TIMING_PROPERTY = "numaloom.bench.handoffTiming";
    static final boolean TIMED = Boolean.getBoolean(TIMING_PROPERTY);
    /**
     * The system property that makes holders count the owner changes without reading the clock
     * ({@link SectionGaps#counted}): set on the measured JVMs by the bench's {@code ownerChanges} setting. It costs a
     * section a comparison of two references, and a store where the holder changed, on a line the section writes
     * anyway; off, it is compiled away.
     */
    public static final String COUNT_PROPERTY = "numaloom.bench.ownerChanges";
    /** Whether holders count the gaps and owner changes, with or without timing them. */
    static final boolean COUNTED = TIMED || Boolean.getBoolean(COUNT_PROPERTY);

    final Mutex mutex;
    private final long remotePenaltyNs;

    public GuardedRegion(Mutex mutex, long remotePenaltyNs) {
        this.mutex = mutex;
        this.remotePenaltyNs = remotePenaltyNs;
    }

    /** Bookkeeping of one acquisition on {@code node}; called by the holder inside the critical section. */
    void acquired(int node) {
        if (acquisitions++ > 0) {
            if (node == lastNode) {
                localHandoffs++;
            } else {
                Spin.nanos(remotePenaltyNs);
            }
        }
        lastNode = node;
    }

    /** With {@link #TIMED}: {@code holder} has just acquired; measures the gap since the last section ended. */
    void entered(Object holder) {
        long now = System.nanoTime();
        if (sectionEnd != 0) {
            long gap = now - sectionEnd;
            gaps++;
            gapNs += gap;
            if (holder != lastHolder) {
                ownerChanges++;
                handoffGapNs += gap;
            }
        }
        lastHolder = holder;
    }

    /** Without {@link #TIMED} but {@link #COUNTED}: {@code holder} has just acquired; counts the gap, not its time. */
    void counted(Object holder) {
        if (lastHolder != null) {
            gaps++;
            if (holder != lastHolder) {
                ownerChanges++;
                lastHolder = holder;
            }
        } else {
            lastHolder = holder;
        }
    }

    /** With {@link #TIMED}: the holder's section is done; called before it releases. */
    void left() {
        sectionEnd = System.nanoTime();
    }

    /** Whether holders time the gaps between sections in this JVM ({@link #TIMING_PROPERTY}). */
    public static boolean timed() {
        return TIMED;
    }

    /** Whether holders count the owner changes in this JVM, timed or not ({@link #COUNT_PROPERTY}). */
    public static boolean counted() {
        return COUNTED;
    }

    /** The gaps between this region's sections, {@link SectionGaps#NONE} unless {@link #COUNTED}. */
    public SectionGaps sectionGaps() {
        return TIMED ? new SectionGaps(gaps, gapNs, ownerChanges, handoffGapNs) : SectionGaps.counted(gaps, ownerChanges);
    }

    public Mutex mutex() {
        return mutex;
    }

    /** Acquisitions counted inside the critical section. */
    public long acquisitions() {
        return acquisitions;
    }

    /** Consecutive acquisitions: one less than the acquisitions, never negative. */
    public long handoffs() {
        return Math.max(0, acquisitions - 1);
    }

    /** Handoffs whose two holders ran on one node. */
    public long localHandoffs() {
        return localHandoffs;
    }
}
