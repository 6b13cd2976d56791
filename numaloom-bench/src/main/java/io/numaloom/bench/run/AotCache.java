package io.numaloom.bench.run;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The measured JVMs' ahead-of-time class cache (JEP 483, JDK 24+): the classes a point's JVM loads, already
 * parsed and linked, shared by every point whose JVMs start with the same arguments. Most of a short point is its
 * JVM's start: on 2 cores one run (commit 3e56956, not re-measured since) read a point's JVM starting in about
 * 0.6 s with the cache instead of 1.0 s; see docs/measurements.md, entry 45.
 *
 * <p>Per distinct argument list, the first point that needs it pays for it once: a training JVM runs that point
 * with {@code -XX:AOTMode=record} (one round, not measured), then a JVM of {@code -XX:AOTMode=create} writes the
 * cache, about 3 s in all; every later measured JVM of those arguments starts with {@code -XX:AOTCache}.
 *
 * <p><b>What it changes in a measurement: the first warm-up round's class loading, nothing after.</b> Training
 * records no method profiles ({@code -XX:-AOTRecordTraining}), so the cache holds classes, not profiles or code: the
 * JIT compiles the measured code from the measured JVM's own profiles, as without the cache, and no point
 * inherits the profile of the point that trained it.
 *
 * <p>A cache that cannot be made (a JVM without the feature, a training JVM that fails to start or record, directories
 * on the class path as when run from an IDE's build output rather than the bench jar) leaves the points of those
 * arguments to start without one, and the run says so once. A training run in which the point itself fails (its
 * report names the error: an exception, a failed check, a round's timeout) fails the point at once: its measured JVMs
 * would fail the same way, a section that never returns after another whole timeout. Arguments that already choose
 * a class-data archive ({@code -XX:AOT...}, {@code -XX:SharedArchiveFile}, {@code -Xshare},
 * {@code -XX:±AutoCreateSharedArchive}) are left as they are. The caches live in one directory of the run, which the
 * run deletes when it ends.
 */
final class AotCache {
    /**
     * Runs the training JVM: one round of a point, in a JVM started with {@code jvmArgs}, its output in {@code log}. A
     * {@link PointExecutor.PointFailedException} ends the point (the point itself failed in it, or the run is
     * stopping); any other exception leaves the point to start without a cache.
     */
    @FunctionalInterface
    interface Training {
        void run(List<String> jvmArgs, Path log) throws Exception;
    }

    /** The longest the JVM that writes a cache may take. */
    static final long CREATE_TIMEOUT_SECONDS = 120;

    private static final List<String> NO_PROFILES = List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:-AOTRecordTraining");

    private final Path dir;
    private final String java;
    private final String classPath;
    private final Consumer<String> notices;
    private final ChildProcesses children;
    private final Set<String> failed = new HashSet<>();
    private final List<String> directories;

    /**
     * @param dir       where the caches and their training logs go (created when first needed)
     * @param java      the {@code java} launcher of the measured JVMs
     * @param classPath the measured JVMs' class path
     * @param notices   where to say that a cache could not be made
     */
    AotCache(Path dir, String java, String classPath, Consumer<String> notices) {
        this(dir, java, classPath, notices, new ChildProcesses());
    }

    /** @param children what starts the JVM that writes a cache, and refuses to once the run is stopping */
    AotCache(Path dir, String java, String classPath, Consumer<String> notices, ChildProcesses children) {
        this.dir = dir;
        this.java = java;
        this.classPath = classPath;
        this.notices = notices;
        this.children = children;
        this.directories = Arrays.stream(classPath.split(File.pathSeparator)).filter(e -> Files.isDirectory(Path.of(e))).toList();
    }

    /** A cache for the JVMs of this JVM's launcher and class path, as JMH forks them. */
    static AotCache forForksOfThisJvm(Path dir, Consumer<String> notices, ChildProcesses children) {
        return new AotCache(dir, Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                System.getProperty("java.class.path"), notices, children);
    }

    /**
     * The arguments to start a measured JVM with: {@code jvmArgs} and the cache made for them, training and
     * writing it first if this is the first point that needs it; {@code jvmArgs} alone when they choose their own
     * archive or the cache could not be made.
     *
     * @throws PointExecutor.PointFailedException if the training ended the point ({@link Training}), or the run is
     *         stopping
     */
    List<String> jvmArgs(List<String> jvmArgs, Training training) throws InterruptedException, PointExecutor.PointFailedException {
        if (choosesArchive(jvmArgs)) {
            return jvmArgs;
        }
        String key = key(jvmArgs);
        Path cache = dir.resolve(key + ".aot");
        if (!Files.isRegularFile(cache) && (failed.contains(key) || !make(jvmArgs, key, cache, training))) {
            failed.add(key);
            return jvmArgs;
        }
        List<String> args = new ArrayList<>(jvmArgs);
        args.add("-XX:AOTCache=" + cache.toAbsolutePath());
        return List.copyOf(args);
    }

    /** Whether the arguments already decide about class-data sharing. */
    static boolean choosesArchive(List<String> jvmArgs) {
        return jvmArgs.stream().anyMatch(a -> a.startsWith("-XX:AOT") || a.startsWith("-XX:SharedArchiveFile")
                || a.startsWith("-Xshare") || a.endsWith("AutoCreateSharedArchive") || a.startsWith("-XX:ArchiveClassesAtExit"));
    }

    /** Trains and writes the cache of these arguments; false (and one notice) if it cannot be made. */
    private boolean make(List<String> jvmArgs, String key, Path cache, Training training)
            throws InterruptedException, PointExecutor.PointFailedException {
        if (!directories.isEmpty()) {
            return cannotMake("the class path holds directories, which a class cache cannot hold: " + String.join(", ", directories));
        }
        Path configuration = dir.resolve(key + ".aotconf");
        Path trainingLog = dir.resolve(key + "-training.log");
        Path createLog = dir.resolve(key + "-create.log");
        try {
            Files.createDirectories(dir);
            List<String> record = new ArrayList<>(jvmArgs);
            record.addAll(NO_PROFILES);
            record.add("-XX:AOTMode=record");
            record.add("-XX:AOTConfiguration=" + configuration.toAbsolutePath());
            record.add(errorFile());
            training.run(List.copyOf(record), trainingLog);
            if (!Files.isRegularFile(configuration)) {
                return cannotMake("the training JVM wrote no " + configuration.getFileName() + " (log: " + trainingLog + ")");
            }
            int exit = create(jvmArgs, configuration, cache, createLog);
            if (exit != 0 || !Files.isRegularFile(cache)) {
                return cannotMake("writing it " + (exit < 0 ? "took over " + CREATE_TIMEOUT_SECONDS + " s" : "failed, exit code " + exit)
                        + " (log: " + createLog + ")");
            }
            Files.deleteIfExists(configuration);
            return true;
        } catch (InterruptedException | PointExecutor.PointFailedException e) {
            throw e;
        } catch (ChildProcesses.StoppingException e) {
            throw new PointExecutor.PointFailedException(e.getMessage(), e);
        } catch (Exception e) {
            return cannotMake(e.getMessage() != null ? e.getMessage().lines().findFirst().orElse("") : e.toString());
        }
    }

    /** Runs the JVM that writes the cache; its exit code, or -1 if it timed out. */
    private int create(List<String> jvmArgs, Path configuration, Path cache, Path log)
            throws IOException, InterruptedException, ChildProcesses.StoppingException {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmArgs);
        command.addAll(NO_PROFILES);
        command.add("-XX:AOTMode=create");
        command.add("-XX:AOTConfiguration=" + configuration.toAbsolutePath());
        command.add("-XX:AOTCache=" + cache.toAbsolutePath());
        command.add(errorFile());
        command.add("-cp");
        command.add(classPath);
        Process p = children.start(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()));
        try {
            if (!p.waitFor(CREATE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }

    /**
     * Where the recording and writing JVMs put a crash report: with the caches, in the run's work directory, not in the
     * directory the bench was started from. JDK 25's cache writer has crashed when a stop's SIGTERM reached it.
     */
    private String errorFile() {
        return "-XX:ErrorFile=" + dir.toAbsolutePath().resolve("hs_err_pid%p.log");
    }

    private boolean cannotMake(String why) {
        notices.accept("measured JVMs start without a class cache (" + why + "); their points are measured as usual, "
                + "only their JVMs start slower");
        return false;
    }

    /**
     * The file name of the cache of these arguments: a hash of them, the launcher and the class path with each
     * entry's size and modification time (a rebuilt jar, or a resumed run on another JDK, gets a new cache).
     */
    private String key(List<String> jvmArgs) {
        StringBuilder sb = new StringBuilder(java).append('\n').append(String.join("\n", jvmArgs)).append('\n');
        for (String entry : classPath.split(File.pathSeparator)) {
            Path p = Path.of(entry);
            sb.append(entry).append(' ');
            try {
                sb.append(Files.size(p)).append(' ').append(Files.getLastModifiedTime(p).toMillis());
            } catch (IOException | RuntimeException e) {
                sb.append('-');
            }
            sb.append('\n');
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
