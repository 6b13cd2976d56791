package io.numaloom.bench.cli;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** A user's jar, built here as a user's build would make it (javac, then a jar file), for {@code --workload-class}. */
final class UserJar {
    private UserJar() {}

    /**
     * Compiles {@code sources} (simple class name to source text, all in package {@code com.acme}) under {@code build}
     * and packs the classes into {@code build/app.jar}.
     *
     * @return the jar
     */
    static Path build(Path build, Map<String, String> sources) throws IOException {
        Path src = Files.createDirectories(build.resolve("src/com/acme"));
        List<String> args = new ArrayList<>();
        Path classes = Files.createDirectories(build.resolve("classes"));
        args.addAll(List.of("-d", classes.toString(), "-proc:none"));
        for (Map.Entry<String, String> source : sources.entrySet()) {
            args.add(Files.writeString(src.resolve(source.getKey() + ".java"), source.getValue()).toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "a JDK runs the tests");
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        assertEquals(0, javac.run(null, null, diagnostics, args.toArray(String[]::new)), diagnostics.toString());
        Path jar = build.resolve("app.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> walk = Files.walk(classes)) {
            for (Path c : walk.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(c).toString().replace('\\', '/')));
                Files.copy(c, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    /** A section that never returns, asleep (a deadlock of its own, say): an interrupt does not free it. */
    static final String STUCK = """
            package com.acme;

            public class Stuck implements Runnable {
                @Override
                public void run() {
                    while (true) {
                        try {
                            Thread.sleep(60_000);
                        } catch (InterruptedException e) {
                            // stuck: the round's timeout interrupts it, in vain
                        }
                    }
                }
            }
            """;
}
