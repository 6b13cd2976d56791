package io.numaloom.bench.config;

import io.numaloom.bench.Point;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lock entry with a {@code label} and {@code jvmArgs} of its own ({@link LockEntry}): the same lock measured again
 * under other JVM arguments, named by its label everywhere, its JVMs started with its arguments and instantiating the
 * lock its entry names.
 */
class LockVariantsTest {
    private static final List<String> LOCKS = List.of("VNA", "UNFAIR_REENTRANT", "UNFAIR_REENTRANT_TWIN", "SYNCHRONIZED");

    private static BenchConfig parse(String locks) throws ConfigException {
        return ConfigReader.parse("""
                { "benches": [ { "name": "consumeCpu", "id": "b", "payload": { "threads": [2], "jvmArgs": ["-Xmx1g"],
                  "locks": %s } } ] }
                """.formatted(locks), "v.json", 2, LOCKS);
    }

    private static List<String> problems(String locks) {
        return assertThrows(ConfigException.class, () -> parse(locks)).problems();
    }

    @Test
    void aVariantIsNamedByItsLabelAndRunsItsLockUnderItsOwnArguments() throws ConfigException {
        BenchDefinition b = parse("""
                [ { "name": "UNFAIR_REENTRANT" }, { "name": "VNA" },
                  { "name": "VNA", "label": "VNA-no-poll", "jvmArgs": ["-Dx.poll=off", "-Xss512k"] } ]
                """).benches().getFirst();
        assertEquals(List.of("UNFAIR_REENTRANT", "VNA", "VNA-no-poll"), b.locks());
        assertEquals(new LockEntry("VNA-no-poll", "VNA", List.of("-Dx.poll=off", "-Xss512k")), b.lockEntry("VNA-no-poll"));
        assertEquals(LockEntry.of("VNA"), b.lockEntry("VNA"));
        assertFalse(b.lockEntry("VNA").isVariant());

        List<String> plain = b.measuredJvmArgs("VNA");
        assertEquals(b.measuredJvmArgs(), plain);
        List<String> variant = b.measuredJvmArgs("VNA-no-poll");
        assertEquals(plain.size() + 2, variant.size());
        assertEquals(plain, variant.subList(0, plain.size()), "the bench's arguments first");
        assertEquals(List.of("-Dx.poll=off", "-Xss512k"), variant.subList(plain.size(), variant.size()));
        assertTrue(variant.indexOf("-Xmx1g") < variant.indexOf("-Dx.poll=off"), "after the bench's own jvmArgs: " + variant);

        Point p = new Point(b, "VNA-no-poll", 2);
        assertEquals("b/VNA-no-poll/2", p.key());
        assertEquals("VNA", p.spec("/tmp").lock(), "the measured JVM instantiates the lock the entry names");
        assertEquals("VNA", new Point(b, "VNA", 2).spec("/tmp").lock());
    }

    @Test
    void theFingerprintOfAVariantsPointsFollowsItsArguments() throws ConfigException {
        BenchDefinition off = parse("""
                [ { "name": "VNA" }, { "name": "VNA", "label": "V", "jvmArgs": ["-Dx=off"] } ]
                """).benches().getFirst();
        BenchDefinition on = parse("""
                [ { "name": "VNA" }, { "name": "VNA", "label": "V", "jvmArgs": ["-Dx=on"] } ]
                """).benches().getFirst();
        assertEquals(off.fingerprint(), off.fingerprint("VNA"), "a plain lock's points keep the bench's fingerprint");
        assertEquals(off.fingerprint("VNA"), on.fingerprint("VNA"));
        assertNotEquals(off.fingerprint("V"), off.fingerprint("VNA"));
        assertNotEquals(off.fingerprint("V"), on.fingerprint("V"), "--resume must not reuse a point measured under -Dx=off");
    }

    @Test
    void theEffectiveConfigurationKeepsTheVariantsAndReadsBack() throws ConfigException {
        BenchConfig config = parse("""
                [ { "name": "VNA" }, { "name": "VNA", "label": "V2", "jvmArgs": ["-Dx=1"] },
                  { "name": "SYNCHRONIZED", "label": "SYNC-big-stack" } ]
                """);
        String effective = config.effective().toPrettyString();
        BenchConfig again = ConfigReader.parse(effective, "again.json", 2, LOCKS);
        assertEquals(config.effective(), again.effective());
        assertEquals(config.benches().getFirst().lockEntries(), again.benches().getFirst().lockEntries());
        BenchConfig saved = ConfigReader.parseSaved(effective, "config.json");
        assertEquals(new LockEntry("V2", "VNA", List.of("-Dx=1")), saved.benches().getFirst().lockEntry("V2"));
    }

    @Test
    void theTwinOfAReferenceWithArgumentsRunsUnderTheSameArguments() throws ConfigException {
        BenchDefinition b = parse("""
                [ { "name": "UNFAIR_REENTRANT", "jvmArgs": ["-Dagent=off"] },
                  { "name": "UNFAIR_REENTRANT", "label": "UR-agent", "jvmArgs": ["-Dagent=on"] } ]
                """).withReferenceTwin().benches().getFirst();
        assertEquals(List.of("UNFAIR_REENTRANT", "UR-agent", "UNFAIR_REENTRANT_TWIN"), b.locks());
        assertEquals(List.of("-Dagent=off"), b.lockEntry("UNFAIR_REENTRANT_TWIN").jvmArgs());

        BenchDefinition onlyVariant = parse("""
                [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT", "label": "UR-agent", "jvmArgs": ["-Dagent=on"] } ]
                """).withReferenceTwin().benches().getFirst();
        assertEquals(List.of("VNA", "UR-agent"), onlyVariant.locks(), "a variant of the reference is not the reference");
    }

    @Test
    void aKeyedBenchGetsTheTwinOfItsOwnReference() throws ConfigException {
        BenchDefinition b = ConfigReader.parse("""
                { "benches": [ { "name": "keyed", "id": "k", "payload": { "threads": [2],
                  "locks": [ { "name": "KEYED_LOCK" }, { "name": "CHM_REENTRANT", "jvmArgs": ["-Dx=1"] } ] } } ] }
                """, "keyed.json", 2, ConfigReader.lockNames()).withReferenceTwin().benches().getFirst();
        assertEquals(List.of("KEYED_LOCK", "CHM_REENTRANT", "CHM_REENTRANT_TWIN"), b.locks());
        assertEquals(new LockEntry("CHM_REENTRANT_TWIN", "CHM_REENTRANT", List.of("-Dx=1")), b.lockEntry("CHM_REENTRANT_TWIN"),
                "the map measured again under its own arguments, named as the twin");
        assertTrue(io.numaloom.bench.report.Summary.isTwin("CHM_REENTRANT_TWIN"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            [ { "name": "VNA" }, { "name": "VNA" } ]                                  | benches[0].payload.locks[1].name: lock 'VNA' is listed twice; to measure it again under other JVM arguments, give the second a "label"
            [ { "name": "VNA", "label": "A" }, { "name": "SYNCHRONIZED", "label": "A" } ] | benches[0].payload.locks[1].label: lock 'A' is listed twice
            [ { "name": "VNA", "label": "SYNCHRONIZED" } ]                            | benches[0].payload.locks[0].label: 'SYNCHRONIZED' is the name of another lock; a variant needs a name of its own, e.g. "VNA-variant"
            [ { "name": "VNA", "label": "a/b" } ]                                     | benches[0].payload.locks[0].label: must be 1 to 48 letters, digits or _ . + - (it names files), starting with a letter or digit, got "a/b"
            [ { "name": "VNA", "label": 3 } ]                                         | benches[0].payload.locks[0].label: must be 1 to 48 letters
            [ { "name": "VNA", "jvmArgs": "-Dx=1" } ]                                 | benches[0].payload.locks[0].jvmArgs: must be an array of strings like ["-Dname=value"], got "-Dx=1"
            [ { "name": "VNA", "jvmArgs": ["-Dx=1", " "] } ]                          | benches[0].payload.locks[0].jvmArgs[1]: must be a non-blank string, got " "
            [ { "name": "VNA", "lable": "x" } ]                                       | benches[0].payload.locks[0].lable: unknown field (did you mean 'label'?)
            [ { "name": "VNAX", "label": "x" } ]                                      | benches[0].payload.locks[0].name: unknown lock 'VNAX'
            """)
    void aBadEntryNamesItsPathAndWhatIsWrong(String locks, String expected) {
        List<String> p = problems(locks);
        assertEquals(1, p.size(), p.toString());
        assertTrue(p.getFirst().startsWith(expected.strip()), p.getFirst());
    }
}
