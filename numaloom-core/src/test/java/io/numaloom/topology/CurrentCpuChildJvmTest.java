package io.numaloom.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs {@link CurrentCpuProbe} in child JVMs with the flags whose effect cannot be seen in this JVM:
 * {@code --illegal-native-access=deny}, the default warn mode, {@code --enable-native-access}, the
 * {@code numaloom.currentCpu} modes, and bad or virtual {@code numaloom.topology} specs; on the class path
 * and on the module path. Surefire may run this JVM either way, so the child's paths are found by looking
 * for the compiled classes on both {@code java.class.path} and {@code jdk.module.path}.
 */
class CurrentCpuChildJvmTest {

    private static final String JDK_WARNING = "WARNING: A restricted method in java.lang.foreign.Linker has been called";
    private static final String SPREAD_LOG = "numaloom: current cpu from a per-thread spread";
    private static final boolean LINUX = System.getProperty("os.name").startsWith("Linux");

    /** A finished child: its {@code key=value} lines and its whole output (stdout and stderr). */
    private record Child(Map<String, String> values, String output) {
        String get(String key) {
            String v = values.get(key);
            if (v == null) {
                fail("the child printed no " + key + "; its output:\n" + output);
            }
            return v;
        }

        int count(String text) {
            return output.split(Pattern.quote(text), -1).length - 1;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Deny: the fallback

    @Test
    void denyOnTheClassPathFallsBackToTheSpreadAndSaysWhy() throws Exception {
        Child c = runOnClassPath("--illegal-native-access=deny");
        assertEquals("THREAD_SPREAD", c.get("source"), c.output());
        assertTrue(c.get("reason").contains("native access is denied to the unnamed module"), c.output());
        assertTrue(c.get("reason").contains("--enable-native-access=ALL-UNNAMED"), c.output());
        assertEquals(0, c.count(SPREAD_LOG), "on one node the fallback costs nothing and is logged at DEBUG:\n" + c.output());
        assertEquals(0, c.count("INFO:") + c.count("WARNING:"), c.output());
        assertEquals(0, c.count(JDK_WARNING), c.output());
        assertWorks(c);
    }

    @Test
    void denyOnTheModulePathFallsBackToTheSpreadAndNamesTheModule() throws Exception {
        Child c = runOnModulePath("--illegal-native-access=deny");
        assertEquals("THREAD_SPREAD", c.get("source"), c.output());
        assertTrue(c.get("reason").contains("native access is denied to module io.numaloom"), c.output());
        assertTrue(c.get("reason").contains("--enable-native-access=io.numaloom"), c.output());
        assertEquals(0, c.count(SPREAD_LOG), c.output());
        assertWorks(c);
    }

    @Test
    void denyWithAVirtualTopologySpreadsVirtualThreadsOverAllNodes() throws Exception {
        Child c = runOnClassPath("--illegal-native-access=deny", "-Dnumaloom.topology=nodes=2");
        assertEquals("THREAD_SPREAD", c.get("source"), c.output());
        assertEquals("2", c.get("topology.nodeCount"), c.output());
        assertEquals("numaloom.topology=nodes=2 (virtual)", c.get("topology.source"));
        assertEquals("2", c.get("virtualThreadNodes"), "64 virtual threads hashed onto both nodes:\n" + c.output());
        assertEquals(1, c.count(SPREAD_LOG), "on two nodes the fallback costs locality: one warning\n" + c.output());
        assertEquals(1, c.count("WARNING: numaloom: current cpu from a per-thread spread"), c.output());
        assertWorks(c);
    }

    // ---------------------------------------------------------------------------------------------
    // The JDK's default warn mode, and the numaloom.currentCpu modes

    @Test
    void defaultWarnModeUsesSchedGetcpuAndTheJdkWarnsOnce() throws Exception {
        Child c = runOnClassPath();
        if (LINUX) {
            assertEquals("SCHED_GETCPU", c.get("source"), c.output());
            assertEquals(1, c.count(JDK_WARNING), "the JDK warns once:\n" + c.output());
            assertTrue(c.output().contains("io.numaloom.topology.SchedGetcpu"), "the warning names the caller:\n" + c.output());
            assertTrue(c.get("reason").contains("run with --enable-native-access=ALL-UNNAMED to silence it"), c.output());
        }
        assertWorks(c);
    }

    @Test
    void quietModeWithoutNativeAccessMakesNoNativeCallAndNoWarning() throws Exception {
        Child c = runOnClassPath("-Dnumaloom.currentCpu=quiet");
        assertEquals("THREAD_SPREAD", c.get("source"), c.output());
        assertTrue(c.get("reason").contains("numaloom.currentCpu=quiet and native access is not enabled"), c.output());
        assertEquals(0, c.count(JDK_WARNING), c.output());
        assertEquals(0, c.count("INFO:") + c.count("WARNING:"), "the library prints nothing:\n" + c.output());
        assertWorks(c);
    }

    @Test
    void quietModeWithNativeAccessEnabledUsesSchedGetcpuSilently() throws Exception {
        Child c = runOnClassPath("--enable-native-access=ALL-UNNAMED", "-Dnumaloom.currentCpu=quiet");
        if (LINUX) {
            assertEquals("SCHED_GETCPU", c.get("source"), c.output());
            assertEquals("sched_getcpu through FFM", c.get("reason"));
        }
        assertEquals(0, c.count(JDK_WARNING), c.output());
        assertEquals(0, c.count("INFO:"), "nothing above DEBUG is logged:\n" + c.output());
        assertWorks(c);
    }

    /**
     * The contended path of a lock asks for the current NUMA node only when there is more than one
     * queue: with one node and one socket nothing native is called, so the JDK has nothing to warn
     * about and the library prints nothing. Two virtual nodes are the control: there the node is
     * needed, {@code sched_getcpu} is bound and the JDK warns once (so the check can fail).
     */
    @ParameterizedTest(name = "numaloom.topology={0}")
    @ValueSource(strings = {"nodes=1", "nodes=2"})
    void aContendedLockCallsNativeCodeOnlyWithMoreThanOneNode(String topology) throws Exception {
        Child c = run(List.of(javaBinary(), "-Dnumaloom.topology=" + topology, "-cp",
                root("io/numaloom/topology/ContendedLockProbe.class") + File.pathSeparator
                        + root("io/numaloom/VnaLock.class"),
                ContendedLockProbe.class.getName()));
        assertEquals("true", c.get("done"), c.output());
        assertEquals("4", c.get("queued"), "four threads waited in the queue:\n" + c.output());
        assertEquals("40000", c.get("acquisitions"), c.output());
        boolean oneNode = topology.equals("nodes=1");
        assertEquals(oneNode ? "1" : "2", c.get("queues"), c.output());
        if (oneNode) {
            String printed = c.output().lines().skip(1).filter(l -> !l.matches("[a-z]+=.*")).toList().toString();
            assertEquals("[]", printed, "nothing but the probe's lines:\n" + c.output());
        } else if (LINUX) {
            assertEquals(1, c.count(JDK_WARNING), "two nodes need sched_getcpu, and the JDK warns once:\n" + c.output());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // A bad numaloom.topology

    @Test
    void badTopologySpecFailsEveryCallWithTheSameMessage() throws Exception {
        Child c = runOnClassPath("-Dnumaloom.topology=nodes=0");
        String expected = "numaloom.topology=\"nodes=0\" is invalid: nodes must be at least 1, got 0";
        assertEquals(expected, c.get("topology.error"), c.output());
        assertEquals(expected, c.get("topology.errorAgain"), "not a NoClassDefFoundError the second time");
        assertEquals(expected, c.get("node.error"), "CurrentCpu.node() reports it too");
        assertTrue(Integer.parseInt(c.get("cpu")) >= 0, "cpu() still works");
        assertEquals(expected, c.get("vnaLock.error"), "new VnaLock() fails fast, with the same message");
        assertEquals(expected, c.get("vnaLockPerSocket.error"), "VnaLock.perSocket() too");
        assertEquals(expected, c.get("counter.error"), "new CloseableAcquireCounter() fails fast, with the same message");
        assertEquals(expected, c.get("stripedCounter.error"), "CloseableAcquireCounter.striped() too");
        assertEquals("works", c.get("customPlacement"), "a custom placement does not need the topology");
        assertEquals("true", c.get("done"));
    }

    /** Exit 0, node and cpu consistent with the topology, no allocation on the hot path. */
    private static void assertWorks(Child c) {
        assertEquals("true", c.get("done"), c.output());
        int[] online = CpuList.parse(c.get("online"));
        assertTrue(CpuList.contains(online, Integer.parseInt(c.get("cpu"))), c.output());
        int nodes = Integer.parseInt(c.get("topology.nodeCount"));
        int node = Integer.parseInt(c.get("node"));
        assertTrue(node >= 0 && node < nodes, c.output());
        assertEquals("true", c.get("topology.same"), "current() is cached");
        assertEquals("true", c.get("virtualThreadCpusOnline"), c.output());
        long allocated = Long.parseLong(c.get("allocatedBytesPerMillionCalls"));
        if (allocated >= 0) {
            // A single byte per call would show as 1,000,000; allow a little measurement noise.
            assertTrue(allocated < 4096, "cpu()/node()/socket() allocate: " + allocated + " bytes per million calls");
        }
        assertFalse(c.output().contains("Exception in thread"), c.output());
    }

    // ---------------------------------------------------------------------------------------------
    // Launching

    private static Child runOnClassPath(String... jvmArgs) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.addAll(List.of(jvmArgs));
        cmd.add("-cp");
        cmd.add(root("io/numaloom/topology/CurrentCpuProbe.class") + File.pathSeparator
                + root("io/numaloom/topology/CurrentCpu.class"));
        cmd.add(CurrentCpuProbe.class.getName());
        return run(cmd);
    }

    /** numaloom as the named module io.numaloom, with the probe patched into it. */
    private static Child runOnModulePath(String... jvmArgs) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.addAll(List.of(jvmArgs));
        cmd.add("--module-path");
        cmd.add(root("io/numaloom/topology/CurrentCpu.class").toString());
        cmd.add("--patch-module");
        cmd.add("io.numaloom=" + root("io/numaloom/topology/CurrentCpuProbe.class"));
        cmd.add("--add-modules");
        cmd.add("jdk.management");
        cmd.add("-m");
        cmd.add("io.numaloom/" + CurrentCpuProbe.class.getName());
        return run(cmd);
    }

    private static Child run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("child JVM did not finish: " + cmd);
        }
        String output = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "child JVM " + cmd + " failed:\n" + output);
        Map<String, String> values = new LinkedHashMap<>();
        Matcher m = Pattern.compile("(?m)^([A-Za-z.]+)=(.*)$").matcher(output);
        while (m.find()) {
            values.putIfAbsent(m.group(1), m.group(2).strip());
        }
        return new Child(values, "$ " + String.join(" ", cmd) + "\n" + output);
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** The class-path or module-path root (directory or jar) of this JVM that holds {@code resource}. */
    private static Path root(String resource) throws IOException {
        Set<String> entries = new LinkedHashSet<>();
        for (String property : new String[] {"jdk.module.path", "java.class.path"}) {
            String value = System.getProperty(property);
            if (value != null && !value.isEmpty()) {
                entries.addAll(List.of(value.split(Pattern.quote(File.pathSeparator))));
            }
        }
        for (String entry : entries) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p) && Files.exists(p.resolve(resource))) {
                return p;
            }
            if (Files.isRegularFile(p) && entry.endsWith(".jar")) {
                try (var jar = new java.util.jar.JarFile(p.toFile())) {
                    if (jar.getEntry(resource) != null) {
                        return p;
                    }
                }
            }
        }
        throw new IllegalStateException(resource + " is on neither path of this JVM: " + entries);
    }
}
