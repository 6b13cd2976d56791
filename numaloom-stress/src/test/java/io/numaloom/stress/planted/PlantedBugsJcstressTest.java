package io.numaloom.stress.planted;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * jcstress bites: the shaded jcstress jar, run in a child JVM on the tests of {@link PlantedLock} and
 * {@link PlantedKeyedLock}, must exit non-zero, report the planted bugs as FAILED with their forbidden outcomes
 * observed, and pass the seven controls (the same tests on the locks without a bug). The keyed lock's bug, a
 * deflater that ignores a racing locker ({@code DEFLATE_IGNORES_LOCKER}), runs in two tests (lock against
 * deflate-then-lock, tryLock against deflate); each shows it in a few to a few dozen samples per run, so the
 * build asks that at least one of them fails, and that each one that saw a forbidden outcome says FAILED. An
 * inflater that reads the thin-hold node it freed ({@code INFLATE_READS_FREED_NODE}) shows in a few dozen samples
 * of a thin holder that locks another key ({@code InflateReadsFreedNodeThinHolderLocksAnotherKey}), its window
 * widened by a few microseconds ({@code PlantedKeyedMutex.FREED_NODE_SPINS}): unwidened, five runs on a machine
 * whose CPUs were busy with other work saw none. Runs in
 * the {@code integration-test} phase, after the jar is built; the build passes {@code numaloom.jcstress.jar} and
 * {@code numaloom.jcstress.workdir}.
 *
 * <p>Mode: {@code quick} trimmed to one JVM configuration (C2, no split compilation) and one 500 ms iteration per
 * test, which yields hundreds of thousands of samples per mutual-exclusion test (the check-then-act bug shows up
 * in a few per ten thousand), while the termination test needs jcstress's fixed 30 s wait to declare the waiter
 * stale. {@code -m sanity} is not enough: it checks the test API with a handful of samples and missed the
 * check-then-act bug when tried.
 *
 * <p>The first run is two jcstress processes side by side: the handoff's two tests in one, the rest in the other.
 * The forgotten handoff leaves its waiter parked for jcstress's 30 s, with the CPUs idle, so the other tests run
 * meanwhile instead of after it.
 *
 * <p>A bug shows only when its actors run at the same moment, which a machine busy with other work may allow
 * for a small part of the 500 ms. So a bug the first run did not catch is run again, alone, with twice the time,
 * up to {@value #RERUNS} times (8 s); the test fails only if no run caught it. The controls run in the first run.
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
    private static final String CONTROL_KEYED_THIN = PACKAGE + "PlantedKeyedMutex.CorrectThinLockVsLock";
    private static final List<String> BUGS_KEYED = List.of(
            PACKAGE + "PlantedKeyedMutex.IgnoresLockerLockVsDeflateThenLock",
            PACKAGE + "PlantedKeyedMutex.IgnoresLockerTryLockVsDeflate");
    private static final String BUG_KEYED_THIN = PACKAGE + "PlantedKeyedMutex.ThinIgnoresBinderLockVsLock";
    private static final String CONTROL_KEYED_HOLDER = PACKAGE + "PlantedKeyedMutex.CorrectThinHolderLocksAnotherKey";
    private static final String BUG_KEYED_INFLATE = PACKAGE + "PlantedKeyedMutex.InflateReadsFreedNodeThinHolderLocksAnotherKey";

    /** A forbidden mutual-exclusion outcome row: "r1, r2, r3, r4  samples  freq  Forbidden". */
    private static final Pattern FORBIDDEN_ROW =
            Pattern.compile("(?m)^\\s*-?\\d+, -?\\d+, -?\\d+, -?\\d+\\s+([\\d,]+)\\s+\\S+\\s+Forbidden\\b");
    private static final Pattern STALE_ROW = Pattern.compile("(?m)^\\s*STALE\\s+([\\d,]+)\\s+\\S+\\s+Forbidden\\b");

    /** The bugs, each with the report rows that show it caught, and what those rows count. */
    private static final Map<String, Pattern> BUG_ROWS = Map.of(BUG_CAS, FORBIDDEN_ROW, BUG_HANDOFF, STALE_ROW,
            BUGS_KEYED.get(0), FORBIDDEN_ROW, BUGS_KEYED.get(1), FORBIDDEN_ROW, BUG_KEYED_THIN, FORBIDDEN_ROW,
            BUG_KEYED_INFLATE, FORBIDDEN_ROW);
    /** The {@code -time} of the first run, in ms; each rerun doubles it. */
    private static final int FIRST_TIME_MS = 500;
    /** Runs, after the first, of the bugs that no run caught yet. */
    private static final int RERUNS = 4;

    /** One jcstress run: its {@code -time}, exit code and output. */
    record Run(int timeMs, int exitCode, String output) {}

    private static final List<Run> RUNS = new ArrayList<>();
    /** How many of {@link #RUNS} make the first run (its processes side by side); the controls are in them. */
    private static int firstRuns;

    @BeforeAll
    static void runJcstressOnThePlantedLock() throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("numaloom.jcstress.jar", "target/numaloom-jcstress.jar")).toAbsolutePath();
        assertTrue(Files.isRegularFile(jar), jar + " is missing: run this test after `package` (the build does)");
        Path work = Path.of(System.getProperty("numaloom.jcstress.workdir", "target/planted")).toAbsolutePath();
        Files.createDirectories(work);
        String quoted = Pattern.quote(PACKAGE);
        Started handoff = Started.jcstress(jar, work, "^" + quoted + "PlantedHandoff\\.", FIRST_TIME_MS, "-handoff");
        Started others = Started.jcstress(jar, work, "^" + quoted
                + "(PlantedMutex\\.(CorrectTryVsTry|SkipsCasTryVsTry)|PlantedKeyedMutex\\.)", FIRST_TIME_MS, "");
        try {
            RUNS.add(others.await());
            RUNS.add(handoff.await());
        } finally { // neither run outlives the class, even when the other one failed it
            others.process().destroyForcibly();
            handoff.process().destroyForcibly();
        }
        firstRuns = RUNS.size();
        for (int rerun = 1, time = 2 * FIRST_TIME_MS; rerun <= RERUNS; rerun++, time *= 2) {
            List<String> missed = BUG_ROWS.keySet().stream().filter(bug -> !caught(bug)).sorted().toList();
            if (missed.isEmpty()) {
                break;
            }
            System.out.println("jcstress on the planted lock has not caught " + missed + " yet; running "
                    + (missed.size() == 1 ? "it" : "them") + " again for " + time + " ms");
            RUNS.add(Started.jcstress(jar, work, "^(" + missed.stream().map(Pattern::quote).collect(Collectors.joining("|"))
                    + ")$", time, "-rerun-" + rerun).await());
        }
    }

    /** A jcstress run in a child JVM, started and not yet waited for. */
    private record Started(Process process, Path log, int timeMs, long startNanos) {

        /** Starts jcstress on the tests matching {@code regex}; its log and report names end in {@code suffix}. */
        static Started jcstress(Path jar, Path work, String regex, int timeMs, String suffix) throws IOException {
            Path log = work.resolve("jcstress-planted" + suffix + ".log");
            List<String> command = List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED",
                    "-jar", jar.toString(),
                    "-v", "-m", "quick", "-sc", "false", "-iters", "1", "-time", Integer.toString(timeMs),
                    "-t", regex,
                    "-jvmArgs", "-Dnumaloom.topology=" + System.getProperty("numaloom.topology", "nodes=2")
                            + " --enable-native-access=ALL-UNNAMED -XX:-TieredCompilation",
                    "-r", work.resolve("report" + suffix).toString());
            long start = System.nanoTime();
            Process p = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            return new Started(p, log, timeMs, start);
        }

        /** Waits for the run (at most 10 minutes, then fails the class) and reads its output. */
        Run await() throws IOException, InterruptedException {
            if (!process.waitFor(10, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                fail("jcstress on the planted lock did not finish in 10 minutes; output in " + log);
            }
            String output = Files.readString(log);
            System.out.printf("jcstress on the planted lock (%d ms per test): exit %d after %.1f s; output in %s%n",
                    timeMs, process.exitValue(), (System.nanoTime() - startNanos) / 1e9, log);
            return new Run(timeMs, process.exitValue(), output);
        }
    }

    /** Whether some run reported {@code bug} FAILED, with samples in the rows that show it. */
    private static boolean caught(String bug) {
        return RUNS.stream().anyMatch(r -> verdicts(r.output(), bug).equals(Set.of("FAILED"))
                && samples(BUG_ROWS.get(bug), block(r.output(), bug)) > 0);
    }

    @Test
    void theRunFails() {
        for (Run r : RUNS) {
            if (r.output().contains("[FAILED]")) {
                assertNotEquals(0, r.exitCode(), "jcstress reported a failure but exited 0:\n" + r.output());
            }
        }
        assertTrue(RUNS.stream().anyMatch(r -> r.exitCode() != 0), "jcstress passed a lock with planted bugs:\n"
                + RUNS.getLast().output());
    }

    @Test
    void theControlsPass() {
        assertVerdict(CONTROL_MUTEX, "OK");
        assertVerdict(CONTROL_HANDOFF, "OK");
        assertVerdict(CONTROL_KEYED, "OK");
        assertVerdict(CONTROL_KEYED_DEFLATE, "OK");
        assertVerdict(CONTROL_KEYED_TRY_DEFLATE, "OK");
        assertVerdict(CONTROL_KEYED_THIN, "OK");
        assertVerdict(CONTROL_KEYED_HOLDER, "OK");
    }

    @Test
    void theCheckThenActAcquisitionIsCaughtWithTwoHolders() {
        assertCaught(BUG_CAS, "forbidden samples");
    }

    @Test
    void theForgottenHandoffIsCaughtAsAStaleWaiter() {
        assertCaught(BUG_HANDOFF, "stale waiter(s)");
    }

    @Test
    void theDeflateThatIgnoresALockerIsCaught() {
        for (String bug : BUGS_KEYED) {
            assertCaught(bug, "forbidden samples");
        }
    }

    @Test
    void theThinHoldThatIgnoresABinderIsCaught() {
        assertCaught(BUG_KEYED_THIN, "forbidden samples");
    }

    @Test
    void theInflateThatReadsTheFreedNodeIsCaught() {
        assertCaught(BUG_KEYED_INFLATE, "forbidden samples");
    }

    /**
     * {@code bug} FAILED, with samples in the rows that show it, in the last run that ran it; a run before it
     * may have missed it (OK), but no run may have erred on it. Prints how many samples.
     */
    private static void assertCaught(String bug, String what) {
        List<Run> ran = RUNS.stream().filter(r -> !verdicts(r.output(), bug).isEmpty()).toList();
        assertFalse(ran.isEmpty(), bug + " did not run:\n" + RUNS.getFirst().output());
        for (Run r : ran) {
            assertTrue(Set.of("OK", "FAILED").containsAll(verdicts(r.output(), bug)),
                    bug + ": jcstress said " + verdicts(r.output(), bug) + ":\n" + block(r.output(), bug));
        }
        Run last = ran.getLast();
        assertEquals(Set.of("FAILED"), verdicts(last.output(), bug), bug + " was not caught in " + ran.size()
                + " run(s), the last of " + last.timeMs() + " ms:\n" + block(last.output(), bug));
        long seen = samples(BUG_ROWS.get(bug), block(last.output(), bug));
        assertTrue(seen > 0, "no " + what + " in:\n" + block(last.output(), bug));
        System.out.println(bug.substring(bug.lastIndexOf('.') + 1) + ": " + seen + " " + what + " (run of "
                + last.timeMs() + " ms)");
    }

    /**
     * Every verdict jcstress printed for {@code test} in the first run (per fork and in the summary) is
     * {@code verdict}.
     */
    private static void assertVerdict(String test, String verdict) {
        String output = RUNS.subList(0, firstRuns).stream().map(Run::output)
                .filter(o -> !verdicts(o, test).isEmpty()).findFirst().orElse(RUNS.getFirst().output());
        Set<String> verdicts = verdicts(output, test);
        assertFalse(verdicts.isEmpty(), test + " did not run:\n" + output);
        assertEquals(Set.of(verdict), verdicts, test + ": jcstress said " + verdicts + ", expected " + verdict + ":\n"
                + block(output, test));
    }

    /** The verdicts jcstress printed for {@code test} in {@code output}. */
    private static Set<String> verdicts(String output, String test) {
        Matcher m = Pattern.compile("(?m)\\[(OK|FAILED|ERROR)\\] " + Pattern.quote(test) + "$").matcher(output);
        Set<String> verdicts = new HashSet<>();
        while (m.find()) {
            verdicts.add(m.group(1));
        }
        return verdicts;
    }

    /** The last report block of {@code test}: from its verdict line to the next verdict line. */
    private static String block(String output, String test) {
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
