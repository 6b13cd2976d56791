package io.numaloom.stress.mutex;

import org.openjdk.jcstress.annotations.Outcome;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The graded outcomes of the mutual-exclusion tests, shared through {@code @JCStressMeta}. An outcome reads
 * "actor 1 wrote, actor 2 wrote, final counter, residue" (see {@link MutexState}). Actor 1 always uses the
 * blocking method of a pair when there is one, so only actor 2, or both, may fail to acquire.
 */
final class Outcomes {
    private Outcomes() {}

    /** Both actors block until they hold the lock: each gets it once, in either order. */
    @Outcome(id = {"1, 2, 2, 0", "2, 1, 2, 0"}, expect = ACCEPTABLE,
            desc = "One after the other; the lock is clean afterwards.")
    @Outcome(expect = FORBIDDEN,
            desc = "Two holders at once, a lost write, a failed blocking acquisition, or a lock left unclean.")
    static final class NeitherFails {}

    /** Actor 2's tryLock may fail, but only while actor 1 holds the lock. */
    @Outcome(id = {"1, 2, 2, 0", "2, 1, 2, 0"}, expect = ACCEPTABLE,
            desc = "One after the other; the lock is clean afterwards.")
    @Outcome(id = "1, 0, 1, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "Actor 2 found the lock held (or timed out) and gave up.")
    @Outcome(expect = FORBIDDEN,
            desc = "Two holders at once, a lost write, a failed blocking acquisition, or a lock left unclean.")
    static final class SecondMayFail {}

    /** Either tryLock may fail while the other actor holds the lock; both failing means nobody held it. */
    @Outcome(id = {"1, 2, 2, 0", "2, 1, 2, 0"}, expect = ACCEPTABLE,
            desc = "One after the other; the lock is clean afterwards.")
    @Outcome(id = {"1, 0, 1, 0", "0, 1, 1, 0"}, expect = ACCEPTABLE_INTERESTING,
            desc = "One found the lock held (or timed out) and gave up.")
    @Outcome(expect = FORBIDDEN,
            desc = "Two holders at once, a lost write, both failing on a free lock, or a lock left unclean.")
    static final class BothMayFail {}
}
