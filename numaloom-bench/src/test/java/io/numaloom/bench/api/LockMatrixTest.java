package io.numaloom.bench.api;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.report.Report;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LockMatrix}: a user's Runnable measured in this JVM through the bench's runner, on a tiny configuration (a
 * few seconds), and the messages of its bad settings.
 */
class LockMatrixTest {

    /** A user's critical section: shared state that only the lock protects. */
    static final class Counter implements Runnable {
        long runs;
        final Map<Long, Long> counts = new HashMap<>();

        @Override
        public void run() {
            counts.merge(runs++ % 16, 1L, Long::sum);
        }
    }

    @Test
    void measuresARunnableAtEveryLockThreadCountAndThreadTypeAndWritesTheReport(@TempDir Path out) throws Exception {
        Counter section = new Counter();
        AtomicLong outside = new AtomicLong();
        List<PointResult> rows = LockMatrix.of(section)
                .locks("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED")
                .threads(1, 3)
                .outside(outside::incrementAndGet)
                .operations(300)
                .warmups(1)
                .rounds(1)
                .run(out);

        assertEquals(12, rows.size(), "3 locks x 2 thread counts x 2 thread types: " + rows);
        Set<String> seen = new HashSet<>();
        for (PointResult r : rows) {
            assertTrue(r.ok(), r.key() + ": " + r.error());
            assertTrue(r.opsPerMs() > 0, r.toString());
            assertTrue(seen.add(r.lock() + "/" + r.threads() + "/" + r.threadType()), "one row per point: " + r.key());
        }
        for (String lock : List.of("VNA", "UNFAIR_REENTRANT", "SYNCHRONIZED")) {
            for (int threads : List.of(1, 3)) {
                for (String type : List.of("virtual", "platform")) {
                    assertTrue(seen.contains(lock + "/" + threads + "/" + type), lock + "/" + threads + "/" + type + " in " + seen);
                }
            }
        }
        // Every round ran every operation, under the lock: a lost update would show as fewer runs.
        long expected = 12L * (1 + 1) * 300;
        assertEquals(expected, section.runs, "12 points x (1 warm-up + 1 measured round) x 300 operations");
        assertEquals(expected, section.counts.values().stream().mapToLong(Long::longValue).sum());
        assertEquals(expected, outside.get(), "the outside work ran once before each acquisition");

        for (String f : List.of("results.csv", "results.json", "config.json", "machine.json", "summary.csv", Report.INDEX,
                "section-virtual.png", "section-platform.svg")) {
            assertTrue(Files.exists(out.resolve(f)) && Files.size(out.resolve(f)) > 0, f + " in " + out);
        }
        assertEquals(12, ResultStore.load(out).size(), "the rows are on disk too");
        String html = Files.readString(out.resolve(Report.INDEX));
        assertTrue(html.contains("section, virtual threads") && html.contains("section, platform threads"), "both benches in the report");
        assertFalse(Files.exists(out.resolve("work")), "the work directory was cleaned up");
    }

    @Test
    void aSectionThatThrowsFailsItsPointWithItsMessage(@TempDir Path out) throws Exception {
        List<PointResult> rows = LockMatrix.of(() -> {
                    throw new IllegalStateException("the user's invariant is broken");
                })
                .locks("VNA").threads(1).virtual().operations(10).warmups(0).rounds(1)
                .run(out);
        assertEquals(1, rows.size());
        assertFalse(rows.getFirst().ok());
        assertTrue(rows.getFirst().error().contains("the user's invariant is broken"), rows.getFirst().error());
    }

    @Test
    void theConfigurationIsOneRunnableBenchPerThreadType() {
        BenchConfig both = LockMatrix.of(() -> {}).config();
        assertEquals(List.of("section-virtual", "section-platform"), both.benches().stream().map(BenchDefinition::id).toList());
        BenchDefinition first = both.benches().getFirst();
        assertEquals("runnable", first.kind().jsonName());
        assertEquals(LockMatrix.DEFAULT_LOCKS, first.locks());
        assertEquals(1, first.threads().getFirst());
        assertTrue(first.threads().size() >= 2, "1 and several threads: " + first.threads());
        assertEquals(LockMatrix.DEFAULT_OPERATIONS, first.settings().getLong("actionsCount"));

        BenchConfig platform = LockMatrix.of(() -> {}).platform().name("mine").threads(8, 1, 8).quick().config();
        assertEquals(List.of("mine-platform"), platform.benches().stream().map(BenchDefinition::id).toList());
        assertEquals(List.of(1, 8), platform.benches().getFirst().threads());
        assertEquals(1, platform.benches().getFirst().forks());
        assertEquals(2, platform.benches().getFirst().measurementIterations(), "--quick's rounds");
        assertEquals(LockMatrix.DEFAULT_OPERATIONS / 10, platform.benches().getFirst().settings().getLong("actionsCount"));
    }

    @Test
    void badSettingsNameWhatIsWrong() {
        LockMatrix m = LockMatrix.of(() -> {});
        assertMessage(IllegalArgumentException.class, () -> m.locks("VNA", "BOGUS"), "locks: unknown lock 'BOGUS'; known: VNA");
        assertMessage(IllegalArgumentException.class, () -> m.threads(1, 0), "threads: a thread count must be >= 1, got 0");
        assertMessage(IllegalArgumentException.class, () -> m.operations(0), "operations: must be >= 1, got 0");
        assertMessage(IllegalArgumentException.class, () -> m.rounds(0), "rounds: must be >= 1, got 0");
        assertMessage(IllegalArgumentException.class, () -> m.name("a b"), "name: letters, digits");
        assertMessage(IllegalStateException.class, () -> m.forks(2), "forks: a Runnable handed to LockMatrix.of is measured in this JVM");
        assertMessage(IllegalArgumentException.class, () -> LockMatrix.of(() -> {}).threads(4).operations(2).config(),
                "actionsCount: must be >= the largest thread count (4)");
        assertMessage(IllegalArgumentException.class, () -> LockMatrix.ofClass("com.acme.Missing", List.of(Path.of("no-such.jar"))),
                "classpath: no such jar file or directory");
        assertMessage(IllegalArgumentException.class, () -> LockMatrix.ofClass("com.acme.Missing", List.of()),
                "className: no class com.acme.Missing in the bench's class path");
        assertMessage(IllegalArgumentException.class, () -> LockMatrix.ofClass(Counter.class.getName(), List.of()),
                "is not public");
    }

    @Test
    void aClassIsMeasuredInFreshJvmsAndTakesNoLambdaOutside() {
        LockMatrix m = LockMatrix.of(PublicSection.class).forks(2);
        BenchDefinition b = m.config().benches().getFirst();
        assertEquals(2, b.forks());
        assertEquals(PublicSection.class.getName(), b.settings().getString("workloadClass"));
        assertTrue(b.settings().getString("classpath").endsWith("test-classes"), b.settings().getString("classpath"));
        assertEquals("LockMatrixTest.PublicSection-virtual", b.id(), "named after the class, nested in its enclosing one");
        assertMessage(IllegalStateException.class, () -> m.outside(() -> {}), "outside: only LockMatrix.of(Runnable)");
        assertEquals("", b.settings().getString("outsideMethod"));

        BenchDefinition prepared = m.outsideMethod("prepare").config().benches().getFirst();
        assertEquals("prepare", prepared.settings().getString("outsideMethod"));
        assertMessage(IllegalArgumentException.class, () -> m.outsideMethod("missing"),
                "outsideMethod: " + PublicSection.class.getName() + " has no public no-argument method missing()");
        assertMessage(IllegalStateException.class, () -> LockMatrix.of(new Counter()).outsideMethod("prepare"),
                "outsideMethod: a Runnable measured in this JVM takes its outside work as outside(Runnable)");
    }

    /** A class the measured JVMs can make. */
    public static final class PublicSection implements Runnable {
        /** Its work outside the lock. */
        public void prepare() {
        }

        @Override
        public void run() {
        }
    }

    private static void assertMessage(Class<? extends Exception> type, org.junit.jupiter.api.function.Executable call, String part) {
        Exception e = assertThrows(type, call);
        assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' should contain '" + part + "'");
    }
}
