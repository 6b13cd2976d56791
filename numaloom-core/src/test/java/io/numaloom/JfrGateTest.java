package io.numaloom;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link JfrGate}: in a JVM that never records, contended acquisitions and condition waits leave the
 * JFR event classes uninitialized, so the first contention does not build JFR's metadata (about 85 ms);
 * a recording started later still gets the events. Each case runs {@link Driver} in a fresh child JVM
 * (a JVM cannot forget that it initialized a class) with {@code -Xlog:class+init}, which names every
 * class as it is initialized.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JfrGateTest {

    private static final String LOCK_EVENT = "Initializing 'io/numaloom/LockContendedEvent'";
    private static final String AWAIT_EVENT = "Initializing 'io/numaloom/ConditionAwaitEvent'";
    private static final String METADATA = "Initializing 'jdk/jfr/internal/MetadataRepository'";

    @Test
    void contentionWithoutARecordingLeavesJfrAlone() throws Exception {
        String out = runDriver("contend");
        assertTrue(out.contains("contended: ok"), out);
        assertFalse(out.contains(LOCK_EVENT), "LockContendedEvent initialized without a recording:\n" + out);
        assertFalse(out.contains(AWAIT_EVENT), "ConditionAwaitEvent initialized without a recording:\n" + out);
        assertFalse(out.contains(METADATA), "JFR's metadata built without a recording:\n" + out);
    }

    @Test
    void aRecordingStartedAfterTheFirstContentionStillGetsTheEvents() throws Exception {
        String out = runDriver("contend", "record");
        assertTrue(out.contains("contended: ok"), out);
        assertTrue(out.contains("recorded: 1 LockContended, 1 ConditionAwait"), out);
    }

    private static String runDriver(String... phases) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.add("-Xlog:class+init=info:stdout");
        cmd.add("-cp");
        cmd.add(root(Driver.class) + File.pathSeparator + root(VnaLock.class));
        cmd.add(Driver.class.getName());
        cmd.addAll(List.of(phases));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] bytes = p.getInputStream().readAllBytes();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("the child JVM did not finish: " + String.join(" ", cmd));
        }
        String out = new String(bytes, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static String root(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    /** The child: "contend" makes a lock, a key and a condition wait contended; "record" then does it under a recording. */
    public static final class Driver {
        public static void main(String[] args) throws Exception {
            for (String phase : args) {
                switch (phase) {
                    case "contend" -> {
                        contendOnce();
                        System.out.println("contended: ok");
                    }
                    case "record" -> record();
                    default -> throw new IllegalArgumentException("unknown phase " + phase);
                }
            }
        }

        /** One contended lock(), one contended lock(key) and one condition wait, each certainly in its slow path. */
        static void contendOnce() throws Exception {
            VnaLock lock = new VnaLock();
            contendedLock(lock);
            KeyedLock<String> keys = new KeyedLock<>();
            keys.lock("k");
            Thread keyWaiter = Thread.ofPlatform().start(() -> {
                keys.lock("k");
                keys.unlock("k");
            });
            awaitParked(keyWaiter);
            keys.unlock("k");
            keyWaiter.join();
            timedAwait(lock);
        }

        /** A waiter that parks on {@code lock} while this thread holds it. */
        static void contendedLock(VnaLock lock) throws InterruptedException {
            lock.lock();
            Thread waiter = Thread.ofPlatform().start(() -> {
                lock.lock();
                lock.unlock();
            });
            awaitParked(waiter);
            lock.unlock();
            waiter.join();
        }

        /** A condition wait of 1 ms that times out. */
        static void timedAwait(VnaLock lock) throws InterruptedException {
            Condition c = lock.newCondition();
            lock.lock();
            try {
                c.awaitNanos(TimeUnit.MILLISECONDS.toNanos(1));
            } finally {
                lock.unlock();
            }
        }

        /** Until {@code t} parks (the child has no JUnit): it is then certainly in the slow path. */
        static void awaitParked(Thread t) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(t + " never parked");
                }
                Thread.sleep(1);
            }
        }

        /** Starts a recording with both events at threshold 0, contends again, and counts what it got. */
        static void record() throws Exception {
            Path file = Files.createTempFile("jfr-gate", ".jfr");
            try (Recording r = new Recording()) {
                r.enable(LockContendedEvent.NAME).withThreshold(Duration.ZERO);
                r.enable("io.numaloom.ConditionAwait").withThreshold(Duration.ZERO);
                r.start();
                VnaLock lock = new VnaLock();
                contendedLock(lock);
                timedAwait(lock);
                r.stop();
                r.dump(file);
            }
            long contended = 0;
            long awaits = 0;
            for (var e : RecordingFile.readAllEvents(file)) {
                String name = e.getEventType().getName();
                if (name.equals(LockContendedEvent.NAME)) {
                    contended++;
                } else if (name.equals("io.numaloom.ConditionAwait")) {
                    awaits++;
                }
            }
            Files.delete(file);
            System.out.println("recorded: " + contended + " LockContended, " + awaits + " ConditionAwait");
        }
    }
}
