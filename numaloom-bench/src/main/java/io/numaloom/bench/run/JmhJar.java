package io.numaloom.bench.run;

import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.zip.ZipEntry;

/**
 * What a user's JMH benchmarks jar holds, read before any JVM starts: its benchmarks (JMH's
 * {@code META-INF/BenchmarkList}, which JMH's annotation processor writes), those a regex selects, and the values of
 * a {@code @Param} they declare. {@code ./numaloom bench --jmh-jar} checks the jar with it so that a wrong jar, a regex
 * that selects nothing or a parameter no benchmark has is a usage error at once, not a failed fork per round.
 */
public final class JmhJar {
    /** Why a jar cannot be used; the message names what is wrong with it. */
    public static final class BadJarException extends Exception {
        private static final long serialVersionUID = 1L;

        BadJarException(String message) {
            super(message);
        }
    }

    /** A benchmark of the jar: its full name (class and method) and its parameters' declared values. */
    public record Benchmark(String name, Map<String, List<String>> params) {}

    private final List<Benchmark> benchmarks;

    private JmhJar(List<Benchmark> benchmarks) {
        this.benchmarks = benchmarks;
    }

    /**
     * Reads the benchmarks of {@code jar}.
     *
     * @throws BadJarException if it is missing, not a jar, or has no {@code META-INF/BenchmarkList} (not built with
     *                         JMH's annotation processor)
     */
    public static JmhJar read(Path jar) throws BadJarException {
        if (!Files.isRegularFile(jar)) {
            throw new BadJarException("no such file: " + jar);
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            ZipEntry list = file.getEntry(BenchmarkList.BENCHMARK_LIST.replaceFirst("^/", ""));
            if (list == null) {
                throw new BadJarException(jar + " has no " + BenchmarkList.BENCHMARK_LIST.replaceFirst("^/", "")
                        + ": not a JMH benchmarks jar (build it with jmh-generator-annprocess and the shade plugin, see README.md)");
            }
            if (file.getManifest() == null || file.getManifest().getMainAttributes().getValue("Main-Class") == null) {
                throw new BadJarException(jar + " has no Main-Class in its manifest: `java -jar` cannot run it "
                        + "(JMH's is org.openjdk.jmh.Main, see README.md)");
            }
            List<Benchmark> benchmarks = new ArrayList<>();
            try (InputStream in = file.getInputStream(list)) {
                for (BenchmarkListEntry e : BenchmarkList.readBenchmarkList(in)) {
                    Map<String, List<String>> params = new java.util.TreeMap<>();
                    if (e.getParams().hasValue()) {
                        e.getParams().get().forEach((k, v) -> params.put(k, Arrays.asList(v)));
                    }
                    benchmarks.add(new Benchmark(e.getUsername(), params));
                }
            } catch (RuntimeException e) {
                throw new BadJarException("cannot read " + jar + "'s benchmark list (built with another JMH version?): " + e);
            }
            return new JmhJar(List.copyOf(benchmarks));
        } catch (IOException e) {
            throw new BadJarException("cannot read " + jar + " as a jar: " + e.getMessage());
        }
    }

    /** Every benchmark of the jar. */
    public List<Benchmark> benchmarks() {
        return benchmarks;
    }

    /**
     * The benchmarks that {@code regex} selects, as JMH selects them (the regex found in the full name), or all for
     * null; each one per benchmark method (JMH lists a method once per mode).
     *
     * @throws IllegalArgumentException if the regex is not one
     */
    public List<Benchmark> select(String regex) {
        Pattern p;
        try {
            p = Pattern.compile(regex == null ? ".*" : regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("not a regular expression: " + e.getDescription());
        }
        List<Benchmark> selected = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Benchmark b : benchmarks) {
            if (p.matcher(b.name()).find() && seen.add(b.name())) {
                selected.add(b);
            }
        }
        return selected;
    }
}
