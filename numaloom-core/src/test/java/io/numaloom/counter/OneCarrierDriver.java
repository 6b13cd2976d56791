package io.numaloom.counter;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run by {@link OneCarrierTest} in a child JVM with {@code -Djdk.virtualThreadScheduler.parallelism=1}:
 * 64 virtual threads acquire, {@link Thread#yield()} while they hold, and release; closers yield between
 * attempts; a platform thread closes too, so that a close may be in progress while the only carrier runs
 * an acquirer. Everything must finish, no acquisition may fail while a holder keeps the counter open,
 * and then exactly one close wins. Prints {@code ok ...} and exits 0, or prints the violation and exits 1.
 */
public final class OneCarrierDriver {

    private static final int THREADS = 64;
    private static final int ITERATIONS = 2_000;

    public static void main(String[] args) throws Exception {
        for (String shape : new String[] {"lazy", "striped"}) {
            CloseableAcquireCounter c = shape.equals("lazy") ? new CloseableAcquireCounter() : CloseableAcquireCounter.striped();
            String verdict = run(c);
            if (verdict != null) {
                System.out.println("FAILED " + shape + ": " + verdict + " " + c);
                System.exit(1);
            }
            System.out.println("ok " + shape + " " + c);
        }
    }

    private static String run(CloseableAcquireCounter c) throws InterruptedException {
        int holder = c.tryAcquire();
        AtomicInteger left = new AtomicInteger(THREADS);
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong busyCloses = new AtomicLong();
        List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                for (int k = 0; k < ITERATIONS; k++) {
                    int t = c.tryAcquire();
                    if (t < 0) {
                        violations.add("an acquisition failed while the counter was held open");
                        break;
                    }
                    Thread.yield();
                    c.release(t);
                }
                if (left.decrementAndGet() == 0) {
                    done.set(true);
                }
            }));
        }
        Runnable closer = () -> {
            while (!done.get()) {
                CloseResult r = c.tryClose();
                if (r != CloseResult.BUSY) {
                    violations.add("tryClose said " + r + " while held");
                    return;
                }
                busyCloses.incrementAndGet();
                Thread.yield();
            }
        };
        threads.add(Thread.ofVirtual().start(closer));
        threads.add(Thread.ofPlatform().start(closer));
        for (Thread t : threads) {
            t.join();
        }
        if (!violations.isEmpty()) {
            return violations.getFirst() + " (" + violations.size() + " violations)";
        }
        if (c.outstanding() != 1) {
            return "outstanding " + c.outstanding() + ", expected the holder only";
        }
        c.release(holder);
        AtomicInteger wins = new AtomicInteger();
        List<Thread> closers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            closers.add(Thread.ofVirtual().start(() -> {
                Thread.yield();
                if (c.tryClose() == CloseResult.CLOSED) {
                    wins.incrementAndGet();
                }
            }));
        }
        for (Thread t : closers) {
            t.join();
        }
        if (wins.get() != 1) {
            return wins.get() + " closers won";
        }
        System.out.println("busy closes: " + busyCloses.get());
        return c.tryAcquire() == -1 ? null : "acquired after the close";
    }
}
