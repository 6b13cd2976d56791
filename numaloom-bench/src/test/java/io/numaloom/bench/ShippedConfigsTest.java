package io.numaloom.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.DynamicTest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every configuration shipped in the repository's configs/ folder is valid, and so is its --quick form. */
class ShippedConfigsTest {
    /** Surefire runs in the module directory; configs/ is beside it. */
    static final Path CONFIGS = Path.of("..", "configs");

    static List<Path> shipped() throws IOException {
        try (Stream<Path> files = Files.list(CONFIGS)) {
            return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyShippedConfigIsValid() throws IOException {
        List<Path> files = shipped();
        assertTrue(files.size() >= 8, "configs/ has the seeds' configurations: " + files);
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
            BenchConfig config = ConfigReader.read(f);
            assertFalse(config.activeBenches().isEmpty());
            assertFalse(config.description().isBlank(), f + " says what it reproduces");
            BenchConfig quick = config.quick();
            assertEquals(BenchRunner.points(config).size(), BenchRunner.points(quick).size());
        }));
    }

    @Test
    void theBuiltInDefaultIsTheShippedDefaultAndComparesVnaWithTheJdkLocks() throws Exception {
        assertEquals(Files.readString(CONFIGS.resolve("default.json")), BenchConfig.builtInDefaultText());
        BenchConfig config = BenchConfig.builtInDefault();
        assertEquals(2, config.activeBenches().size());
        for (BenchDefinition b : config.activeBenches()) {
            assertEquals(List.of("VNA", "UNFAIR_REENTRANT", "FAIR_REENTRANT"), b.locks());
            assertEquals("virtual", b.threadType());
        }
    }
}
