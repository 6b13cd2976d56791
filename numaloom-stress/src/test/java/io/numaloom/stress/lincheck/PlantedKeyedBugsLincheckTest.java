package io.numaloom.stress.lincheck;

import io.numaloom.stress.planted.PlantedKeyedLock;
import io.numaloom.stress.planted.PlantedKeyedLock.Bug;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lincheck bites for the keyed lock: the scenario and budget that check {@code KeyedLock} ({@link KeyedCounters},
 * {@link LincheckRuns}) report the bug planted in {@link PlantedKeyedLock}, an unbind that ignores a racing
 * locker's pin, and pass on the same lock without the bug. These tests pass only when Lincheck fails on the
 * broken lock.
 */
class PlantedKeyedBugsLincheckTest {

    public static class Correct extends KeyedCounters {
        public Correct() {
            super(new PlantedKeyedLock<>(Bug.NONE));
        }
    }

    public static class UnbindIgnoresPins extends KeyedCounters {
        public UnbindIgnoresPins() {
            super(new PlantedKeyedLock<>(Bug.UNBIND_IGNORES_PINS));
        }
    }

    /** The control: without a bug, the planted keyed lock passes, so the failure below is the bug's doing. */
    @Test
    void correctKeyedLockPasses() {
        LincheckRuns.options().check(Correct.class);
    }

    /**
     * An unbind that overwrites a fresh pin unlinks a record in use: its holder no longer finds its hold, or the
     * next locker of the key binds a second record and gets in too. Lincheck finds the interleaving.
     */
    @Test
    void unbindThatIgnoresPinsIsCaught() {
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class,
                () -> LincheckRuns.options().check(UnbindIgnoresPins.class));
        String report = e.getMessage();
        System.out.println("Lincheck on UNBIND_IGNORES_PINS:\n" + report);
        assertTrue(report.contains("two threads in the critical section")
                        || report.contains("inside the critical section of key")
                        || report.contains("does not hold key")
                        || report.contains("left bound")
                        || report.contains("Invalid execution results"),
                "Lincheck failed, but not with a broken key:\n" + report);
    }
}
