package io.numaloom.bench;

/**
 * The times between critical sections of one region, measured by the holders when the bench's
 * {@code handoffTiming} setting is on ({@link GuardedRegion#TIMING_PROPERTY}): where a lock's time goes between
 * one holder's release and the next acquisition. A <em>gap</em> runs from the end of one critical section's work to
 * the start of the next one's, both read with {@link System#nanoTime()} inside the sections: it holds the release,
 * the next acquisition (a spin, a park and its wake-up, a scheduler's delay) and the little the harness does around
 * them, the same for every lock. An <em>owner change</em> is a gap after which another thread holds the lock.
 *
 * <p>With the bench's {@code ownerChanges} setting instead ({@link GuardedRegion#COUNT_PROPERTY}) the holders only
 * count the gaps and the owner changes, without reading the clock: {@code timed} is false, and the gaps' means are
 * null.
 *
 * @param gaps         gaps measured (one less than the acquisitions of each region)
 * @param gapNs        their total, ns; 0 unless timed
 * @param ownerChanges of which the lock went to another thread
 * @param handoffGapNs the total of those, ns; 0 unless timed
 * @param timed        whether the gaps were timed (or only counted)
 */
public record SectionGaps(long gaps, long gapNs, long ownerChanges, long handoffGapNs, boolean timed) {

    /** No gap measured. */
    public static final SectionGaps NONE = new SectionGaps(0, 0, 0, 0, false);

    /** Gaps timed with {@link System#nanoTime()}. */
    public SectionGaps(long gaps, long gapNs, long ownerChanges, long handoffGapNs) {
        this(gaps, gapNs, ownerChanges, handoffGapNs, true);
    }

    /** Gaps counted without the clock. */
    public static SectionGaps counted(long gaps, long ownerChanges) {
        return new SectionGaps(gaps, 0, ownerChanges, 0, false);
    }

    /** The sum of both; timed only if every part with gaps was. */
    public SectionGaps plus(SectionGaps other) {
        boolean sumTimed = gaps == 0 ? other.timed : other.gaps == 0 ? timed : timed && other.timed;
        return new SectionGaps(gaps + other.gaps, gapNs + other.gapNs, ownerChanges + other.ownerChanges,
                handoffGapNs + other.handoffGapNs, sumTimed);
    }

    /** Owner changes per gap (per acquisition but the first of each region), or null if none was measured. */
    public Double ownerChangesPerOp() {
        return gaps == 0 ? null : (double) ownerChanges / gaps;
    }

    /** The mean gap, ns, or null if none was measured. */
    public Double meanGapNs() {
        return gaps == 0 || !timed ? null : (double) gapNs / gaps;
    }

    /** The mean gap at an owner change, ns, or null if the lock never changed thread. */
    public Double meanHandoffGapNs() {
        return ownerChanges == 0 || !timed ? null : (double) handoffGapNs / ownerChanges;
    }

    /** The mean gap after which the same thread held the lock again, ns, or null if there was none. */
    public Double meanReacquireGapNs() {
        long n = gaps - ownerChanges;
        return n == 0 || !timed ? null : (double) (gapNs - handoffGapNs) / n;
    }
}
