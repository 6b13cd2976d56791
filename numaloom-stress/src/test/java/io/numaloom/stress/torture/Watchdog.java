package io.numaloom.stress.torture;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * Watches a progress count and, when it stands still for the stall time, writes a thread dump of every thread,
 * virtual ones included ({@link HotSpotDiagnosticMXBean#dumpThreads}, the format of
 * {@code jcmd <pid> Thread.dump_to_file}), prints its beginning, and makes {@link #check()} fail the test.
 * Runs on a platform thread, so it gets a CPU even when every carrier of the virtual-thread scheduler is stuck.
 * Public for the soak ({@code io.numaloom.stress.soak}), which watches the slowest of its threads.
 */
public final class Watchdog implements AutoCloseable {

    private final String name;
    private final LongSupplier progress;
    private final Duration stallTime;
    private final Path dumpDir;
    private final Thread thread;
    private volatile String stall;
    private volatile Path dumpFile;

    Watchdog(String name, LongAdder progress, Duration stallTime, Path dumpDir) {
        this(name, (LongSupplier) progress::sum, stallTime, dumpDir);
    }

    /**
     * Watches any progress count, e.g. the least progress of several threads (so that one stuck thread is a stall
     * even while the others go on).
     */
    public Watchdog(String name, LongSupplier progress, Duration stallTime, Path dumpDir) {
        this.name = name;
        this.progress = progress;
        this.stallTime = stallTime;
        this.dumpDir = dumpDir;
        this.thread = Thread.ofPlatform().daemon().name(name + "-watchdog").start(this::watch);
    }

    private void watch() {
        long last = -1;
        long since = System.nanoTime();
        while (!Thread.currentThread().isInterrupted()) {
            long now = progress.getAsLong();
            if (now != last) {
                last = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > stallTime.toNanos()) {
                stall = "no operation completed for " + stallTime.toSeconds() + " s (" + now + " done); " + dump();
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Writes a thread dump now, for a failure that is not a stall (a violation seen by a thread), and prints its
     * beginning; returns where it is, or why there is none.
     */
    public String dumpNow() {
        return dump();
    }

    private String dump() {
        Path file = dumpDir.resolve(name + "-p" + System.getProperty("jdk.virtualThreadScheduler.parallelism", "default")
                + "-" + Instant.now().toEpochMilli() + ".txt");
        try {
            Files.createDirectories(dumpDir);
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
            dumpFile = file;
            String excerpt = Files.readAllLines(file).stream().limit(150).collect(Collectors.joining("\n"));
            System.out.println(name + " watchdog: full thread dump in " + file + "; it begins:\n" + excerpt);
            return "thread dump of all threads, virtual ones included, in " + file;
        } catch (IOException | RuntimeException e) {
            return "thread dump failed: " + e;
        }
    }

    /** The thread dump, once the watchdog has seen a stall; null before. */
    Path dumpFile() {
        return dumpFile;
    }

    /** Whether the watchdog has seen a stall. */
    public boolean stalled() {
        return stall != null;
    }

    /** Throws {@link AssertionError} if the watchdog has seen a stall. */
    public void check() {
        String s = stall;
        if (s != null) {
            throw new AssertionError(name + ": " + s);
        }
    }

    @Override
    public void close() {
        thread.interrupt();
        check();
    }
}
