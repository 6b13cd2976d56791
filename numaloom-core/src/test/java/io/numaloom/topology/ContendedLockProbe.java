package io.numaloom.topology;

import io.numaloom.VnaLock;

import java.util.ArrayList;
import java.util.List;

/**
 * A child JVM's main class for {@link CurrentCpuChildJvmTest}: four threads queue on a {@code new VnaLock()}
 * (the main thread holds it until all four wait), then hammer it, so that the contended path, which asks
 * for the current NUMA node on a multi-node topology, certainly runs. Prints {@code key=value} lines and
 * nothing else; whatever else the child prints comes from the JDK or the library.
 */
public final class ContendedLockProbe {

    private ContendedLockProbe() {}

    public static void main(String[] args) throws Exception {
        VnaLock lock = new VnaLock();
        long[] acquisitions = new long[1];
        List<Thread> threads = new ArrayList<>();
        lock.lock();
        for (int i = 0; i < 4; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int j = 0; j < 10_000; j++) {
                    lock.lock();
                    try {
                        acquisitions[0]++;
                    } finally {
                        lock.unlock();
                    }
                }
            }));
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (lock.getQueueLength() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        System.out.println("queued=" + lock.getQueueLength());
        lock.unlock();
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("acquisitions=" + acquisitions[0]);
        System.out.println("queues=" + lock.queueCount());
        System.out.println("done=true");
    }
}
