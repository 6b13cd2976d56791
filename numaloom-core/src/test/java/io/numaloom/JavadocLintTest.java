package io.numaloom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps the public API's Javadoc clean: runs the JDK's javadoc with {@code -Xdoclint:all} over
 * {@code src/main/java}, as {@code javadoc -Xdoclint:all} from the command line does, and fails on
 * any warning or error, quoting them. It runs the {@code javadoc} of the JDK that runs the tests
 * (the toolchain's JDK 25) as a process, because the test module does not read {@code java.compiler}.
 */
class JavadocLintTest {

    @Test
    void doclintAllPrintsNoWarning(@TempDir Path docs) throws Exception {
        Path javadoc = Path.of(System.getProperty("java.home"), "bin", "javadoc");
        assertTrue(Files.isExecutable(javadoc), "no javadoc at " + javadoc);
        Process p = new ProcessBuilder(javadoc.toString(),
                "-Xdoclint:all", "-Xmaxwarns", "10000", "-quiet",
                "-d", docs.toString(), "-sourcepath", "src/main/java", "-subpackages", "io.numaloom")
                .redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), Charset.defaultCharset());
        int rc = p.waitFor();
        assertEquals(0, rc, log);
        assertFalse(log.contains("warning") || log.contains("error"), log);
    }
}
