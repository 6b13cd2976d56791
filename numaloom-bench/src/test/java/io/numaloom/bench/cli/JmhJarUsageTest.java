package io.numaloom.bench.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ./numaloom bench --jmh-jar}'s usage errors: status 2, one line naming the option, nothing run. */
class JmhJarUsageTest {
    @TempDir
    static Path build;
    static Path jar;
    static Path plain;

    @BeforeAll
    static void buildJars() throws Exception {
        jar = JmhTestJar.build(build.resolve("jmh"));
        plain = JmhTestJar.plainJar(build.resolve("plain"));
    }

    /** Runs {@code ./numaloom bench ARGS} and expects a usage error that contains {@code message}. */
    static void usageError(String message, String... args) {
        String[] argv = new String[args.length + 1];
        argv[0] = "bench";
        System.arraycopy(args, 0, argv, 1, args.length);
        MainTest.Result r = MainTest.main(argv);
        assertEquals(2, r.status(), String.join(" ", args) + ": " + r.out() + r.err());
        assertTrue(r.err().contains("numaloom bench: " + message), r.err());
        assertTrue(r.out().isEmpty(), r.out());
    }

    @Test
    void badJarsParamsAndBenchmarksAreUsageErrorsNamingTheOption(@TempDir Path dir) {
        String j = jar.toString();
        usageError("--jmh-jar: no such file: " + dir.resolve("missing.jar"), "--jmh-jar", dir.resolve("missing.jar").toString());
        usageError("--jmh-jar: " + plain + " has no META-INF/BenchmarkList: not a JMH benchmarks jar", "--jmh-jar", plain.toString());
        usageError("--jmh-param needs at least two values, the reference first", "--jmh-jar", j, "--jmh-param", "lock=FAST");
        usageError("--jmh-param needs at least two values", "--jmh-jar", j, "--jmh-param", "lock=");
        usageError("--jmh-param names a value twice", "--jmh-jar", j, "--jmh-param", "lock=FAST,FAST");
        usageError("--jmh-param must be NAME=V1,V2,...", "--jmh-jar", j, "--jmh-param", "=A,B");
        usageError("--jmh-benchmark: no benchmark of " + j + " matches 'Nothing'; it has: com.acme.Plain.plain, com.acme.Spin.spin",
                "--jmh-jar", j, "--jmh-benchmark", "Nothing");
        usageError("--jmh-benchmark: not a regular expression", "--jmh-jar", j, "--jmh-benchmark", "(");
        usageError("--jmh-param: no selected benchmark of " + j + " has a @Param 'size2'", "--jmh-jar", j, "--jmh-param",
                "size2=1,2", "--jmh-benchmark", "Spin");
        usageError("--jmh-param: no selected benchmark of " + j + " has a @Param 'lock' (com.acme.Plain.plain has none)",
                "--jmh-jar", j, "--jmh-benchmark", "Plain");
        usageError("-- -f: the JMH route sets -f, -rf, -rff itself", "--jmh-jar", j, "--", "-f", "3");
        usageError("-- -rff: the JMH route sets", "--jmh-jar", j, "--", "-rff", "x.json");
        usageError("-- -p lock=...: the compared parameter's values go in --jmh-param", "--jmh-jar", j, "--", "-p", "lock=A");
        usageError("--jmh-param applies to --jmh-jar only", "--jmh-param", "lock=A,B");
        usageError("--jmh-benchmark applies to --jmh-jar only", "--jmh-benchmark", "x");
        usageError("--jmh-agent applies to --jmh-jar only", "--jmh-agent=include=com.acme.");
        usageError("--jmh-agent and --jmh-param exclude each other", "--jmh-jar", j, "--jmh-agent", "--jmh-param", "lock=A,B");
        usageError("-- applies to --jmh-jar only", "--", "-wi", "1");
        usageError("--jmh-jar and --config exclude each other", "--jmh-jar", j, "--config", "x.json");
        usageError("--jmh-jar and --quick exclude each other", "--jmh-jar", j, "--quick");
        usageError("--jmh-jar and --workload-class exclude each other", "--jmh-jar", j, "--workload-class", "com.acme.X");
        usageError("--jmh-jar needs a value", "--jmh-jar");
        usageError("--rounds must be a whole number from 1 to 1000", "--jmh-jar", j, "--rounds", "0");
    }

    @Test
    void withoutValuesTheParamsDeclaredOnesAreComparedAndBenchmarksWithoutItAreLeftOut() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        JmhJarBench.Plan plan = JmhJarBench.check(JmhJarBench.JmhArgs.of(jar.toString(), null, null, List.of("-wi", "1")),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(List.of("FAST", "SLOW"), plan.values(), "lock's @Param values, the first the reference");
        assertEquals(List.of("com.acme.Spin.spin", "com.acme.Spin.spinTime"), plan.benchmarks());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("left out, without a @Param 'lock': com.acme.Plain.plain"),
                err.toString(StandardCharsets.UTF_8));
        Pattern p = Pattern.compile(plan.regex());
        assertTrue(p.matcher("com.acme.Spin.spin").find() && p.matcher("com.acme.Spin.spinTime").find());
        assertFalse(p.matcher("com.acme.Plain.plain").find(), "JMH runs only those with the parameter: " + plan.regex());

        JmhJarBench.Plan given = JmhJarBench.check(JmhJarBench.JmhArgs.of(jar.toString(), "lock=SLOW, FAST,BOOM", "Spin",
                List.of()), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertEquals(List.of("SLOW", "FAST", "BOOM"), given.values());
        assertEquals("Spin", given.regex(), "every selected benchmark has the parameter: the regex as given");
    }

    @Test
    void helpShowsTheRoute() {
        MainTest.Result r = MainTest.main("bench", "--help");
        assertTrue(r.out().contains("./numaloom bench --jmh-jar JAR [--jmh-param NAME=V1,V2,...] [--jmh-benchmark REGEX]"), r.out());
        assertTrue(MainTest.main("--help").out().contains("bench --jmh-jar JAR"));
    }
}
