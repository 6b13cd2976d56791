package io.numaloom.stress.planted;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * jcstress bites: the shaded jcstress jar, run in a child JVM on the tests of {@link PlantedLock} and
 * {@link PlantedKeyedLock}, must exit non-zero, report the planted bugs as FAILED with their forbidden outcomes
 * observed, and pass the five controls (the same tests on the locks without a bug). The keyed lock's bug, a
 * deflater that ignores a racing locker ({@code DEFLATE_IGNORES_LOCKER}), runs in two tests (lock against
 * deflate-then-lock, tryLock against deflate); each shows it in a few to a few dozen samples per run, so the
 * build asks that at least one of them fails, and that each one that saw a forbidden outcome says FAILED. Runs in
 * the {@code integration-test} phase, after the jar is built; the build passes {@code numaloom.jcstress.jar} and
 * {@code numaloom.jcstress.workdir}.
 *
 * <p>Mode: {@code quick} trimmed to one JVM configuration (C2, no split compilation) and one 500 ms iteration per
 * test, which yields hundreds of thousands of samples per mutual-exclusion test (the check-then-act bug shows up
 * in a few per ten thousand), while the termination test needs jcstress's fixed 30 s wait to declare the waiter
 * stale. {@code -m sanity} is not enough: it checks the test API with a handful of samples and missed the
 * check-then-act bug when tried.
 */
class PlantedBugsJcstressTest {

    private static final String PACKAGE = "io.numaloom.stress.planted.";
    private static final String CONTROL_MUTEX = PACKAGE + "PlantedMutex.CorrectTryVsTry";
    private static final String CONTROL_HANDOFF = PACKAGE + "PlantedHandoff.Correct";
    private static final String BUG_CAS = PACKAGE + "PlantedMutex.SkipsCasTryVsTry";
    private static final String BUG_HANDOFF = PACKAGE + "PlantedHandoff.ForgetsHandoff";
    private static final String CONTROL_KEYED = PACKAGE + "PlantedKeyedMutex.CorrectLockVsLock";
    private static final String CONTROL_KEYED_DEFLATE = PACKAGE + "PlantedKeyedMutex.CorrectLockVsDeflateThenLock";
    private static final String CONTROL_KEYED_TRY_DEFLATE = PACKAGE + "PlantedKeyedMutex.CorrectTryLockVsDeflate";
    private static final List<String> BUGS_KEYED = List.of(
            PACKAGE + "PlantedKeyedMutex.IgnoresLockerLockVsDeflateThenLock",
            PACKAGE + "PlantedKeyedMutex.IgnoresLockerTryLockVsDeflate");

    /** A forbidden mutual-exclusion outcome row: "r1, r2, r3, r4  samples  freq  Forbidden". */
    private static final Pattern FORBIDDEN_ROW =
            Pattern.compile("(?m)^\\s*-?\\d+, -?\\d+, -?\\d+, -?\\d+\\s+([\\d,]+)\\s+\\S+\\s+Forbidden\\b");
    private static final Pattern STALE_ROW = Pattern.compile("(?m)^\\s*STALE\\s+([\\d,]+)\\s+\\S+\\s+Forbidden\\b");

    private static int exitCode;
    private static String output;

    @BeforeAll
    static void runJcstressOnThePlantedLock() throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("numaloom.jcstress.jar", "target/numaloom-jcstress.jar")).toAbsolutePath();
        assertTrue(Files.isRegularFile(jar), jar + " is missing: run this test after `package` (the build does)");
        Path work = Path.of(System.getProperty("numaloom.jcstress.workdir", "target/planted")).toAbsolutePath();
        Files.createDirectories(work);
        Path log = work.resolve("jcstress-planted.log");
        String regex = "^" + Pattern.quote(PACKAGE) + "(PlantedMutex\\.(CorrectTryVsTry|SkipsCasTryVsTry)|PlantedHandoff\\.|PlantedKeyedMutex\\.)";
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-jar", jar.toString(),
                "-v", "-m", "quick", "-sc", "false", "-iters", "1", "-time", "500",
                "-t", regex,
                "-jvmArgs", "-Dnumaloom.topology=" + System.getProperty("numaloom.topology", "nodes=2")
                        + " --enable-native-access=ALL-UNNAMED -XX:-TieredCompilation",
                "-r", work.resolve("report").toString());
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            fail("jcstress on the planted lock did not finish in 10 minutes; output in " + log);
        }
        exitCode = p.exitValue();
        output = Files.readString(log);
        System.out.printf("jcstress on the planted lock: exit %d after %.1f s; output in %s%n",
                exitCode, (System.nanoTime() - start) / 1e9, log);
    }

    @Test
    void theRunFails() {
        assertNotEquals(0, exitCode, "jcstress passed a lock with planted bugs:\n" + output);
    }

    @Test
    void theControlsPass() {
        assertVerdict(CONTROL_MUTEX, "OK");
        assertVerdict(CONTROL_HANDOFF, "OK");
        assertVerdict(CONTROL_KEYED, "OK");
        assertVerdict(CONTROL_KEYED_DEFLATE, "OK");
        assertVerdict(CONTROL_KEYED_TRY_DEFLATE, "OK");
    }

    @Test
    void theCheckThenActAcquisitionIsCaughtWithTwoHolders() {
        assertCaught(BUG_CAS, FORBIDDEN_ROW, "forbidden samples");
    }

    @Test
    void theForgottenHandoffIsCaughtAsAStaleWaiter() {
        assertCaught(BUG_HANDOFF, STALE_ROW, "stale waiter(s)");
    }

    @Test
    void theDeflateThatIgnoresALockerIsCaught() {
        long seen = 0;
        for (String test : BUGS_KEYED) {
            long n = samples(FORBIDDEN_ROW, block(test));
            assertVerdict(test, n > 0 ? "FAILED" : "OK");
            System.out.println(test.substring(test.lastIndexOf('.') + 1) + ": " + n + " forbidden samples");
            seen += n;
        }
        assertTrue(seen > 0, "no forbidden samples in either keyed test:\n" + block(BUGS_KEYED.get(0))
                + block(BUGS_KEYED.get(1)));
    }

    /** {@code test} FAILED, with samples in rows matching {@code row}; prints how many. */
    private static void assertCaught(String test, Pattern row, String what) {
        assertVerdict(test, "FAILED");
        long seen = samples(row, block(test));
        assertTrue(seen > 0, "no " + what + " in:\n" + block(test));
        System.out.println(test.substring(test.lastIndexOf('.') + 1) + ": " + seen + " " + what);
    }

    /** Every verdict jcstress printed for {@code test} (per fork and in the summary) is {@code verdict}. */
    private static void assertVerdict(String test, String verdict) {
        Matcher m = Pattern.compile("(?m)\\[(OK|FAILED|ERROR)\\] " + Pattern.quote(test) + "$").matcher(output);
        int found = 0;
        while (m.find()) {
            found++;
            if (!m.group(1).equals(verdict)) {
                fail(test + ": jcstress said " + m.group(1) + ", expected " + verdict + ":\n" + block(test));
            }
        }
        assertTrue(found > 0, test + " did not run:\n" + output);
    }

    /** The last report block of {@code test}: from its verdict line to the next verdict line. */
    private static String block(String test) {
        int at = output.lastIndexOf("] " + test + "\n");
        if (at < 0) {
            return "(no report for " + test + ")";
        }
        int next = output.indexOf("] io.", at + test.length() + 2);
        return output.substring(at, next < 0 ? output.length() : next);
    }

    private static long samples(Pattern row, String text) {
        Matcher m = row.matcher(text);
        long sum = 0;
        while (m.find()) {
            sum += Long.parseLong(m.group(1).replace(",", ""));
        }
        return sum;
    }
}
