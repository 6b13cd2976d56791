package io.numaloom.stress;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The console line of a jcstress run, from the tail jcstress writes. */
class JcstressRunTest {
    private static final Path LOG = Path.of("/x/jcstress.log");

    @Test
    void aCleanRunIsOneLine() {
        List<String> log = """
                .......... [OK] io.numaloom.stress.mutex.ReentrantLockMutex.InterruptiblyVsTry
                RUN RESULTS:
                  Interesting tests: 23 matching test results.
                  Failed tests: No matches.
                  Error tests: No matches.
                  All remaining tests: 34 matching test results.
                  HTML report generated at /x/report/index.html
                """.lines().toList();
        assertEquals("jcstress: 57 test results, none forbidden (23 with interesting outcomes), 41 s; report /x/report/index.html;"
                + " log /x/jcstress.log", JcstressRun.summary(log, 0, 41, LOG));
    }

    @Test
    void aFailedRunNamesItsFailures() {
        List<String> log = """
                .......... [FAILED] io.numaloom.stress.planted.PlantedMutex.Exclusion
                RUN RESULTS:
                  Interesting tests: No matches.
                  Failed tests: 1 matching test results.
                .......... [FAILED] io.numaloom.stress.planted.PlantedMutex.Exclusion
                  Error tests: No matches.
                  All remaining tests: 3 matching test results.
                """.lines().toList();
        assertEquals("jcstress: exit 1: 1 failed, 0 erred of 4 test results, 9 s; report (none); log /x/jcstress.log"
                + System.lineSeparator() + "  FAILED io.numaloom.stress.planted.PlantedMutex.Exclusion",
                JcstressRun.summary(log, 1, 9, LOG));
    }
}
