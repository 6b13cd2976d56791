package io.numaloom.stress.lincheck;

import io.numaloom.stress.planted.PlantedLock;
import io.numaloom.stress.planted.PlantedLock.Bug;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lincheck bites: the scenario and budget that check {@code VnaLock} ({@link LockedCounter}, {@link LincheckRuns})
 * report each bug planted in {@link PlantedLock}, and pass on the same lock without the bug. These tests pass only
 * when Lincheck fails on the broken locks.
 */
class PlantedBugsLincheckTest {

    public static class Correct extends LockedCounter {
        public Correct() {
            super(new PlantedLock(Bug.NONE));
        }
    }

    public static class FastPathWithoutCas extends LockedCounter {
        public FastPathWithoutCas() {
            super(new PlantedLock(Bug.FAST_PATH_WITHOUT_CAS));
        }
    }

    public static class UnlockForgetsHandoff extends LockedCounter {
        public UnlockForgetsHandoff() {
            super(new PlantedLock(Bug.UNLOCK_FORGETS_HANDOFF));
        }
    }

    /** The control: without a bug, the planted lock passes, so the failures below are the bugs' doing. */
    @Test
    void correctLockPasses() {
        LincheckRuns.options().check(Correct.class);
    }

    /** A check-then-act acquisition lets two threads in: Lincheck finds the interleaving. */
    @Test
    void fastPathWithoutCasIsCaught() {
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class,
                () -> LincheckRuns.options().check(FastPathWithoutCas.class));
        String report = e.getMessage();
        System.out.println("Lincheck on FAST_PATH_WITHOUT_CAS:\n" + report);
        assertTrue(report.contains("two threads in the critical section") || report.contains("Invalid execution results"),
                "Lincheck failed, but not with the broken exclusion:\n" + report);
    }

    /** An unlock that frees the flag but wakes nobody leaves a waiter parked forever: Lincheck reports the hang. */
    @Test
    void unlockThatForgetsTheHandoffIsCaught() {
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class,
                () -> LincheckRuns.options().check(UnlockForgetsHandoff.class));
        String report = e.getMessage();
        System.out.println("Lincheck on UNLOCK_FORGETS_HANDOFF:\n" + report);
        assertTrue(report.toLowerCase().contains("deadlock") || report.toLowerCase().contains("hang")
                        || report.toLowerCase().contains("livelock"),
                "Lincheck failed, but not with a stuck waiter:\n" + report);
    }
}
