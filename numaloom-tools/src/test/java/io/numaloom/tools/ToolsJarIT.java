package io.numaloom.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The jar as a user runs it, after {@code package}: {@code java -jar numaloom-tools-VERSION.jar}
 * with nothing else, on a recording of {@link ContendedApp}. The jar holds only this module's
 * classes and names no class path, so nothing but the JDK can be on the JVM's class path.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ToolsJarIT {

    /** The jar: {@code -Dnumaloom.tools.jar} (set by the pom's {@code jar} execution), else the one in {@code target/}. */
    static Path jar() throws IOException {
        String path = System.getProperty("numaloom.tools.jar");
        Path jar = null;
        if (path != null) {
            jar = Path.of(path);
        } else if (Files.isDirectory(Path.of("target"))) {
            try (var jars = Files.list(Path.of("target"))) {
                jar = jars.filter(p -> p.getFileName().toString().matches("numaloom-tools-[^-]+(-SNAPSHOT)?\\.jar"))
                        .findFirst().orElse(null);
            }
        }
        assertTrue(jar != null && Files.isRegularFile(jar), "no tools jar at " + jar + " (run after package)");
        return jar.toAbsolutePath();
    }

    @Test
    void theJarHoldsOnlyTheToolsAndAMainClass() throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            List<String> foreign = new ArrayList<>();
            for (JarEntry e : java.util.Collections.list(jar.entries())) {
                if (!e.getName().startsWith("META-INF/") && !e.getName().startsWith("io/numaloom/tools/")
                        && !e.getName().equals("io/") && !e.getName().equals("io/numaloom/")) {
                    foreign.add(e.getName());
                }
            }
            assertEquals(List.of(), foreign, "entries of anything but the tools");
            assertNotNull(jar.getEntry("io/numaloom/tools/Main.class"));
            Attributes manifest = jar.getManifest().getMainAttributes();
            assertEquals(Main.class.getName(), manifest.getValue(Attributes.Name.MAIN_CLASS));
            assertNull(manifest.getValue(Attributes.Name.CLASS_PATH), "no dependency");
        }
    }

    @Test
    void javaDashJarSummarizesARecordingOfAnApplication(@TempDir Path dir) throws Exception {
        Path recording = ContendedApp.record(dir.resolve("app.jfr"));
        Process p = run(dir, "contention", recording.toString(), "--out", dir.resolve("report").toString());
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "exited");
        assertEquals(0, p.exitValue(), out);
        String app = ContendedApp.class.getName() + ".";
        for (String site : new String[] {"takeOrder", "payAccount", "postToLedger", "countStock", "awaitShipped", "awaitBalanced"}) {
            assertTrue(out.contains(app + site + ":"), site + " in:\n" + out);
        }
        assertTrue(out.contains("keys of accounts waited for longest: " + ContendedApp.ACCOUNT_KEY + " "), out);
        assertTrue(Files.readString(dir.resolve("report").resolve(ContentionReport.PAGE)).contains("<h2>Condition waits</h2>"));

        Process version = run(dir, "--version");
        String v = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(version.waitFor(60, TimeUnit.SECONDS));
        assertTrue(v.startsWith("numaloom-tools ") && !v.contains("VERSION"), "the version from the manifest: " + v);
        Process help = run(dir, "contention", "--help");
        String h = new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(help.waitFor(60, TimeUnit.SECONDS));
        assertTrue(h.contains("Usage: java -jar " + jar().getFileName() + " contention FILE.jfr"), h);
    }

    /**
     * The jar runs on the Java users have on PATH, not only on 25: its classes are Java 17's (class-file version 61),
     * and where a Java 17 is installed (this project's machines have one on PATH) it summarizes a recording.
     */
    @Test
    void theJarRunsOnJava17(@TempDir Path dir) throws Exception {
        try (JarFile jar = new JarFile(jar().toFile())) {
            for (JarEntry e : java.util.Collections.list(jar.entries())) {
                if (e.getName().endsWith(".class")) {
                    try (var in = new java.io.DataInputStream(jar.getInputStream(e))) {
                        in.readInt(); // magic
                        in.readUnsignedShort(); // minor
                        assertEquals(61, in.readUnsignedShort(), e.getName() + ": not a Java 17 class file");
                    }
                }
            }
        }
        Path java17 = java17();
        if (java17 == null) {
            System.out.println("ToolsJarIT: no Java 17 found under /usr/lib/jvm or on PATH; only the class-file versions were checked");
            return;
        }
        Path recording = ContendedApp.record(dir.resolve("app.jfr"));
        Process p = run(java17, dir, "contention", recording.toString());
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "exited");
        assertEquals(0, p.exitValue(), java17 + ":\n" + out);
        assertTrue(out.contains(ContendedApp.class.getName() + ".takeOrder:"), out);
    }

    /** A Java 17 {@code java}: the JDK's standard place on Debian, else {@code java} on PATH if it is 17; or null. */
    private static Path java17() throws IOException, InterruptedException {
        for (String candidate : List.of("/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "/usr/lib/jvm/java-17-openjdk-arm64/bin/java")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return Path.of(candidate);
            }
        }
        try {
            Process v = new ProcessBuilder("java", "-version").redirectErrorStream(true).start();
            String text = new String(v.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return v.waitFor(30, TimeUnit.SECONDS) && text.contains("version \"17") ? Path.of("java") : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** {@code java -jar} of the jar, on this JVM's JDK, with no CLASSPATH in its environment; stderr into stdout. */
    private static Process run(Path dir, String... args) throws IOException {
        return run(Path.of(System.getProperty("java.home"), "bin", "java"), dir, args);
    }

    private static Process run(Path java, Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(java.toString(), "-jar", jar().toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().remove("CLASSPATH");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        return pb.start();
    }
}
