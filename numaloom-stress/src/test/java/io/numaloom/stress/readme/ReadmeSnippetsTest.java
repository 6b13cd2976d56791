package io.numaloom.stress.readme;

import io.numaloom.VnaLock;
import io.numaloom.scheduler.NumaScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@code ```java} snippet of the README compiles, as a user would paste it, against the built
 * numaloom-core and numaloom-scheduler (their jars in {@code ./mvnw verify}, their classes in a build that
 * stops at {@code test}) and nothing else, and then runs, each in a JVM of its own (the JDK that runs this test,
 * 25 or later) with only the flags the README gives, on whatever machine this is (one NUMA node is fine: the JVM
 * gets no {@code numaloom.topology}), in a fresh working directory.
 *
 * <p>How a snippet is compiled: its leading {@code import} lines are its imports, a snippet that declares a type
 * is a compilation unit, and any other is the body of a method (which may throw), so a snippet must import, or
 * declare, every name it uses.
 *
 * <p>How it is run: a method body runs once; a compilation unit runs the {@code main} method of the first of its
 * top-level types that has one, and is only compiled if none has. A snippet passes if its JVM exits with status 0
 * within {@value #TIMEOUT_SECONDS} s; one that throws, or returns and leaves a non-daemon thread running (it did not
 * close what it built: its JVM has not exited {@value #EXIT_GRACE_SECONDS} s after it returned), fails the test with
 * the snippet's line, heading and output.
 *
 * <p>A snippet may be marked by an HTML comment (invisible on GitHub) on the line just above its {@code ```java}:
 * <ul>
 * <li>{@code <!-- readme-test: compile-only -->}: compiled, never run (for a snippet that cannot finish in
 *     seconds or needs what a test machine lacks; say why in the README's text);
 * <li>{@code <!-- readme-test: run ARGS -->}: run with these JVM arguments, e.g.
 *     {@code --add-opens java.base/java.lang=ALL-UNNAMED} for {@code NumaScheduler}, or a system property that
 *     gives it a quick setting ({@code -Dname=value}). Each option that starts with {@code --} (with its value, if
 *     it takes one) must appear in the README outside the marker, so a snippet runs with the flags the README tells
 *     users to add, not with flags of the test's own.
 * </ul>
 * A {@code -javaagent:numaloom-agent/...} argument (the README's path of numaloom's agent) is given the jar by its
 * absolute path, which {@code ./mvnw verify} has packaged before this module's tests.
 * Any other {@code readme-test:} comment is an error. The README says the same in a comment beside its list of
 * proofs.
 */
class ReadmeSnippetsTest {
    /** How long a snippet's JVM may run: enough for a busy 2-core machine, a bound on a hang. */
    static final int TIMEOUT_SECONDS = 60;
    /** How long a snippet's JVM may take to exit once the snippet returned, before a thread left running fails it. */
    static final int EXIT_GRACE_SECONDS = 10;
    /** Printed by the wrapper of a method-body snippet once the snippet returned. */
    static final String RETURNED = "readme-snippet: returned";

    private static final Pattern FENCE = Pattern.compile("^```(\\S*)\\s*$");
    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*readme-test:\\s*(.*?)\\s*-->\\s*$");
    /** A type declaration, after any annotations (a JMH benchmark's {@code @State(Scope.Benchmark)}). */
    private static final Pattern TYPE = Pattern.compile(
            "^(@[\\w.]+(\\([^)]*\\))?\\s+)*((public|final|abstract|sealed|non-sealed|static)\\s+)*(class|record|interface|enum)\\s");
    /** A public type, whose source file must carry its name (a JMH benchmark's class is public). */
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "(?m)^public\\s+((final|abstract|sealed|non-sealed|static)\\s+)*(class|record|interface|enum)\\s+(\\w+)");

    /** The source file name of a snippet: its public type's name, else one made from its line. */
    static String fileName(Snippet s) {
        Matcher m = PUBLIC_TYPE.matcher(s.unit());
        return m.find() ? m.group(4) : "ReadmeSnippetAtLine" + s.line();
    }

    /** What the test does with a snippet. */
    enum Mode { RUN, COMPILE_ONLY }

    /**
     * One snippet: its line (of the {@code ```java} fence), the heading it is under, its compilation unit, the class
     * the unit wraps a method body in (null for a compilation unit), how it is tested and its JVM arguments.
     */
    record Snippet(int line, String heading, String unit, String wrapper, Mode mode, List<String> jvmArgs) {
        String where() {
            return "README.md snippet at line " + line + " (under \"" + heading + "\")";
        }
    }

    static Path readme() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("README.md")) && Files.exists(p.resolve("numaloom-core"))) {
                return p.resolve("README.md");
            }
        }
        throw new AssertionError("no README.md above " + Path.of("").toAbsolutePath());
    }

    /** The snippets of a Markdown text, each wrapped and marked as described in the class comment. */
    static List<Snippet> snippets(String markdown) {
        List<Snippet> snippets = new ArrayList<>();
        List<String> lines = markdown.lines().toList();
        String heading = "(top)";
        for (int n = 0; n < lines.size(); n++) {
            Matcher fence = FENCE.matcher(lines.get(n));
            if (!fence.matches()) {
                if (lines.get(n).startsWith("#")) {
                    heading = lines.get(n).replaceFirst("^#+\\s*", "");
                }
                continue;
            }
            int start = n;
            int end = n + 1;
            while (end < lines.size() && !lines.get(end).startsWith("```")) {
                end++;
            }
            n = end; // past the closing fence: a "# comment" inside a block is not a heading
            if (!fence.group(1).equals("java")) {
                continue;
            }
            Mode mode = Mode.RUN;
            List<String> jvmArgs = List.of();
            Matcher marker = start > 0 ? MARKER.matcher(lines.get(start - 1)) : null;
            if (marker != null && marker.matches()) {
                String directive = marker.group(1);
                if (directive.equals("compile-only")) {
                    mode = Mode.COMPILE_ONLY;
                } else if (directive.equals("run") || directive.startsWith("run ")) {
                    jvmArgs = Arrays.stream(directive.substring(3).strip().split("\\s+")).filter(s -> !s.isEmpty()).toList();
                } else {
                    throw new IllegalArgumentException("README.md line " + start + ": unknown marker <!-- readme-test: "
                            + directive + " -->; use compile-only or run [JVM arguments]");
                }
            }
            int line = start + 1;
            List<String> body = lines.subList(start + 1, Math.min(end, lines.size()));
            int i = 0;
            StringBuilder imports = new StringBuilder();
            while (i < body.size() && (body.get(i).isBlank() || body.get(i).startsWith("import ") || body.get(i).startsWith("//"))) {
                if (body.get(i).startsWith("import ")) {
                    imports.append(body.get(i)).append('\n');
                }
                i++;
            }
            String code = String.join("\n", body.subList(i, body.size()));
            String name = "ReadmeSnippetAtLine" + line;
            boolean unit = TYPE.matcher(code.strip()).lookingAt();
            String source = unit
                    ? imports + code + "\n"
                    : imports + "class " + name + " {\n    void snippet() throws Exception {\n" + code + "\n    }\n\n"
                      + "    public static void main(String[] args) throws Exception {\n"
                      + "        new " + name + "().snippet();\n"
                      + "        System.out.println(\"" + RETURNED + "\");\n"
                      + "    }\n}\n";
            snippets.add(new Snippet(line, heading, source, unit ? null : name, mode, jvmArgs));
        }
        return snippets;
    }

    /**
     * The options of {@code jvmArgs} that start with {@code --}, each with its value when the value is a separate
     * argument ({@code --add-opens java.base/java.lang=ALL-UNNAMED}).
     */
    static List<String> longOptions(List<String> jvmArgs) {
        List<String> options = new ArrayList<>();
        for (int i = 0; i < jvmArgs.size(); i++) {
            String a = jvmArgs.get(i);
            if (a.startsWith("--")) {
                boolean separateValue = !a.contains("=") && i + 1 < jvmArgs.size() && !jvmArgs.get(i + 1).startsWith("-");
                options.add(separateValue ? a + " " + jvmArgs.get(++i) : a);
            }
        }
        return options;
    }

    /**
     * The directories or jars the snippets compile against: numaloom-core's, numaloom-scheduler's and
     * numaloom-bench's, and JMH's annotations for the bench's JMH example.
     */
    static List<Path> classpath() {
        return Stream.of(VnaLock.class, NumaScheduler.class, io.numaloom.bench.api.LockMatrix.class,
                        org.openjdk.jmh.annotations.Benchmark.class)
                .map(c -> Path.of(URI.create(c.getProtectionDomain().getCodeSource().getLocation().toString())))
                .toList();
    }

    /**
     * What a snippet runs against: {@link #classpath()} and the libraries those need at run time (numaloom-bench's:
     * Jackson, HdrHistogram, JMH, ...), those of this test's own class path.
     */
    static List<Path> runtimeClasspath() {
        List<Path> paths = new ArrayList<>(classpath());
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty() && !paths.contains(Path.of(entry))) {
                paths.add(Path.of(entry));
            }
        }
        return paths;
    }

    @Test
    void anAnnotatedTypeIsACompilationUnitInAFileOfItsName() {
        List<Snippet> s = snippets("""
                ```java
                import org.openjdk.jmh.annotations.State;

                @State(Scope.Benchmark)
                public class B {}
                ```
                """);
        assertEquals(1, s.size());
        assertEquals("import org.openjdk.jmh.annotations.State;\n@State(Scope.Benchmark)\npublic class B {}\n", s.get(0).unit(),
                "an annotated type is a compilation unit");
        assertNull(s.get(0).wrapper());
        assertEquals("B", fileName(s.get(0)), "a public type's file carries its name");
    }

    @Test
    void wrappingKeepsImportsAndWrapsStatements() {
        List<Snippet> s = snippets("""
                text
                ```java
                import java.util.List;

                List<String> l = List.of();
                ```
                ```java
                record R(int x) {}
                ```
                """);
        assertEquals(2, s.size());
        assertTrue(s.get(0).unit().startsWith("import java.util.List;\nclass ReadmeSnippetAtLine2 {"), s.get(0).unit());
        assertTrue(s.get(0).unit().contains("List<String> l = List.of();"), s.get(0).unit());
        assertTrue(s.get(0).unit().contains("public static void main(String[] args)"), s.get(0).unit());
        assertEquals("ReadmeSnippetAtLine2", s.get(0).wrapper());
        assertEquals("record R(int x) {}\n", s.get(1).unit());
        assertEquals(null, s.get(1).wrapper());
    }

    @Test
    void markersHeadingsAndFlagsAreRead() {
        List<Snippet> s = snippets("""
                ## Using it
                ```
                # not a heading: a comment in a shell block
                ```
                <!-- readme-test: compile-only -->
                ```java
                int a = 1;
                ```
                ### NumaScheduler
                <!-- readme-test: run --add-opens java.base/java.lang=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Dquick=true -->
                ```java
                int b = 2;
                ```
                ```java
                int c = 3;
                ```
                """);
        assertEquals(3, s.size());
        assertEquals(Mode.COMPILE_ONLY, s.get(0).mode());
        assertEquals("Using it", s.get(0).heading());
        assertEquals(6, s.get(0).line());
        assertEquals(Mode.RUN, s.get(1).mode());
        assertEquals("NumaScheduler", s.get(1).heading());
        assertEquals(List.of("--add-opens", "java.base/java.lang=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED", "-Dquick=true"),
                s.get(1).jvmArgs());
        assertEquals(List.of("--add-opens java.base/java.lang=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED"),
                longOptions(s.get(1).jvmArgs()));
        assertEquals(Mode.RUN, s.get(2).mode());
        assertEquals(List.of(), s.get(2).jvmArgs(), "a marker applies to the snippet right below it only");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> snippets("""
                <!-- readme-test: compile only -->
                ```java
                int a = 1;
                ```
                """));
        assertTrue(e.getMessage().contains("unknown marker"), e.getMessage());
    }

    /** The runner fails a snippet that throws with its line, its heading and what it printed; one that returns passes. */
    @Test
    void aSnippetThatThrowsFailsWithItsHeadingAndOutput(@TempDir Path work) throws Exception {
        List<Snippet> s = snippets("""
                ## Broken promises
                ```java
                System.out.println("about to fail");
                throw new IllegalStateException("ticket -1");
                ```
                ```java
                System.out.println("fine");
                ```
                """);
        List<String> failures = check(s, work, EXIT_GRACE_SECONDS);
        assertEquals(1, failures.size(), failures.toString());
        String failure = failures.getFirst();
        assertTrue(failure.startsWith("README.md snippet at line 2 (under \"Broken promises\") exited with status 1."), failure);
        assertTrue(failure.contains("about to fail"), failure);
        assertTrue(failure.contains("IllegalStateException: ticket -1"), failure);
    }

    /** A snippet that returns but leaves a non-daemon thread running (it did not close what it built) fails. */
    @Test
    void aSnippetThatLeavesAThreadRunningFails(@TempDir Path work) throws Exception {
        List<Snippet> s = snippets("""
                ## Leaky
                ```java
                Thread.ofPlatform().start(() -> {
                    try {
                        Thread.sleep(Long.MAX_VALUE);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                ```
                """);
        // The thread never ends, so a short grace gives the same verdict as a long one.
        List<String> failures = check(s, work, 1);
        assertEquals(1, failures.size(), failures.toString());
        assertTrue(failures.getFirst().startsWith("README.md snippet at line 2 (under \"Leaky\") returned, but its JVM had not"
                + " exited 1 s later: a thread it started is still running"), failures.getFirst());
    }

    /**
     * The counter's snippet, run on a counter that is already closed, does not release the failed ticket
     * ({@code IllegalArgumentException: ticket -1}): it checks the ticket first, as the class comment does.
     */
    @Test
    void theCounterSnippetChecksAFailedTicketBeforeReleasingIt(@TempDir Path classes) throws Exception {
        String create = "CloseableAcquireCounter c = new CloseableAcquireCounter();";
        Snippet readme = snippets(Files.readString(readme())).stream().filter(s -> s.unit().contains(create)).findFirst()
                .orElseThrow(() -> new AssertionError("no README snippet has " + create));
        Snippet closed = new Snippet(readme.line(), readme.heading(), readme.unit().replace(create, create + " c.tryClose();"),
                readme.wrapper(), readme.mode(), readme.jvmArgs());
        String notCompiled = compile(closed, classes);
        assertEquals(null, notCompiled);
        List<URL> urls = new ArrayList<>(List.of(classes.toUri().toURL()));
        for (Path p : classpath()) {
            urls.add(p.toUri().toURL());
        }
        Throwable thrown = null;
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Class<?> snippet = Class.forName(closed.wrapper(), true, loader);
            Method body = snippet.getDeclaredMethod("snippet");
            body.setAccessible(true);
            var constructor = snippet.getDeclaredConstructor();
            constructor.setAccessible(true);
            body.invoke(constructor.newInstance());
        } catch (java.lang.reflect.InvocationTargetException e) {
            thrown = e.getCause();
        }
        assertFalse(thrown instanceof IllegalArgumentException, readme.where() + " released a failed ticket: " + thrown);
    }

    @Test
    void everyJavaSnippetOfTheReadmeCompilesAndRuns(@TempDir Path work) throws IOException {
        String readme = Files.readString(readme());
        List<Snippet> snippets = snippets(readme);
        assertTrue(snippets.size() >= 3, "the README has Java snippets: " + snippets.size());
        String text = String.join("\n", readme.lines().filter(l -> !MARKER.matcher(l).matches()).toList());
        for (Snippet s : snippets) {
            for (String option : longOptions(s.jvmArgs())) {
                assertTrue(text.contains(option), s.where() + " runs with " + option + ", which the README does not give users");
            }
        }
        List<String> failures = check(snippets, work, EXIT_GRACE_SECONDS);
        assertTrue(failures.isEmpty(), failures.size() + " README snippet(s) failed:\n\n" + String.join("\n\n", failures));
    }

    /**
     * Compiles and runs each snippet; returns a description of each failure. A snippet's JVM must exit within
     * {@code graceSeconds} of its return.
     */
    static List<String> check(List<Snippet> snippets, Path work, int graceSeconds) throws IOException {
        assertTrue(Runtime.version().feature() >= 25, "a JDK 25 or later runs the tests: " + Runtime.version());
        List<Path> libraries = runtimeClasspath();
        List<String> failures = new ArrayList<>();
        for (Snippet s : snippets) {
            // One compilation, one directory and one JVM per snippet: each must stand on its own.
            Path classes = Files.createDirectories(work.resolve("line" + s.line()).resolve("classes"));
            String notCompiled = compile(s, classes);
            if (notCompiled != null) {
                failures.add(notCompiled);
                continue;
            }
            if (s.mode() == Mode.COMPILE_ONLY) {
                continue;
            }
            String main = s.wrapper() != null ? s.wrapper() : mainClass(classes, libraries);
            if (main == null) {
                continue; // types without a main method: there is nothing to run
            }
            String failure = run(s, main, classes, libraries, work.resolve("line" + s.line()), graceSeconds);
            if (failure != null) {
                failures.add(failure);
            }
        }
        return failures;
    }

    /** Compiles the snippet into {@code classes}; returns null if it compiled, else the compiler's errors. */
    static String compile(Snippet s, Path classes) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "a JDK runs the tests");
        String classpath = String.join(File.pathSeparator, classpath().stream().map(Path::toString).toList());
        JavaFileObject source = new SimpleJavaFileObject(URI.create("string:///" + fileName(s) + ".java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return s.unit();
            }
        };
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        boolean ok = javac.getTask(null, null, diagnostics,
                List.of("-classpath", classpath, "-d", classes.toString(), "-proc:none"), null, List.of(source)).call();
        if (ok) {
            return null;
        }
        StringBuilder sb = new StringBuilder(s.where() + " does not compile against " + classpath + ":\n");
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            sb.append("  ").append(d.getKind()).append(": ").append(d.getMessage(null)).append('\n');
        }
        sb.append("  compiled as:\n").append(s.unit().indent(4));
        return sb.toString();
    }

    /** The first top-level class compiled into {@code classes} that has a {@code main} method, or null. */
    private static String mainClass(Path classes, List<Path> libraries) throws IOException {
        List<URL> urls = new ArrayList<>();
        urls.add(classes.toUri().toURL());
        for (Path p : libraries) {
            urls.add(p.toUri().toURL());
        }
        List<String> names;
        try (Stream<Path> files = Files.list(classes)) {
            names = files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".class") && !f.contains("$"))
                    .map(f -> f.substring(0, f.length() - ".class".length())).sorted().toList();
        }
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            for (String name : names) {
                Class<?> c = Class.forName(name, false, loader); // loaded, not initialized: nothing of it runs here
                for (Method m : c.getDeclaredMethods()) {
                    if (m.getName().equals("main") && (m.getParameterCount() == 0
                            || Arrays.equals(m.getParameterTypes(), new Class<?>[] {String[].class}))) {
                        return name;
                    }
                }
            }
        } catch (ClassNotFoundException e) {
            throw new IOException(e);
        }
        return null;
    }

    /** Where a snippet's {@code -javaagent:numaloom-agent/...} points: the README's path, from the repository's root. */
    static final String AGENT_PREFIX = "-javaagent:numaloom-agent/";

    /**
     * {@code arg}, or for the README's {@code -javaagent:numaloom-agent/target/numaloom-agent.jar[=options]} the same
     * jar by its absolute path (the snippet runs in a directory of its own).
     *
     * @throws IOException if that jar is not built ({@code ./mvnw verify} packages numaloom-agent before this module)
     */
    static String agentArgument(String arg) throws IOException {
        if (!arg.startsWith(AGENT_PREFIX)) {
            return arg;
        }
        String path = arg.substring("-javaagent:".length());
        int options = path.indexOf('=');
        Path jar = readme().getParent().resolve(options < 0 ? path : path.substring(0, options));
        if (!Files.isRegularFile(jar)) {
            throw new IOException(jar + " is not built: ./mvnw -pl numaloom-agent -am package (./mvnw verify builds it first)");
        }
        return "-javaagent:" + jar + (options < 0 ? "" : path.substring(options));
    }

    /**
     * Runs {@code main} in a JVM of its own; returns null if it exited with status 0 within {@link #TIMEOUT_SECONDS},
     * and within {@code graceSeconds} of the snippet's return, else why not.
     */
    private static String run(Snippet s, String main, Path classes, List<Path> libraries, Path dir, int graceSeconds)
            throws IOException {
        Path cwd = Files.createDirectories(dir.resolve("cwd"));
        Path output = dir.resolve("output.txt");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // A snippet's temporary files (a report in Files.createTempDirectory) stay in the test's directory.
        command.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")));
        for (String arg : s.jvmArgs()) {
            command.add(agentArgument(arg));
        }
        command.add("-cp");
        command.add(String.join(File.pathSeparator,
                Stream.concat(Stream.of(classes), libraries.stream()).map(Path::toString).toList()));
        command.add(main);
        Process p = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        long startNanos = System.nanoTime();
        long returnedNanos = 0; // when the wrapper printed RETURNED; 0 until then
        String what = null;
        try {
            while (!p.waitFor(100, TimeUnit.MILLISECONDS)) {
                long now = System.nanoTime();
                if (returnedNanos == 0 && Files.readString(output, StandardCharsets.UTF_8).contains(RETURNED)) {
                    returnedNanos = now;
                }
                if (returnedNanos != 0 && now - returnedNanos > TimeUnit.SECONDS.toNanos(graceSeconds)) {
                    what = "returned, but its JVM had not exited " + graceSeconds + " s later: a thread it started is"
                            + " still running (close what it builds)";
                } else if (now - startNanos > TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS)) {
                    what = "did not finish within " + TIMEOUT_SECONDS + " s";
                }
                if (what != null) {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                    break;
                }
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + s.where(), e);
        }
        if (what == null && p.exitValue() == 0) {
            return null;
        }
        if (what == null) {
            what = "exited with status " + p.exitValue();
        }
        String printed = Files.readString(output, StandardCharsets.UTF_8);
        String tail = printed.length() > 6000 ? "...\n" + printed.substring(printed.length() - 6000) : printed;
        return s.where() + " " + what + ".\n  run as: " + String.join(" ", command) + "\n  in: " + cwd
                + "\n  output:\n" + tail.indent(4) + "  source:\n" + s.unit().indent(4);
    }
}
