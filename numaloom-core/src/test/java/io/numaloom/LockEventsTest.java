package io.numaloom;

import jdk.jfr.EventType;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JFR events {@code io.numaloom.LockContended} and {@code io.numaloom.ConditionAwait}, read back
 * from a recording made in the test. Waits are made certain, not timed: the test holds the lock
 * until the waiter is parked, then 30 ms more, so every field below is determined.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockEventsTest {

    static final long HELD_MILLIS = 30;

    @ParameterizedTest(name = "virtual threads: {0}")
    @ValueSource(booleans = {false, true})
    void aContendedAcquisitionIsRecordedWithItsLockOwnerAndWait(boolean virtual, @TempDir Path dir) throws Exception {
        VnaLock lock = VnaLock.withPlacement(2, () -> 1);
        List<RecordedEvent> events = record(dir, LockContendedEvent.NAME, () -> {
            lock.lock();
            Thread waiter = start(virtual, () -> {
                lock.lock();
                lock.unlock();
            });
            awaitParked(waiter);
            Thread.sleep(HELD_MILLIS);
            lock.unlock();
            waiter.join();
        });
        assertEquals(1, events.size(), events.toString());
        RecordedEvent e = events.getFirst();
        assertEquals(VnaLock.class.getName(), e.getClass("lockClass").getName());
        assertEquals(System.identityHashCode(lock), e.getInt("lockIdentity"));
        assertEquals(0, e.getInt("keyHash"));
        assertNull(e.getString("key"), "a plain lock has no key");
        assertEquals(Thread.currentThread().getName(), e.getThread("previousOwner").getJavaName());
        assertEquals(virtual, e.getThread().isVirtual());
        assertEquals(1, e.getInt("waiterQueue"));
        assertEquals(-1, e.getInt("ownerQueue"), "the test's thread took the lock uncontended");
        assertTrue(e.getBoolean("queued"));
        assertTrue(e.getInt("parks") >= 1, e.toString());
        assertTrue(e.getDuration().toMillis() >= HELD_MILLIS, e.getDuration().toString());
        assertNotNull(e.getStackTrace(), "the waiter's stack");
    }

    @Test
    void uncontendedAcquisitionsRecordNothing(@TempDir Path dir) throws Exception {
        VnaLock lock = new VnaLock();
        List<RecordedEvent> events = record(dir, LockContendedEvent.NAME, () -> {
            for (int i = 0; i < 10_000; i++) {
                lock.lock();
                lock.lock(); // re-entry is not contention either
                lock.unlock();
                lock.unlock();
            }
        });
        assertEquals(List.of(), events);
    }

    @Test
    void aContendedKeyIsRecordedWithItsKeyedLockAndKeyHash(@TempDir Path dir) throws Exception {
        KeyedLock<String> locks = KeyedLock.withPlacement(new QueuePlacement() {
            @Override public int queueCount() { return 1; }
            @Override public int currentQueue() { return 0; }
        });
        String key = "user-42";
        List<RecordedEvent> events = record(dir, LockContendedEvent.NAME, () -> {
            locks.lock(key);
            Thread waiter = start(true, () -> {
                locks.lock(new String(key)); // an equal key, not the same object
                locks.unlock(key);
            });
            awaitParked(waiter);
            locks.unlock(key);
            waiter.join();
        });
        assertEquals(1, events.size(), events.toString());
        RecordedEvent e = events.getFirst();
        assertEquals(KeyedLock.class.getName(), e.getClass("lockClass").getName());
        assertEquals(System.identityHashCode(locks), e.getInt("lockIdentity"));
        assertEquals(key.hashCode(), e.getInt("keyHash"));
        assertEquals(key, e.getString("key"), "the key's toString");
    }

    @Test
    void aKeyedLockBuiltWithoutKeysInEventsRecordsOnlyTheKeysHash(@TempDir Path dir) throws Exception {
        KeyedLock<String> locks = KeyedLock.builder().name("secrets").keysInEvents(false).build();
        String key = "token-7f3a";
        List<RecordedEvent> events = record(dir, LockContendedEvent.NAME, () -> contendOnce(locks.forKey(key)));
        assertEquals(1, events.size(), events.toString());
        RecordedEvent e = events.getFirst();
        assertEquals("secrets", e.getString("name"));
        assertEquals(key.hashCode(), e.getInt("keyHash"));
        assertNull(e.getString("key"), "opted out");
        assertTrue(!e.toString().contains(key), e.toString());
    }

    @Test
    void aLongKeyIsCutToSixtyFourCharactersAndAKeysConditionWaitCarriesItsKey(@TempDir Path dir) throws Exception {
        KeyedLock<String> locks = KeyedLock.builder().build();
        String key = "k".repeat(1000);
        Lock keyLock = locks.forKey(key);
        Condition never = keyLock.newCondition();
        List<RecordedEvent> events = record(dir, ConditionAwaitEvent.NAME, () -> {
            keyLock.lock();
            try {
                never.await(1, TimeUnit.MILLISECONDS);
            } finally {
                keyLock.unlock();
            }
        });
        assertEquals(1, events.size(), events.toString());
        String recorded = events.getFirst().getString("key");
        assertEquals(LockEvent.MAX_KEY_CHARS, recorded.length(), recorded);
        assertEquals("k".repeat(LockEvent.MAX_KEY_CHARS - 3) + "...", recorded);
    }

    @Test
    void aKeysStringIsBoundedAndAToStringThatThrowsIsNamedNotThrown() {
        assertEquals("alice", LockEvent.bounded("alice"));
        assertEquals("null", LockEvent.bounded(null));
        assertEquals(42 + "", LockEvent.bounded(42));
        String exact = "x".repeat(LockEvent.MAX_KEY_CHARS);
        assertEquals(exact, LockEvent.bounded(exact));
        // a surrogate pair across the cut is dropped whole, not halved
        String emoji = "x".repeat(LockEvent.MAX_KEY_CHARS - 4) + "\uD83D\uDE00" + "tail";
        assertEquals("x".repeat(LockEvent.MAX_KEY_CHARS - 4) + "...", LockEvent.bounded(emoji));
        Object bad = new Object() {
            @Override public String toString() { throw new IllegalStateException("no"); }
        };
        assertEquals("(toString threw java.lang.IllegalStateException)", LockEvent.bounded(bad));
    }

    @ParameterizedTest(name = "signalled: {0}")
    @ValueSource(booleans = {false, true})
    void aConditionWaitIsRecordedWithItsTimeoutAndOutcome(boolean signalled, @TempDir Path dir) throws Exception {
        VnaLock lock = new VnaLock();
        Condition ready = lock.newCondition();
        boolean[] result = new boolean[1];
        List<RecordedEvent> events = record(dir, ConditionAwaitEvent.NAME, () -> {
            Thread waiter = start(true, () -> {
                lock.lock();
                try {
                    result[0] = ready.await(signalled ? 60_000 : HELD_MILLIS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                } finally {
                    lock.unlock();
                }
            });
            if (signalled) {
                awaitParked(waiter);
                lock.lock();
                try {
                    ready.signal();
                } finally {
                    lock.unlock();
                }
            }
            waiter.join();
        });
        assertEquals(signalled, result[0]);
        assertEquals(1, events.size(), events.toString());
        RecordedEvent e = events.getFirst();
        assertEquals(VnaLock.class.getName(), e.getClass("lockClass").getName());
        assertEquals(System.identityHashCode(lock), e.getInt("lockIdentity"));
        assertEquals(!signalled, e.getBoolean("timedOut"));
        assertEquals(Duration.ofMillis(signalled ? 60_000 : HELD_MILLIS), e.getDuration("timeout"));
    }

    @Test
    void anAwaitUntilTheEndOfTimeRecordsAnInfiniteTimeoutNotAnOverflow(@TempDir Path dir) throws Exception {
        VnaLock lock = new VnaLock();
        Condition ready = lock.newCondition();
        boolean[] result = new boolean[1];
        List<RecordedEvent> events = record(dir, ConditionAwaitEvent.NAME, () -> {
            Thread waiter = start(true, () -> {
                lock.lock();
                try {
                    result[0] = ready.awaitUntil(new java.util.Date(Long.MAX_VALUE));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                } finally {
                    lock.unlock();
                }
            });
            awaitParked(waiter);
            lock.lock();
            try {
                ready.signal();
            } finally {
                lock.unlock();
            }
            waiter.join();
        });
        assertTrue(result[0], "the await was signalled, not timed out");
        assertEquals(1, events.size(), events.toString());
        assertEquals(Long.MAX_VALUE, events.getFirst().getLong("timeout"), "saturated, as an untimed await's");
    }

    @Test
    void theDeadlineOfAwaitUntilIsCountedInNanosecondsWithoutOverflow() {
        assertEquals(Long.MAX_VALUE, VnaCondition.untilDeadlineNanos(Long.MAX_VALUE, 1_700_000_000_000L));
        assertEquals(Long.MAX_VALUE, VnaCondition.untilDeadlineNanos(Long.MAX_VALUE, -5L));
        assertEquals(1_500_000_000L, VnaCondition.untilDeadlineNanos(1_700_000_001_500L, 1_700_000_000_000L));
        assertEquals(0L, VnaCondition.untilDeadlineNanos(1_700_000_000_000L, 1_700_000_000_000L));
        assertEquals(0L, VnaCondition.untilDeadlineNanos(Long.MIN_VALUE, 1_700_000_000_000L));
        assertEquals(0L, VnaCondition.untilDeadlineNanos(0L, 1_700_000_000_000L));
    }

    @Test
    void theDefaultThresholdIsJavaMonitorEntersTwentyMilliseconds() {
        for (Class<? extends jdk.jfr.Event> c : List.of(LockContendedEvent.class, ConditionAwaitEvent.class)) {
            EventType type = EventType.getEventType(c);
            String threshold = type.getSettingDescriptors().stream().filter(d -> d.getName().equals("threshold"))
                    .findFirst().orElseThrow().getDefaultValue();
            assertEquals("20 ms", threshold, c.getName());
            assertTrue(type.getName().startsWith("io.numaloom."), type.getName());
        }
    }

    // ---------------------------------------------------------------------------------------------

    interface Action {
        void run() throws Exception;
    }

    /** Runs {@code action} under a recording of {@code event} with no threshold; returns its events. */
    static List<RecordedEvent> record(Path dir, String event, Action action) throws Exception {
        Path file = dir.resolve("events.jfr");
        try (Recording r = new Recording()) {
            r.enable(event).withThreshold(Duration.ZERO).withStackTrace();
            r.start();
            action.run();
            r.stop();
            r.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals(event))
                .toList();
    }

    /** The current thread holds {@code lock} until a virtual thread is parked on it, then releases it. */
    static void contendOnce(Lock lock) throws InterruptedException {
        lock.lock();
        Thread waiter = start(true, () -> {
            lock.lock();
            lock.unlock();
        });
        awaitParked(waiter);
        lock.unlock();
        waiter.join();
    }

    static Thread start(boolean virtual, Runnable body) {
        return virtual ? Thread.ofVirtual().start(body) : Thread.ofPlatform().start(body);
    }

    /** Until {@code t} is parked (WAITING or TIMED_WAITING): it is then certainly in the slow path. */
    static void awaitParked(Thread t) throws InterruptedException {
        VnaLockTest.awaitCondition(() -> {
            Thread.State s = t.getState();
            return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
        }, t + " to park");
    }

}
