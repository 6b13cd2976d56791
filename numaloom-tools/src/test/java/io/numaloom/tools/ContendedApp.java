package io.numaloom.tools;

import io.numaloom.KeyedLock;
import io.numaloom.VnaLock;
import jdk.jfr.Recording;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A small application that waits once on each kind of lock, under a recording as a user would make
 * one: numaloom's and the JDK's lock events with no threshold. Each wait is certain, not timed: the
 * holder keeps the lock until the waiter (a platform thread, whose parks JFR records) is parked or
 * blocked, so every event below is in the recording, with the waiter's method as its call site.
 */
final class ContendedApp {
    /** The key of {@link #SECRETS}' wait, which its lock keeps out of the recording. */
    static final String SECRET_KEY = "token-7f3a9c";
    static final String ACCOUNT_KEY = "alice";

    /** The object a {@code synchronized} block locks: its class names it in {@code jdk.JavaMonitorEnter}. */
    static final class Inventory {
        int stock;
    }

    private ContendedApp() {}

    /** Runs the application under a recording dumped to {@code file}. */
    static Path record(Path file) throws Exception {
        VnaLock orders = VnaLock.named("orders");
        Condition shipped = orders.newCondition();
        KeyedLock<String> accounts = KeyedLock.builder().name("accounts").build();
        KeyedLock<String> secrets = KeyedLock.builder().name("secrets").keysInEvents(false).build();
        ReentrantLock ledger = new ReentrantLock();
        Condition balanced = ledger.newCondition();
        Inventory inventory = new Inventory();
        try (Recording r = new Recording()) {
            for (String event : new String[] {"io.numaloom.LockContended", "io.numaloom.ConditionAwait", "jdk.ThreadPark",
                    "jdk.JavaMonitorEnter"}) {
                r.enable(event).withThreshold(Duration.ZERO).withStackTrace();
            }
            r.enable("jdk.ActiveSetting"); // on in JFR's default and profile settings; a bare Recording needs it named
            r.start();
            contendOnce(orders, () -> takeOrder(orders));
            contendOnce(accounts.forKey(ACCOUNT_KEY), () -> payAccount(accounts, ACCOUNT_KEY));
            contendOnce(secrets.forKey(SECRET_KEY), () -> readSecret(secrets, SECRET_KEY));
            contendOnce(ledger, () -> postToLedger(ledger));
            Thread counter;
            synchronized (inventory) {
                counter = Thread.ofPlatform().name("counter").start(() -> countStock(inventory));
                awaitBlocked(counter);
            }
            counter.join();
            awaitShipped(orders, shipped);
            awaitBalanced(ledger, balanced);
            r.stop();
            r.dump(file);
        }
        return file;
    }

    // The waits of the application, each in a method of its own: the call sites the summary must name.

    static void takeOrder(Lock orders) {
        orders.lock();
        orders.unlock();
    }

    static void payAccount(KeyedLock<String> accounts, String key) {
        accounts.lock(key);
        accounts.unlock(key);
    }

    static void readSecret(KeyedLock<String> secrets, String key) {
        secrets.lock(new String(key)); // an equal key, not the same object
        secrets.unlock(key);
    }

    static void postToLedger(ReentrantLock ledger) {
        ledger.lock();
        ledger.unlock();
    }

    static void countStock(Inventory inventory) {
        synchronized (inventory) {
            inventory.stock++;
        }
    }

    static boolean awaitShipped(Lock orders, Condition shipped) throws InterruptedException {
        orders.lock();
        try {
            return shipped.await(1, TimeUnit.MILLISECONDS);
        } finally {
            orders.unlock();
        }
    }

    static boolean awaitBalanced(Lock ledger, Condition balanced) throws InterruptedException {
        ledger.lock();
        try {
            return balanced.await(1, TimeUnit.MILLISECONDS);
        } finally {
            ledger.unlock();
        }
    }

    /** The current thread holds {@code lock} until a platform thread running {@code waiter} is parked on it. */
    private static void contendOnce(Lock lock, Runnable waiter) throws InterruptedException {
        lock.lock();
        Thread t;
        try {
            t = Thread.ofPlatform().name("waiter").start(waiter);
            awaitBlocked(t);
        } finally {
            lock.unlock();
        }
        t.join();
    }

    /** Until {@code t} is parked or blocked on a monitor: it is then certainly waiting for the lock. */
    private static void awaitBlocked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Thread.State s = t.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.BLOCKED) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(t + " never waited: " + s);
            }
            Thread.sleep(1);
        }
    }
}
