package io.numaloom.bench.cli;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A user's JMH benchmarks jar, built at test time as a user's build makes it: javac with JMH's annotation processor
 * (which generates the harness classes and {@code META-INF/BenchmarkList}), then a jar whose manifest runs
 * {@code org.openjdk.jmh.Main} and whose {@code Class-Path} names JMH's jars from the test class path (a shaded jar
 * without the shading).
 */
final class JmhTestJar {
    private JmhTestJar() {}

    /**
     * Two benchmarks with a {@code @Param lock} of {@code FAST} and {@code SLOW} (SLOW burns ten times the CPU per
     * operation; BOOM fails in its setup), one in throughput and one in average time, and a third without the parameter,
     * whose operation takes an unfair {@code ReentrantLock} (what {@code --jmh-agent} swaps).
     */
    static final String SOURCE = """
            package com.acme;

            import org.openjdk.jmh.annotations.*;
            import org.openjdk.jmh.infra.Blackhole;
            import java.util.concurrent.TimeUnit;

            @State(Scope.Benchmark)
            public class Spin {
                @Param({"FAST", "SLOW"})
                public String lock;

                @Param({"1"})
                public int size;

                private long tokens;

                @Setup
                public void setUp() {
                    if (lock.equals("BOOM")) {
                        throw new IllegalStateException("boom: a value whose benchmark fails");
                    }
                    tokens = lock.equals("SLOW") ? 200 : 20;
                }

                @Benchmark
                @BenchmarkMode(Mode.Throughput)
                @OutputTimeUnit(TimeUnit.MICROSECONDS)
                public void spin() {
                    Blackhole.consumeCPU(tokens * size);
                }

                @Benchmark
                @BenchmarkMode(Mode.AverageTime)
                @OutputTimeUnit(TimeUnit.NANOSECONDS)
                public void spinTime() {
                    Blackhole.consumeCPU(tokens * size);
                }
            }
            """;

    static final String OTHER = """
            package com.acme;

            import org.openjdk.jmh.annotations.*;
            import java.util.concurrent.locks.ReentrantLock;

            @State(Scope.Benchmark)
            public class Plain {
                private final ReentrantLock lock = new ReentrantLock();
                private int x;

                @Benchmark
                public int plain() {
                    lock.lock();
                    try {
                        return ++x;
                    } finally {
                        lock.unlock();
                    }
                }
            }
            """;

    /** Compiles {@link #SOURCE} and {@link #OTHER} under {@code build} into {@code build/benchmarks.jar}. */
    static Path build(Path build) throws IOException {
        Path src = Files.createDirectories(build.resolve("src/com/acme"));
        Path classes = Files.createDirectories(build.resolve("classes"));
        List<Path> jmhJars = jmhJars();
        String cp = jmhJars.stream().map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator));
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-cp", cp, "-processorpath", cp,
                "-processor", "org.openjdk.jmh.generators.BenchmarkProcessor", "-nowarn"));
        args.add(Files.writeString(src.resolve("Spin.java"), SOURCE).toString());
        args.add(Files.writeString(src.resolve("Plain.java"), OTHER).toString());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "a JDK runs the tests");
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        assertEquals(0, javac.run(null, null, diagnostics, args.toArray(String[]::new)), diagnostics.toString());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "org.openjdk.jmh.Main");
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH,
                jmhJars.stream().map(p -> p.toUri().toString()).collect(Collectors.joining(" ")));
        Path jar = build.resolve("benchmarks.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
             Stream<Path> walk = Files.walk(classes)) {
            for (Path c : walk.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(c).toString().replace('\\', '/')));
                Files.copy(c, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    /** JMH's jars and theirs (jmh-core, the annotation processor, jopt-simple, commons-math3) from the test class path. */
    static List<Path> jmhJars() {
        List<Path> jars = Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(e -> Stream.of("jmh-core", "jmh-generator-annprocess", "jopt-simple", "commons-math3")
                        .anyMatch(n -> Path.of(e).getFileName().toString().startsWith(n)))
                .map(Path::of).toList();
        assertFalse(jars.size() < 4, "JMH's jars on the test class path: " + jars);
        return jars;
    }

    /** A jar that is no JMH jar: one class and no benchmark list. */
    static Path plainJar(Path build) throws IOException {
        return UserJar.build(build, java.util.Map.of("Nothing", "package com.acme; public class Nothing {}"));
    }
}
