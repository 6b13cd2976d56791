package io.numaloom.stress.lincheck;

import io.numaloom.stress.planted.PlantedKeyedLock;
import io.numaloom.stress.planted.PlantedKeyedLock.Bug;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lincheck bites for the keyed lock: the scenario and budget that check {@code KeyedLock} ({@link KeyedCounters},
 * {@link LincheckRuns}) report the bugs planted in {@link PlantedKeyedLock}: a deflater that checks the record idle
 * and then deflates it without the two CASes, ignoring a locker that took the record in between; and a thin hold
 * checked and written without the guard, ignoring a binder or another thin holder of the key. They pass on the same
 * lock without the bugs. These tests pass only when Lincheck fails on the broken lock.
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
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class,
                () -> LincheckRuns.keyedOptions().check(model));
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
