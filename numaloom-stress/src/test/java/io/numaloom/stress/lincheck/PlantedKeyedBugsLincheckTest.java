package io.numaloom.stress.lincheck;

import io.numaloom.stress.planted.PlantedKeyedLock;
import io.numaloom.stress.planted.PlantedKeyedLock.Bug;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lincheck bites for the keyed lock: the scenario and budget that check {@code KeyedLock} ({@link KeyedCounters},
 * {@link LincheckRuns}) report the bugs planted in {@link PlantedKeyedLock}: a deflater that checks the record idle
 * and then deflates it without the two CASes, ignoring a locker that took the record in between; and a thin hold
 * checked and written without the guard, ignoring a binder or another thin holder of the key; and, in the scenario
 * of a thread that locks a second key while it holds a first ({@link KeyPairCounters}), an inflater that reads the
 * hash it binds the record under from the thin-hold node it has just freed. They pass on the same lock without the
 * bugs. These tests pass only when Lincheck fails on the broken lock.
 */
class PlantedKeyedBugsLincheckTest {

    public static class Correct extends KeyedCounters {
        public Correct() {
            super(new PlantedKeyedLock<>(Bug.NONE));
        }
    }

    public static class DeflateIgnoresLocker extends KeyedCounters {
        public DeflateIgnoresLocker() {
            super(new PlantedKeyedLock<>(Bug.DEFLATE_IGNORES_LOCKER));
        }
    }

    public static class CorrectThin extends KeyedCounters {
        public CorrectThin() {
            super(new PlantedKeyedLock<>(Bug.NONE, true));
        }
    }

    public static class ThinIgnoresBinder extends KeyedCounters {
        public ThinIgnoresBinder() {
            super(new PlantedKeyedLock<>(Bug.THIN_IGNORES_BINDER, true));
        }
    }

    public static class CorrectTwoBuckets extends KeyPairCounters {
        public CorrectTwoBuckets() {
            super(new PlantedKeyedLock<>(Bug.NONE, true, 2));
        }
    }

    public static class InflateReadsFreedNode extends KeyPairCounters {
        public InflateReadsFreedNode() {
            super(new PlantedKeyedLock<>(Bug.INFLATE_READS_FREED_NODE, true, 2));
        }
    }

    /** The control: without a bug, the planted keyed lock passes, so the failure below is the bug's doing. */
    @Test
    void correctKeyedLockPasses() {
        LincheckRuns.keyedOptions().check(Correct.class);
    }

    /** The control of thin holds: the model with thin holds and no bug passes. */
    @Test
    void correctKeyedLockWithThinHoldsPasses() {
        LincheckRuns.keyedOptions().check(CorrectThin.class);
    }

    /** The control of a thread holding two keys: the model with thin holds, two buckets and no bug passes. */
    @Test
    void correctKeyedLockHoldingTwoKeysPasses() {
        LincheckRuns.keyPairOptions().check(CorrectTwoBuckets.class);
    }

    /**
     * An inflater that frees the holder's thin-hold node and then reads its hash: the holder, which holds key 0,
     * takes a thin hold of key 1 with the freed node in between, and key 0's record is bound under key 1's hash,
     * where no lookup finds it: the holder's hold count of key 0 drops to 0 (or its unlock throws), and the
     * record stays held. Lincheck finds the interleaving.
     */
    @Test
    void inflateThatReadsTheFreedNodeIsCaught() {
        assertCaughtWithABrokenKey("INFLATE_READS_FREED_NODE", InflateReadsFreedNode.class, LincheckRuns.keyPairOptions());
    }

    /**
     * A thin hold checked and then written without the guard: two lockers of a key that has no record both see the
     * slot free and both hold the key. Lincheck finds the interleaving.
     */
    @Test
    void thinHoldThatIgnoresABinderIsCaught() {
        assertCaughtWithABrokenKey("THIN_IGNORES_BINDER", ThinIgnoresBinder.class);
    }

    /**
     * A deflation that overwrites a fast locker's CAS (or a pin) unlinks a record in use: its holder no longer finds
     * its hold, or the next locker of the key binds a record again and gets in too. Lincheck finds the interleaving.
     */
    @Test
    void deflateThatIgnoresALockerIsCaught() {
        assertCaughtWithABrokenKey("DEFLATE_IGNORES_LOCKER", DeflateIgnoresLocker.class);
    }

    /** Lincheck fails on {@code model}, and its report names a broken key (not some other failure). */
    private static void assertCaughtWithABrokenKey(String bug, Class<?> model) {
        assertCaughtWithABrokenKey(bug, model, LincheckRuns.keyedOptions());
    }

    /** Lincheck with {@code options} fails on {@code model}, and its report names a broken key. */
    private static void assertCaughtWithABrokenKey(String bug, Class<?> model, ModelCheckingOptions options) {
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class, () -> options.check(model));
        String report = e.getMessage();
        System.out.println("Lincheck on " + bug + ":\n" + report);
        assertTrue(report.contains("two threads in the critical section")
                        || report.contains("inside the critical section of key")
                        || report.contains("does not hold key")
                        || report.contains("left in use")
                        || report.contains("left locked")
                        || report.contains("Invalid execution results"),
                "Lincheck failed, but not with a broken key:\n" + report);
    }
}
