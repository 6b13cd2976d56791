package io.numaloom.bench.cli;

import io.numaloom.KeyedLock;
import io.numaloom.VnaLock;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import static io.numaloom.bench.cli.MainTest.main;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./numaloom contention} (numaloom-tools' command, which the bench runs) on recordings made
 * here: waits are made certain (the holder keeps the lock until the waiter is parked, then 30 ms
 * more), so counts and order are exact. numaloom-tools' own tests cover the JDK's locks.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ContentionCommandTest {
    static final long HELD_MILLIS = 30;

    @Test
    void summarizesTheMostContendedLocksOfARecording(@TempDir Path dir) throws Exception {
        VnaLock busy = VnaLock.named("orders");
        VnaLock quiet = new VnaLock();
        KeyedLock<String> accounts = KeyedLock.builder().name("accounts").build();
        Path file = dir.resolve("app.jfr");
        try (Recording r = new Recording()) {
            r.enable("io.numaloom.LockContended").withThreshold(Duration.ZERO);
            r.enable("io.numaloom.ConditionAwait").withThreshold(Duration.ZERO);
            r.enable("jdk.ActiveSetting"); // on in JFR's default and profile settings; a bare Recording needs it named
            r.start();
            waitOnce(busy);
            waitOnce(busy);
            waitOnce(quiet);
            waitOnce(accounts.forKey("alice"));
            Condition never = quiet.newCondition();
            quiet.lock();
            try {
                never.await(HELD_MILLIS, TimeUnit.MILLISECONDS);
            } finally {
                quiet.unlock();
            }
            r.stop();
            r.dump(file);
        }
        Path out = dir.resolve("report");
        MainTest.Result res = main("contention", file.toString(), "--out", out.toString());
        assertEquals(0, res.status(), res.err());
        String text = res.out();
        assertTrue(text.contains("4 contended acquisitions and 1 condition waits"), text);
        String busyRow = row(text, "orders ");
        String quietRow = row(text, "VnaLock@" + Integer.toHexString(System.identityHashCode(quiet)));
        assertTrue(text.indexOf(busyRow) < text.indexOf(quietRow), "the longest total wait first:\n" + text);
        assertEquals("2", busyRow.split("\\s+")[1], busyRow);
        assertEquals("1", quietRow.split("\\s+")[1], quietRow);
        assertTrue(Double.parseDouble(busyRow.split("\\s+")[2]) >= 2 * HELD_MILLIS, "total ms: " + busyRow);
        assertTrue(busyRow.contains("100%"), "queued and parked: " + busyRow);
        assertTrue(busyRow.contains(Thread.currentThread().getName()), "the holder: " + busyRow);
        String keyed = "accounts";
        row(text, keyed);
        assertTrue(text.contains("keys of " + keyed + " waited for longest: alice "), "the key by its toString:\n" + text);
        assertTrue(text.lines().findFirst().orElseThrow().contains("thresholds: ConditionAwait 0 ns, LockContended 0 ns"),
                "the thresholds the recording used, from its jdk.ActiveSetting events:\n" + text);
        // Every wait's call site is the waiter's lambda in waitOnce, below numaloom's own frames (for the
        // KeyedLock, KeyLock.lock and KeyedLock's): the recorded stack reaches the test's frame.
        String site = "io.numaloom.bench.cli.ContentionCommandTest.lambda$waitOnce$";
        for (String label : new String[] {busyRow.split("\\s+")[0], quietRow.split("\\s+")[0], keyed}) {
            String sites = text.substring(text.indexOf("  " + label + ": where threads waited"));
            String first = sites.lines().skip(1).findFirst().orElseThrow();
            assertTrue(first.contains(site), label + "'s top call site:\n" + text);
        }
        assertTrue(!text.contains("(no frame outside numaloom"), text);
        assertTrue(row(text.substring(text.indexOf("condition waits on")), "VnaLock@").matches(".*\\s1\\s+\\S+\\s+1$"),
                "one condition wait, timed out:\n" + text);
        String html = Files.readString(out.resolve("contention.html"));
        assertTrue(html.contains(busyRow.split("\\s+")[0]) && html.contains("<svg"), "the histogram, inline:\n" + html);
        assertTrue(html.contains("ContentionCommandTest.lambda$waitOnce$") && html.contains("LockContended 0 ns"), html);
    }

    @Test
    void aRecordingWithoutNumaloomEventsSaysHowToRecordThem(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("empty.jfr");
        try (Recording r = new Recording()) {
            r.enable("jdk.ThreadSleep").withThreshold(Duration.ZERO);
            r.start();
            Thread.sleep(1);
            r.stop();
            r.dump(file);
        }
        MainTest.Result res = main("contention", file.toString());
        assertEquals(0, res.status(), res.err());
        assertTrue(res.out().contains("No io.numaloom events") && res.out().contains("threshold=1ms"), res.out());
        assertTrue(Files.exists(dir.resolve("empty-contention").resolve("contention.html")), "next to the recording by default");
    }

    @Test
    void badInputIsAUsageErrorThatSaysWhy(@TempDir Path dir) throws Exception {
        MainTest.Result missing = main("contention", dir.resolve("nope.jfr").toString());
        assertEquals(2, missing.status());
        assertTrue(missing.err().contains("no such file"), missing.err());
        Path text = Files.writeString(dir.resolve("notes.jfr"), "not a recording");
        MainTest.Result notJfr = main("contention", text.toString());
        assertEquals(2, notJfr.status());
        assertTrue(notJfr.err().contains("cannot read " + text + " as a JFR recording"), notJfr.err());
        MainTest.Result noFile = main("contention");
        assertEquals(2, noFile.status());
        assertTrue(noFile.err().contains("expected a JFR recording"), noFile.err());
        MainTest.Result badTop = main("contention", text.toString(), "--top", "0");
        assertEquals(2, badTop.status());
        assertTrue(badTop.err().contains("--top must be a whole number >= 1, got '0'"), badTop.err());
        assertTrue(main("contention", "--help").out().contains("Usage: ./numaloom contention FILE.jfr"));
        assertTrue(main("contenton").err().contains("did you mean 'contention'"));
    }

    /** The current thread holds {@code lock} while another thread parks on it, then 30 ms more. */
    static void waitOnce(Lock lock) throws InterruptedException {
        lock.lock();
        Thread waiter = Thread.ofVirtual().start(() -> {
            lock.lock();
            lock.unlock();
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (waiter.getState() != Thread.State.WAITING && waiter.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the waiter never parked");
            }
            Thread.sleep(1);
        }
        Thread.sleep(HELD_MILLIS);
        lock.unlock();
        waiter.join();
    }

    static String row(String text, String label) {
        return text.lines().filter(l -> l.startsWith(label)).findFirst()
                .orElseThrow(() -> new AssertionError("no row for " + label + " in:\n" + text));
    }
}
