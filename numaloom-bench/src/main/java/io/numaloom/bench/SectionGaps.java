package io.numaloom.bench;

/**
 * The times between critical sections of one region, measured by the holders when the bench's
 * {@code handoffTiming} setting is on ({@link GuardedRegion#TIMING_PROPERTY}): where a lock's time goes between
 * one holder's release and the next acquisition. A <em>gap</em> runs from the end of one critical section's work to
 * the start of the next one's, both read with {@link System#nanoTime()} inside the sections: it holds the release,
 * the next acquisition (a spin, a park and its wake-up, a scheduler's delay) and the little the harness does around
 * them, the same for every lock. An <em>owner change</em> is a gap after which another thread holds the lock.
 *
 * @param gaps         gaps measured (one less than the acquisitions of each region)
 * @param gapNs        their total, ns
 * @param ownerChanges of which the lock went to another thread
 * @param handoffGapNs the total of those, ns
 */
public record SectionGaps(long gaps, long gapNs, long ownerChanges, long handoffGapNs) {

    /** No gap measured. */
    public static final SectionGaps NONE = new SectionGaps(0, 0, 0, 0);

    /** The sum of both. */
    public SectionGaps plus(SectionGaps other) {
        return new SectionGaps(gaps + other.gaps, gapNs + other.gapNs, ownerChanges + other.ownerChanges,
                handoffGapNs + other.handoffGapNs);
    }

    /** Owner changes per gap (per acquisition but the first of each region), or null if none was measured. */
    public Double ownerChangesPerOp() {
        return gaps == 0 ? null : (double) ownerChanges / gaps;
    }

    /** The mean gap, ns, or null if none was measured. */
    public Double meanGapNs() {
        return gaps == 0 ? null : (double) gapNs / gaps;
    }

    /** The mean gap at an owner change, ns, or null if the lock never changed thread. */
    public Double meanHandoffGapNs() {
        return ownerChanges == 0 ? null : (double) handoffGapNs / ownerChanges;
    }

    /** The mean gap after which the same thread held the lock again, ns, or null if there was none. */
    public Double meanReacquireGapNs() {
        long n = gaps - ownerChanges;
        return n == 0 ? null : (double) (gapNs - handoffGapNs) / n;
    }
}
