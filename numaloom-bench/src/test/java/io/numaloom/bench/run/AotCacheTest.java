package io.numaloom.bench.run;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The measured JVMs' class cache: made once per argument list, used by real JVMs, and never in the way. */
class AotCacheTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static final List<String> ARGS = List.of("-Xmx64m", "-Dnumaloom.test=1");

    @Test
    void aJvmStartsFromTheCacheThatItsTrainingRunMade(@TempDir Path tmp) throws Exception {
        Path jar = helloJar(tmp);
        List<String> notices = new ArrayList<>();
        AotCache cache = new AotCache(tmp.resolve("cache"), JAVA, jar.toString(), notices::add);
        AtomicInteger trainings = new AtomicInteger();
        AotCache.Training training = (recordArgs, log) -> {
            trainings.incrementAndGet();
            assertTrue(recordArgs.contains("-XX:AOTMode=record"), recordArgs.toString());
            assertTrue(recordArgs.contains("-XX:-AOTRecordTraining"), "records no method profiles: " + recordArgs);
            assertEquals(0, run(recordArgs, jar, log), "training run");
        };

        List<String> args = cache.jvmArgs(ARGS, (recordArgs, log) -> {
            assertEquals(ARGS, recordArgs.subList(0, ARGS.size()), "the training JVM starts as the measured ones");
            training.run(recordArgs, log);
        });
        assertEquals(ARGS, args.subList(0, ARGS.size()));
        assertEquals(ARGS.size() + 1, args.size(), args.toString());
        assertTrue(args.getLast().startsWith("-XX:AOTCache=") && Files.size(Path.of(args.getLast().substring(13))) > 0, args.toString());
        assertEquals(List.of(), notices);

        // -XX:AOTMode=on: the JVM refuses to start if it cannot use the cache.
        List<String> strict = new ArrayList<>(args);
        strict.add("-XX:AOTMode=on");
        Path log = tmp.resolve("strict.log");
        assertEquals(0, run(strict, jar, log), Files.readString(log));
        assertTrue(Files.readString(log).contains("hello from the cache"), Files.readString(log));

        assertEquals(args, cache.jvmArgs(ARGS, training), "the same arguments get the same cache");
        assertEquals(1, trainings.get(), "trained once");
        List<String> other = List.of("-Xmx80m");
        assertTrue(cache.jvmArgs(other, training).getLast().startsWith("-XX:AOTCache="));
        assertEquals(2, trainings.get(), "other arguments get their own cache");
    }

    @Test
    void aFailedTrainingLeavesTheArgumentsAloneAndIsToldOnce(@TempDir Path tmp) throws Exception {
        List<String> notices = new ArrayList<>();
        AotCache cache = new AotCache(tmp, JAVA, helloJar(tmp).toString(), notices::add);
        AtomicInteger trainings = new AtomicInteger();
        AotCache.Training failing = (recordArgs, log) -> {
            trainings.incrementAndGet();
            throw new IllegalStateException("the training JVM crashed");
        };
        assertEquals(ARGS, cache.jvmArgs(ARGS, failing));
        assertEquals(ARGS, cache.jvmArgs(ARGS, failing));
        assertEquals(1, trainings.get(), "not tried again");
        assertEquals(1, notices.size(), notices.toString());
        assertTrue(notices.getFirst().contains("without a class cache (the training JVM crashed)"), notices.getFirst());
    }

    @Test
    void aTrainingRunThatRecordsNothingIsAFailure(@TempDir Path tmp) throws Exception {
        List<String> notices = new ArrayList<>();
        AotCache cache = new AotCache(tmp, JAVA, helloJar(tmp).toString(), notices::add);
        assertEquals(ARGS, cache.jvmArgs(ARGS, (recordArgs, log) -> { }));
        assertTrue(notices.getFirst().contains("wrote no") && notices.getFirst().contains(".aotconf"), notices.toString());
    }

    @Test
    void aClassPathWithDirectoriesGetsNoCache(@TempDir Path tmp) throws Exception {
        List<String> notices = new ArrayList<>();
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        String classPath = helloJar(tmp) + java.io.File.pathSeparator + classes;
        AotCache cache = new AotCache(tmp.resolve("cache"), JAVA, classPath, notices::add);
        AotCache.Training never = (recordArgs, log) -> { throw new AssertionError("trained"); };
        assertEquals(ARGS, cache.jvmArgs(ARGS, never));
        assertEquals(ARGS, cache.jvmArgs(ARGS, never));
        assertEquals(1, notices.size(), notices.toString());
        assertTrue(notices.getFirst().contains("directories") && notices.getFirst().contains(classes.toString()), notices.getFirst());
    }

    @Test
    void argumentsThatChooseTheirOwnArchiveAreLeftAlone(@TempDir Path tmp) throws Exception {
        AotCache cache = new AotCache(tmp, JAVA, helloJar(tmp).toString(), n -> { throw new AssertionError(n); });
        AotCache.Training never = (recordArgs, log) -> { throw new AssertionError("trained"); };
        for (String own : List.of("-Xshare:off", "-XX:SharedArchiveFile=app.jsa", "-XX:+AutoCreateSharedArchive",
                "-XX:AOTCache=app.aot", "-XX:AOTMode=off", "-XX:ArchiveClassesAtExit=app.jsa")) {
            List<String> args = List.of("-Xmx64m", own);
            assertEquals(args, cache.jvmArgs(args, never), own);
        }
        assertFalse(AotCache.choosesArchive(ARGS));
    }

    private static int run(List<String> jvmArgs, Path jar, Path log) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(JAVA));
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", jar.toString(), "Hello"));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("no exit in 60 s: " + command);
        }
        return p.exitValue();
    }

    /** A jar with one class (the cache takes jars, not directories, on its class path). */
    private static Path helloJar(Path tmp) throws IOException {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("Hello.java"), """
                public class Hello {
                    public static void main(String[] args) {
                        System.out.println(java.util.List.of("hello", "from", "the", "cache").stream()
                                .reduce((a, b) -> a + " " + b).orElseThrow());
                    }
                }
                """);
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", src.toString(),
                src.resolve("Hello.java").toString()));
        Path jar = tmp.resolve("hello.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            j.putNextEntry(new JarEntry("Hello.class"));
            j.write(Files.readAllBytes(src.resolve("Hello.class")));
            j.closeEntry();
        }
        return jar;
    }
}
