package io.numaloom.stress.readme;

import io.numaloom.VnaLock;
import org.junit.jupiter.api.Test;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@code ```java} snippet of the README compiles, as a user would paste it, against the built
 * numaloom-core, numaloom-scheduler and numaloom-bench (their jars in {@code ./mvnw verify}, their classes in a build
 * that stops at {@code test}), and JMH's annotations for the bench's JMH example, and nothing else: a snippet's leading {@code import} lines are its imports, a snippet that declares a type
 * is a compilation unit, and any other is the body of a method (which may throw), so a snippet must
 * import, or declare, every name it uses.
 */
class ReadmeSnippetsTest {
    private static final Pattern SNIPPET = Pattern.compile("(?m)^```java\\n(.*?)^```", Pattern.DOTALL);
    /** A type declaration, after any annotations (a JMH benchmark's {@code @State(Scope.Benchmark)}). */
    private static final Pattern TYPE = Pattern.compile(
            "^(@[\\w.]+(\\([^)]*\\))?\\s+)*((public|final|abstract|sealed|non-sealed|static)\\s+)*(class|record|interface|enum)\\s");

    /** One snippet as a compilation unit. */
    record Snippet(int line, String unit) {}

    static Path readme() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("README.md")) && Files.exists(p.resolve("numaloom-core"))) {
                return p.resolve("README.md");
            }
        }
        throw new AssertionError("no README.md above " + Path.of("").toAbsolutePath());
    }

    /** The snippets of a Markdown text, each wrapped as described in the class comment. */
    static List<Snippet> snippets(String markdown) {
        List<Snippet> snippets = new ArrayList<>();
        Matcher m = SNIPPET.matcher(markdown);
        while (m.find()) {
            int line = (int) markdown.substring(0, m.start()).lines().count() + 1;
            List<String> lines = m.group(1).lines().toList();
            int i = 0;
            StringBuilder imports = new StringBuilder();
            while (i < lines.size() && (lines.get(i).isBlank() || lines.get(i).startsWith("import ") || lines.get(i).startsWith("//"))) {
                if (lines.get(i).startsWith("import ")) {
                    imports.append(lines.get(i)).append('\n');
                }
                i++;
            }
            String body = String.join("\n", lines.subList(i, lines.size()));
            String name = "ReadmeSnippetAtLine" + line;
            String unit = TYPE.matcher(body.strip()).lookingAt()
                    ? imports + body + "\n"
                    : imports + "class " + name + " {\n    void snippet() throws Exception {\n" + body + "\n    }\n}\n";
            snippets.add(new Snippet(line, unit));
        }
        return snippets;
    }

    /** A public type, whose source file must carry its name (a JMH benchmark's class is public). */
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "(?m)^public\\s+((final|abstract|sealed|non-sealed|static)\\s+)*(class|record|interface|enum)\\s+(\\w+)");

    /** The source file name of a snippet: its public type's name, else one made from its line. */
    static String fileName(Snippet s) {
        Matcher m = PUBLIC_TYPE.matcher(s.unit());
        return m.find() ? m.group(4) : "ReadmeSnippetAtLine" + s.line();
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
                ```java
                import org.openjdk.jmh.annotations.State;

                @State(Scope.Benchmark)
                public class B {}
                ```
                """);
        assertEquals(3, s.size());
        assertEquals("import org.openjdk.jmh.annotations.State;\n@State(Scope.Benchmark)\npublic class B {}\n", s.get(2).unit(),
                "an annotated type is a compilation unit");
        assertEquals("B", fileName(s.get(2)), "a public type's file carries its name");
        assertEquals("ReadmeSnippetAtLine2", fileName(s.get(0)));
        assertTrue(s.get(0).unit().startsWith("import java.util.List;\nclass ReadmeSnippetAtLine2 {"), s.get(0).unit());
        assertTrue(s.get(0).unit().contains("List<String> l = List.of();"), s.get(0).unit());
        assertEquals("record R(int x) {}\n", s.get(1).unit());
    }

    @Test
    void everyJavaSnippetOfTheReadmeCompiles(@org.junit.jupiter.api.io.TempDir Path classes) throws IOException {
        List<Snippet> snippets = snippets(Files.readString(readme()));
        assertTrue(snippets.size() >= 3, "the README has Java snippets: " + snippets.size());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "a JDK runs the tests");
        Path core = Path.of(URI.create(VnaLock.class.getProtectionDomain().getCodeSource().getLocation().toString()));
        Path scheduler = Path.of(URI.create(io.numaloom.scheduler.NumaScheduler.class.getProtectionDomain().getCodeSource()
                .getLocation().toString()));
        // The bench's API (LockMatrix, Locks) and JMH's annotations, for the section on benchmarking your own code.
        Path bench = Path.of(URI.create(io.numaloom.bench.api.LockMatrix.class.getProtectionDomain().getCodeSource()
                .getLocation().toString()));
        Path jmh = Path.of(URI.create(org.openjdk.jmh.annotations.Benchmark.class.getProtectionDomain().getCodeSource()
                .getLocation().toString()));
        String classpath = String.join(java.io.File.pathSeparator, core.toString(), scheduler.toString(), bench.toString(), jmh.toString());
        List<String> failures = new ArrayList<>();
        for (Snippet s : snippets) {
            // One compilation per snippet: each must stand on its own.
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
            if (!ok) {
                StringBuilder sb = new StringBuilder("README.md snippet at line " + s.line() + ":\n");
                for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                    sb.append("  ").append(d.getKind()).append(": ").append(d.getMessage(null)).append('\n');
                }
                sb.append("  compiled as:\n").append(s.unit().indent(4));
                failures.add(sb.toString());
            }
        }
        assertTrue(failures.isEmpty(), "README snippets that do not compile against " + classpath + ":\n" + String.join("\n", failures));
    }
}
