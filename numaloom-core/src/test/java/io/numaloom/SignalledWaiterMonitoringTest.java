package io.numaloom;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A signalled condition waiter is queued for the lock from the moment {@code signal()} returns,
 * as {@code ReentrantLock} reports it (issue 44): {@code hasQueuedThread}, {@code hasQueuedThreads},
 * {@code getQueueLength} and {@code getQueuedThreads} count it until it holds the lock again, and
 * the condition no longer does. Each scenario runs on {@code ReentrantLock} first and on the lock
 * under test second, and the two must report the same at every step.
 */
@Timeout(60)
class SignalledWaiterMonitoringTest {

    /**
     * The monitoring methods of one lock and one of its conditions, whichever class has them (the three classes
     * share no interface for them), each answered by the lock's own method.
     */
    record Monitored(Lock lock, Condition condition, Predicate<Thread> queued, BooleanSupplier anyQueued,
                     IntSupplier queueLength, Supplier<Collection<Thread>> queuedThreads, BooleanSupplier waiters,
                     IntSupplier waitQueueLength) {
        boolean hasQueuedThread(Thread t) { return queued.test(t); }
        boolean hasQueuedThreads() { return anyQueued.getAsBoolean(); }
        int getQueueLength() { return queueLength.getAsInt(); }
        Collection<Thread> getQueuedThreads() { return queuedThreads.get(); }
        boolean hasWaiters() { return waiters.getAsBoolean(); }
        int getWaitQueueLength() { return waitQueueLength.getAsInt(); }
    }

    /** ReentrantLock, with its protected getQueuedThreads opened. */
    static final class OpenReentrantLock extends ReentrantLock {
        @Override
        public Collection<Thread> getQueuedThreads() {
            return super.getQueuedThreads();
        }
    }

    static Monitored reentrant() {
        OpenReentrantLock l = new OpenReentrantLock();
        Condition c = l.newCondition();
        return new Monitored(l, c, l::hasQueuedThread, l::hasQueuedThreads, l::getQueueLength, l::getQueuedThreads,
                () -> l.hasWaiters(c), () -> l.getWaitQueueLength(c));
    }

    static Monitored vna(VnaLock l) {
        Condition c = l.newCondition();
        return new Monitored(l, c, l::hasQueuedThread, l::hasQueuedThreads, l::getQueueLength, l::getQueuedThreads,
                () -> l.hasWaiters(c), () -> l.getWaitQueueLength(c));
    }

    static Monitored key(KeyedLock<String> keyed, String key) {
        KeyedLock<String>.KeyLock l = keyed.forKey(key);
        Condition c = l.newCondition();
        return new Monitored(l, c, l::hasQueuedThread, l::hasQueuedThreads, l::getQueueLength, l::getQueuedThreads,
                () -> l.hasWaiters(c), () -> l.getWaitQueueLength(c));
    }

    static Stream<Arguments> locks() {
        List<Arguments> args = new ArrayList<>();
        for (boolean virtual : new boolean[] {true, false}) {
            args.add(Arguments.of("VnaLock", virtual));
            args.add(Arguments.of("VnaLock, 2 queues", virtual));
            args.add(Arguments.of("KeyedLock key", virtual));
        }
        return args.stream();
    }

    static Monitored create(String name) {
        return switch (name) {
            case "VnaLock" -> vna(new VnaLock());
            case "VnaLock, 2 queues" -> vna(VnaLockTest.spread(2));
            case "KeyedLock key" -> key(KeyedLock.<String>builder().build(), "k");
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** How each kind of await is entered by the waiters: every one must be reported after its signal. */
    enum AwaitKind {
        AWAIT, AWAIT_UNINTERRUPTIBLY, AWAIT_NANOS, AWAIT_UNTIL
    }

    @ParameterizedTest(name = "{0}, virtual {1}")
    @MethodSource("locks")
    void aSignalledWaiterIsQueuedForTheLockAsInReentrantLock(String name, boolean virtual) throws Exception {
        List<String> expected = scenario(reentrant(), virtual);
        List<String> actual = scenario(create(name), virtual);
        assertEquals(expected, actual, "what ReentrantLock reports, step by step, against " + name);
    }

    /**
     * Four waiters, one per kind of await, queue on the condition in order. The owner then
     * signals one (the first), then all, and releases; every step records what the monitoring
     * methods answer, with the threads named by their index.
     */
    static List<String> scenario(Monitored m, boolean virtual) throws Exception {
        Lock lock = m.lock();
        Condition c = m.condition();
        AwaitKind[] kinds = AwaitKind.values();
        Thread[] waiters = new Thread[kinds.length];
        CountDownLatch done = new CountDownLatch(kinds.length);
        for (int i = 0; i < kinds.length; i++) {
            AwaitKind kind = kinds[i];
            Thread.Builder b = virtual ? Thread.ofVirtual() : Thread.ofPlatform();
            waiters[i] = b.name("waiter-" + i).start(() -> {
                lock.lock();
                try {
                    switch (kind) {
                        case AWAIT -> c.await();
                        case AWAIT_UNINTERRUPTIBLY -> c.awaitUninterruptibly();
                        case AWAIT_NANOS -> c.awaitNanos(TimeUnit.MINUTES.toNanos(5));
                        case AWAIT_UNTIL -> c.awaitUntil(new java.util.Date(System.currentTimeMillis() + 300_000));
                    }
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                } finally {
                    lock.unlock();
                    done.countDown();
                }
            });
            int waiting = i + 1;
            VnaLockMonitoringTest.await(() -> waitQueueLength(m) == waiting, "waiter " + waiting + " awaits");
        }
        Function<Thread, String> nameOf = t -> {
            for (int i = 0; i < waiters.length; i++) {
                if (waiters[i] == t) {
                    return "waiter-" + i;
                }
            }
            return String.valueOf(t);
        };
        List<String> steps = new ArrayList<>();
        lock.lock();
        try {
            steps.add(observe("before any signal", m, waiters, nameOf));
            c.signal();
            steps.add(observe("after signal()", m, waiters, nameOf));
            c.signal();
            steps.add(observe("after a second signal()", m, waiters, nameOf));
            c.signalAll();
            steps.add(observe("after signalAll()", m, waiters, nameOf));
        } finally {
            lock.unlock();
        }
        assertTrue(done.await(30, TimeUnit.SECONDS), "every waiter re-acquired and left");
        for (Thread t : waiters) {
            t.join();
        }
        steps.add(observe("after every waiter left", m, waiters, nameOf));
        assertFalse(m.hasQueuedThreads());
        return steps;
    }

    /**
     * A signalled waiter that wakes to find the lock taken again queues for it, and is then counted once, by
     * the lock's queue, not twice. The signaller releases and at once takes the lock back, before the woken
     * waiter runs (almost always: a round the waiter wins is not counted, and is tried again).
     */
    @ParameterizedTest(name = "{0}, virtual {1}")
    @MethodSource("locks")
    void aSignalledWaiterThatQueuesForTheLockIsCountedOnce(String name, boolean virtual) throws Exception {
        int observed = 0;
        for (int round = 0; round < 50 && observed < 3; round++) {
            Monitored m = create(name);
            Lock lock = m.lock();
            Condition c = m.condition();
            Thread.Builder b = virtual ? Thread.ofVirtual() : Thread.ofPlatform();
            AtomicBoolean reacquired = new AtomicBoolean(); // set holding the lock: we read it holding it too
            Thread waiter = b.start(() -> {
                lock.lock();
                try {
                    c.awaitUninterruptibly();
                    reacquired.set(true);
                } finally {
                    lock.unlock();
                }
            });
            VnaLockMonitoringTest.await(() -> waitQueueLength(m) == 1, "the waiter awaits");
            lock.lock();
            c.signal();
            lock.unlock();
            lock.lock(); // back before the woken waiter runs, most rounds
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                // Parked in the lock's queue: its blocker is the VnaLock (a key's record, for a key), not the condition.
                // A round the waiter won (it re-acquired before our lock()) is over: we got the lock after it.
                while (!reacquired.get() && !(LockSupport.getBlocker(waiter) instanceof VnaLock)) {
                    assertTrue(m.hasQueuedThread(waiter), "the signalled waiter is queued until it holds the lock");
                    assertEquals(1, m.getQueueLength());
                    assertTrue(System.nanoTime() < deadline, "the waiter neither queued nor re-acquired");
                    Thread.onSpinWait();
                }
                if (!reacquired.get()) { // parked in the lock's queue while we hold the lock
                    observed++;
                    assertTrue(m.hasQueuedThread(waiter));
                    assertTrue(m.hasQueuedThreads());
                    assertEquals(1, m.getQueueLength(), "counted once");
                    assertEquals(List.of(waiter), List.copyOf(m.getQueuedThreads()));
                }
            } finally {
                lock.unlock();
            }
            waiter.join();
            assertEquals(0, m.getQueueLength());
        }
        assertTrue(observed > 0, "the woken waiter never found the lock taken back");
    }

    private static int waitQueueLength(Monitored m) {
        m.lock().lock();
        try {
            return m.getWaitQueueLength();
        } finally {
            m.lock().unlock();
        }
    }

    private static String observe(String step, Monitored m, Thread[] waiters, Function<Thread, String> nameOf) {
        StringBuilder s = new StringBuilder(step).append(": queued [");
        for (int i = 0; i < waiters.length; i++) {
            s.append(m.hasQueuedThread(waiters[i]) ? "Q" : "-");
        }
        List<String> names = new ArrayList<>();
        for (Thread t : m.getQueuedThreads()) {
            names.add(nameOf.apply(t));
        }
        names.sort(null); // the order across queues is the lock's own
        s.append("] hasQueuedThreads ").append(m.hasQueuedThreads())
                .append(" getQueueLength ").append(m.getQueueLength())
                .append(" getQueuedThreads ").append(names);
        if (m.lock() instanceof ReentrantLock rl ? rl.isHeldByCurrentThread() : isHeld(m.lock())) {
            s.append(" hasWaiters ").append(m.hasWaiters())
                    .append(" getWaitQueueLength ").append(m.getWaitQueueLength());
        }
        return s.toString();
    }

    private static boolean isHeld(Lock lock) {
        if (lock instanceof VnaLock v) {
            return v.isHeldByCurrentThread();
        }
        return ((KeyedLock<?>.KeyLock) lock).isHeldByCurrentThread();
    }
}
