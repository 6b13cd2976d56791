package io.numaloom.bench.locks;

import io.numaloom.topology.Topology;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

/**
 * Progress at virtual-thread parallelism 1, in a child JVM: {@code jdk.virtualThreadScheduler.parallelism}
 * is read once per JVM, so the test JVM cannot change it for itself.
 *
 * <p>The parent side ({@link #results(int)}) starts {@code java -Djdk.virtualThreadScheduler.parallelism=1
 * -Djdk.virtualThreadScheduler.maxPoolSize=1 -Dnumaloom.topology=<spec> ProgressProbe <nodes> <names...>}
 * with the test class path and parses one {@code RESULT <name> <OK|FAIL|HANG|SKIP> <detail>} line per lock.
 * The child side ({@link #main}) runs, for each lock, {@value #THREADS} virtual threads that each acquire
 * {@value #ITERATIONS} times and call {@code Thread.yield()} inside the critical section (and before it),
 * once on the process topology and once on an explicit {@code nodes}-node placement that moves threads
 * between nodes at random (a migrating virtual thread). A platform watchdog thread reports a lock that makes
 * no progress for {@value #STALL_MILLIS} ms as HANG and halts the child; the parent then starts a new child
 * for the locks not yet run.
 */
final class ProgressProbe {
    static final int THREADS = 8;
    static final int ITERATIONS = 100;
    static final long STALL_MILLIS = 15_000;
    private static final long CHILD_TIMEOUT_SECONDS = 150;

    private static final Map<Integer, Map<String, String>> RESULTS = new HashMap<>();

    private ProgressProbe() {}

    // ------------------------------------------------------------------ parent side

    /** Results of every registered lock at parallelism 1 under a {@code nodes}-node placement, run once per JVM. */
    static synchronized Map<String, String> results(int nodes) throws IOException, InterruptedException {
        Map<String, String> r = RESULTS.get(nodes);
        if (r == null) {
            r = runChildren(nodes);
            RESULTS.put(nodes, r);
        }
        return r;
    }

    private static Map<String, String> runChildren(int nodes) throws IOException, InterruptedException {
        Map<String, String> results = new LinkedHashMap<>();
        List<String> pending = new ArrayList<>(Locks.names());
        while (!pending.isEmpty()) {
            Path out = Files.createTempFile("numaloom-progress-", ".txt");
            try {
                List<String> cmd = new ArrayList<>(List.of(javaBinary(), "-cp", System.getProperty("java.class.path"),
                        "-Djdk.virtualThreadScheduler.parallelism=1",
                        "-Djdk.virtualThreadScheduler.maxPoolSize=1",
                        "-Dnumaloom.topology=" + topologySpec(nodes),
                        "--enable-native-access=ALL-UNNAMED",
                        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                        ProgressProbe.class.getName(), Integer.toString(nodes)));
                cmd.addAll(pending);
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
                boolean exited = p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (!exited) {
                    p.destroyForcibly().waitFor();
                }
                List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
                for (String line : lines) {
                    if (line.startsWith("RESULT ")) {
                        String[] parts = line.split(" ", 3);
                        results.put(parts[1], parts[2]);
                        pending.remove(parts[1]);
                    }
                }
                if (!pending.isEmpty() && (!exited || p.exitValue() == 0 || !lines.stream().anyMatch(l -> l.contains(" HANG ")))) {
                    // the child died without naming a culprit: charge the first pending lock and go on
                    String tail = String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
                    results.put(pending.remove(0), "FAIL child JVM " + (exited ? "exited with " + p.exitValue()
                            : "timed out after " + CHILD_TIMEOUT_SECONDS + " s") + ": " + tail);
                }
            } finally {
                Files.deleteIfExists(out);
            }
        }
        return results;
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /**
     * The child's {@code numaloom.topology}: as many virtual nodes as asked for and the machine's online CPUs
     * allow; two nodes are given with sparse kernel ids (0 and 2) through the map form, so that dense
     * indexing of sparse ids is exercised too.
     */
    static String topologySpec(int nodes) {
        int[] cpus = Topology.detect().cpus();
        int n = Math.max(1, Math.min(nodes, cpus.length));
        if (n != 2) {
            return "nodes=" + n;
        }
        StringBuilder spec = new StringBuilder();
        for (int i = 0; i < cpus.length; i++) {
            spec.append(i == 0 ? "" : ",").append(cpus[i]).append(i < cpus.length / 2 ? ":0" : ":2");
        }
        return spec.toString();
    }

    // ------------------------------------------------------------------ child side

    private static volatile String current = "";
    private static volatile long lastProgress = System.nanoTime();
    private static final AtomicInteger DONE = new AtomicInteger();

    public static void main(String[] args) {
        int nodes = Integer.parseInt(args[0]);
        List<String> names = Arrays.asList(args).subList(1, args.length);
        startWatchdog();
        for (String name : names) {
            current = name;
            lastProgress = System.nanoTime();
            String result;
            try {
                result = probe(name, nodes);
            } catch (Throwable t) {
                result = "FAIL " + t;
            }
            System.out.println("RESULT " + name + " " + result.replace('\n', ' '));
            System.out.flush();
        }
        System.exit(0);
    }

    private static String probe(String name, int nodes) throws InterruptedException {
        if (!"1".equals(System.getProperty("jdk.virtualThreadScheduler.parallelism"))) {
            return "FAIL the child JVM does not run at parallelism 1";
        }
        Lock onTopology = Locks.create(name);
        if (!LockConformanceTest.implemented(onTopology)) {
            return "SKIP " + name + " is not implemented yet (UnsupportedOperationException)";
        }
        long start = System.nanoTime();
        String a = run(onTopology);
        if (a != null) {
            return "FAIL on " + Topology.current() + ": " + a;
        }
        NumaNodes migrating = NumaNodes.of(nodes, () -> ThreadLocalRandom.current().nextInt(nodes));
        String b = run(Locks.create(name, migrating));
        if (b != null) {
            return "FAIL on " + migrating + " (migrating): " + b;
        }
        return "OK " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms";
    }

    /** Null if every acquisition happened exactly once and alone, else what went wrong. */
    private static String run(Lock lock) throws InterruptedException {
        LockConformanceTest.Guarded guarded = new LockConformanceTest.Guarded();
        Thread[] threads = new Thread[THREADS];
        DONE.set(0);
        for (int t = 0; t < THREADS; t++) {
            threads[t] = Thread.ofVirtual().start(() -> {
                for (int i = 0; i < ITERATIONS; i++) {
                    Thread.yield();
                    lock.lock();
                    try {
                        guarded.enter();
                        Thread.yield();
                        guarded.exit();
                    } finally {
                        lock.unlock();
                    }
                    DONE.incrementAndGet();
                    lastProgress = System.nanoTime();
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        return guarded.check(THREADS * ITERATIONS);
    }

    private static void startWatchdog() {
        Thread watchdog = new Thread(() -> {
            for (;;) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
                if (System.nanoTime() - lastProgress > TimeUnit.MILLISECONDS.toNanos(STALL_MILLIS)) {
                    System.out.println("RESULT " + current + " HANG no acquisition for " + STALL_MILLIS + " ms at parallelism 1 ("
                            + DONE.get() + " of " + THREADS * ITERATIONS + " done)");
                    System.out.flush();
                    Runtime.getRuntime().halt(3);
                }
            }
        }, "progress-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }
}
