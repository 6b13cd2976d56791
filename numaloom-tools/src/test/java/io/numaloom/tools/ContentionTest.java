package io.numaloom.tools;

import jdk.jfr.Recording;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contention summary of {@link ContendedApp}'s recording, run as a user runs the tools' jar
 * ({@link Main}): numaloom's locks, a {@code ReentrantLock} and {@code synchronized} side by side,
 * each with the application's method as its call site, keys by name unless hidden, and the
 * condition waits in the page. Every count below is exact: the application's waits are certain.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ContentionTest {
    static final String APP = ContendedApp.class.getName() + ".";

    @TempDir
    static Path dir;
    static Path recording;

    @BeforeAll
    static void record() throws Exception {
        recording = ContendedApp.record(dir.resolve("app.jfr"));
    }

    @Test
    void namesEveryKindOfLockWithTheApplicationsCallSite() throws Exception {
        Path out = dir.resolve("report");
        Result res = main("contention", recording.toString(), "--out", out.toString());
        assertEquals(0, res.status(), res.err());
        String text = res.out();
        assertTrue(text.startsWith(recording + ": 3 contended acquisitions and 1 condition waits of numaloom locks"), text);
        String table = text.substring(text.indexOf("Every lock threads waited for"));
        // kind, lock, waits, total, p99, max, the longest call site
        assertTrue(row(table, "numaloom", "orders").matches("numaloom +orders +1 .*  " + quote(APP + "takeOrder:") + "\\d+"),
                table);
        assertTrue(row(table, "numaloom", "accounts").endsWith(APP + "payAccount:" + line(table, "payAccount")), table);
        assertTrue(row(table, "park", "ReentrantLock").matches("park +ReentrantLock +1 .*  " + quote(APP + "postToLedger:") + "\\d+"),
                table);
        String monitor = ContendedApp.Inventory.class.getName();
        assertTrue(row(table, "synchronized", monitor).matches("synchronized +" + quote(monitor) + " +1 .*  "
                + quote(APP + "countStock:") + "\\d+"), table);
        // numaloom's own parks (its waiters are platform threads here) are numaloom's rows, not parks as well
        String parks = section(text, "JDK locks and other parks");
        assertFalse(parks.contains("takeOrder") || parks.contains("payAccount") || parks.contains("readSecret"), parks);
        assertFalse(parks.contains("io.numaloom.VnaLock") || parks.contains("(no blocker)"), parks);
        // the holder of the monitor, and the keys: by name, or by hash for the lock that opted out
        assertTrue(row(section(text, "synchronized (jdk.JavaMonitorEnter)"), monitor).contains(Thread.currentThread().getName()),
                text);
        assertTrue(text.contains("keys of accounts waited for longest: " + ContendedApp.ACCOUNT_KEY + " "), text);
        assertTrue(text.contains("keys of secrets waited for longest: hash " + ContendedApp.SECRET_KEY.hashCode() + " "), text);
        assertFalse(text.contains(ContendedApp.SECRET_KEY), "keysInEvents(false): the key is not in the recording\n" + text);
        // condition waits: numaloom's and the ReentrantLock's, with where they were awaited
        assertTrue(row(section(text, "condition waits on"), "orders").matches("orders +1 +\\S+ +1"), text);
        assertTrue(text.contains("  orders: where threads awaited a condition (waits, total ms)\n          1 ")
                && text.contains(APP + "awaitShipped:"), text);
        assertTrue(section(text, "Condition waits of AQS locks").contains(APP + "awaitBalanced:"), text);

        String html = Files.readString(out.resolve(ContentionReport.PAGE));
        assertTrue(html.contains("<h2>Condition waits</h2>"), html);
        String conditions = html.substring(html.indexOf("<h2>Condition waits</h2>"));
        assertTrue(conditions.contains("<td>orders</td><td>1</td>") && conditions.contains(APP + "awaitShipped:")
                && conditions.contains("AQS Condition") && conditions.contains(APP + "awaitBalanced:"), conditions);
        for (String expected : new String[] {"<svg", APP + "takeOrder:", APP + "postToLedger:", APP + "countStock:",
                "ContendedApp$Inventory", "ReentrantLock", ContendedApp.ACCOUNT_KEY}) {
            assertTrue(html.contains(expected), expected + " in:\n" + html);
        }
        assertFalse(html.contains(ContendedApp.SECRET_KEY), html);
    }

    @Test
    void noKeysShowsEveryKeyByHash() throws Exception {
        Path out = dir.resolve("no-keys");
        Result res = main("contention", recording.toString(), "--no-keys", "--out", out.toString());
        assertEquals(0, res.status(), res.err());
        assertTrue(res.out().contains("keys of accounts waited for longest: hash " + ContendedApp.ACCOUNT_KEY.hashCode() + " "),
                res.out());
        assertTrue(res.out().contains("keys hidden (--no-keys)"), res.out());
        assertFalse(res.out().contains(ContendedApp.ACCOUNT_KEY + " "), res.out());
        assertFalse(Files.readString(out.resolve(ContentionReport.PAGE)).contains("Keys of accounts waited for longest (ms): alice"));
    }

    @Test
    void aRecordingWithoutNumaloomEventsStillShowsTheJdksLocksAndSaysHowToRecord(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("plain.jfr");
        Plain monitor = new Plain();
        try (Recording r = new Recording()) {
            r.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ZERO).withStackTrace();
            r.start();
            Thread waiter;
            synchronized (monitor) {
                waiter = Thread.ofPlatform().start(() -> enterPlainMonitor(monitor));
                while (waiter.getState() != Thread.State.BLOCKED) {
                    Thread.sleep(1);
                }
            }
            waiter.join();
            r.stop();
            r.dump(file);
        }
        Result res = main("contention", file.toString());
        assertEquals(0, res.status(), res.err());
        assertTrue(res.out().contains("No io.numaloom events") && res.out().contains("threshold=1ms"), res.out());
        assertTrue(row(res.out(), "synchronized", Plain.class.getName()).endsWith(getClass().getName() + ".enterPlainMonitor:"
                + line(res.out(), "enterPlainMonitor")), res.out());
        assertTrue(Files.exists(tmp.resolve("plain-contention").resolve(ContentionReport.PAGE)), "next to the recording by default");
        assertFalse(res.out().contains("Virtual threads ran"), "platform threads only: " + res.out());
    }

    /**
     * A recording in which virtual threads waited says, beside the table, what the JDK does not record for them
     * (no jdk.ThreadPark, no jdk.JavaMonitorEnter) and how to see it.
     */
    @Test
    void aRecordingWithVirtualThreadsSaysWhatTheJdkDoesNotRecordForThem(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("virtual.jfr");
        io.numaloom.VnaLock lock = io.numaloom.VnaLock.named("vt");
        try (Recording r = new Recording()) {
            r.enable("io.numaloom.LockContended").withThreshold(Duration.ZERO).withStackTrace();
            r.enable("jdk.ThreadPark").withThreshold(Duration.ZERO).withStackTrace();
            r.start();
            lock.lock();
            Thread waiter = Thread.ofVirtual().start(() -> {
                lock.lock();
                lock.unlock();
            });
            while (!lock.hasQueuedThread(waiter)) {
                Thread.sleep(1);
            }
            lock.unlock();
            waiter.join();
            r.stop();
            r.dump(file);
        }
        Result res = main("contention", file.toString(), "--out", tmp.resolve("report").toString());
        assertEquals(0, res.status(), res.err());
        assertTrue(res.out().contains(Contention.VIRTUAL_THREADS_NOTE), res.out());
        assertTrue(Files.readString(tmp.resolve("report").resolve(ContentionReport.PAGE)).contains("Virtual threads ran in this recording"));
    }

    /** A monitor of a class of its own: its row holds no other monitor's waits. */
    static final class Plain {}

    static void enterPlainMonitor(Plain monitor) {
        synchronized (monitor) {
            monitor.hashCode();
        }
    }

    @Test
    void badInputIsAUsageErrorThatSaysWhy(@TempDir Path tmp) throws Exception {
        Result missing = main("contention", tmp.resolve("nope.jfr").toString());
        assertEquals(2, missing.status());
        assertTrue(missing.err().contains("no such file"), missing.err());
        Path text = Files.writeString(tmp.resolve("notes.jfr"), "not a recording");
        Result notJfr = main("contention", text.toString());
        assertEquals(2, notJfr.status());
        assertTrue(notJfr.err().contains("cannot read " + text + " as a JFR recording"), notJfr.err());
        Result noFile = main("contention");
        assertEquals(2, noFile.status());
        assertTrue(noFile.err().contains("expected a JFR recording"), noFile.err());
        Result badTop = main("contention", text.toString(), "--top", "x");
        assertEquals(2, badTop.status());
        assertTrue(badTop.err().contains("--top must be a whole number >= 1, got 'x'"), badTop.err());
        Result badOption = main("contention", text.toString(), "--keys");
        assertEquals(2, badOption.status());
        assertTrue(badOption.err().contains("unexpected argument '--keys'") && badOption.err().contains("contention --help"),
                badOption.err());
        Result unknown = main("contentoin");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().contains("unknown command 'contentoin'; the command is: contention"), unknown.err());
        assertEquals(2, main().status());
        assertTrue(main("contention", "--help").out().contains("contention FILE.jfr [--out DIR] [--top N] [--no-keys]"));
    }

    /**
     * A damaged recording is one line on stderr that names the file and says it is damaged, with the exit
     * status of any unreadable file (2), whatever the JDK's parser throws: one event type's name damaged (the
     * parser's {@code InternalError}: "... is not a valid Java type"), and random bytes flipped one at a time
     * (seeded), of which some damage the metadata and some leave the recording readable.
     */
    @Test
    void aDamagedRecordingIsOneLineThatSaysSo(@TempDir Path tmp) throws Exception {
        byte[] good = Files.readAllBytes(recording);
        byte[] name = "io.numaloom.LockContended".getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(good, name);
        assertTrue(at >= 0, "the recording names io.numaloom.LockContended");
        byte[] renamed = good.clone();
        renamed[at + 2] = ' '; // "io numaloom.LockContended"
        Path damaged = Files.write(tmp.resolve("renamed.jfr"), renamed);
        Result r = main("contention", damaged.toString(), "--out", tmp.resolve("renamed-out").toString());
        assertEquals(2, r.status(), r.err());
        assertOneLineNaming(r.err(), damaged);
        assertTrue(r.err().contains("damaged"), r.err());

        java.util.Random random = new java.util.Random(72);
        int unreadable = 0;
        for (int i = 0; i < 60; i++) {
            byte[] flipped = good.clone();
            int pos = random.nextInt(flipped.length);
            flipped[pos] ^= (byte) (1 + random.nextInt(255));
            Path file = Files.write(tmp.resolve("flip-" + i + ".jfr"), flipped);
            Result f = main("contention", file.toString(), "--out", tmp.resolve("flip-" + i + "-out").toString());
            if (f.status() == 0) {
                continue; // the flip hit data that the summary does not need, or changed a value
            }
            unreadable++;
            assertEquals(2, f.status(), "byte " + pos + ": " + f.err());
            assertOneLineNaming(f.err(), file);
        }
        assertTrue(unreadable > 0, "no flipped byte made the recording unreadable: the loop tested nothing");
    }

    private static void assertOneLineNaming(String err, Path file) {
        assertEquals(1, err.lines().count(), "one line, no stack trace: " + err);
        assertTrue(err.startsWith("numaloom contention: cannot read " + file + " as a JFR recording"), err);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void jdkLockClassesAreNamedAsUsersKnowThem() {
        assertEquals("ReentrantLock", Contention.jdkLabel(Contention.Kind.PARK, "java.util.concurrent.locks.ReentrantLock$NonfairSync"));
        assertEquals("ReentrantLock (fair)", Contention.jdkLabel(Contention.Kind.PARK, "java.util.concurrent.locks.ReentrantLock$FairSync"));
        assertEquals("ReentrantReadWriteLock",
                Contention.jdkLabel(Contention.Kind.PARK, "java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync"));
        assertEquals("CountDownLatch", Contention.jdkLabel(Contention.Kind.PARK, "java.util.concurrent.CountDownLatch$Sync"));
        assertEquals("FutureTask", Contention.jdkLabel(Contention.Kind.PARK, "java.util.concurrent.FutureTask"));
        assertEquals("com.acme.Gate$Sync", Contention.jdkLabel(Contention.Kind.PARK, "com.acme.Gate$Sync"));
        assertEquals("AQS Condition", Contention.jdkLabel(Contention.Kind.CONDITION,
                "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject"));
    }

    @Test
    void percentilesAreByNearestRank() {
        Waits w = new Waits();
        assertEquals(0, w.percentileMillis(50));
        for (long ms : new long[] {5, 1, 4, 2, 3}) {
            w.add(ms * 1_000_000, "site", null);
        }
        assertEquals(3, w.percentileMillis(50));
        assertEquals(5, w.percentileMillis(99));
        assertEquals(1, w.percentileMillis(1));
        assertEquals(5, w.maxMillis());
        assertEquals(15, w.totalMillis());
    }

    // ---------------------------------------------------------------------------------------------

    record Result(int status, String out, String err) {}

    static Result main(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The first line of {@code text} whose first words are {@code words}, separated by spaces. */
    static String row(String text, String... words) {
        String pattern = String.join(" +", java.util.Arrays.stream(words).map(ContentionTest::quote).toList()) + "( .*)?";
        return text.lines().filter(l -> l.matches(pattern)).findFirst()
                .orElseThrow(() -> new AssertionError("no row " + String.join(" ", words) + " in:\n" + text));
    }

    /** {@code text} from the line that starts with {@code title} to the next blank line. */
    static String section(String text, String title) {
        int from = text.indexOf("\n" + title);
        assertTrue(from >= 0, "no section " + title + " in:\n" + text);
        int to = text.indexOf("\n\n", from + 1);
        return text.substring(from + 1, to < 0 ? text.length() : to);
    }

    /** The line number the summary gives for {@code method}'s call site. */
    static String line(String text, String method) {
        var m = java.util.regex.Pattern.compile(quote(method) + ":(\\d+)").matcher(text);
        assertTrue(m.find(), method + " in:\n" + text);
        return m.group(1);
    }

    static String quote(String s) {
        return java.util.regex.Pattern.quote(s);
    }
}
