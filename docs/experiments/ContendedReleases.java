import io.numaloom.VnaLock;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

/**
 * How many of {@code VnaLock}'s releases take the contended path (a locked {@code getAndAdd} on the lock word, then a
 * look for a heir) on consumeCpu-like sections on virtual threads, and how often the lock changes owner: the
 * mechanics behind docs/measurements.md M34. Not a benchmark: its throughput is printed only to show the run is in
 * the bench's regime. It reads the lock's private count of contended releases by a virtual owner by reflection, so
 * it runs on the class path:
 *
 * <pre>java --class-path numaloom-core/target/classes docs/experiments/ContendedReleases.java THREADS [OPS] [TOKENS]</pre>
 */
public class ContendedReleases {

    static int sink;

    /** Work inside the section: a dependent chain of {@code tokens} xorshift steps, which the JIT cannot fold. */
    static void consume(int tokens) {
        int x = sink | 1;
        for (int i = 0; i < tokens; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
        }
        if (x == 42) {
            sink = x;
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int ops = args.length > 1 ? Integer.parseInt(args[1]) : 400_000;
        int tokens = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        Field released = VnaLock.class.getDeclaredField("contendedReleases");
        released.setAccessible(true);
        for (int round = 0; round < 8; round++) {
            VnaLock lock = new VnaLock();
            Object[] last = new Object[1];
            long[] changes = new long[1];
            List<Thread> workers = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                workers.add(Thread.ofVirtual().start(() -> {
                    Thread me = Thread.currentThread();
                    for (int i = 0; i < ops; i++) {
                        lock.lock();
                        try {
                            if (last[0] != me) {
                                changes[0]++;
                                last[0] = me;
                            }
                            consume(tokens);
                        } finally {
                            lock.unlock();
                        }
                    }
                }));
            }
            for (Thread w : workers) {
                w.join();
            }
            long ns = System.nanoTime() - start;
            long total = (long) threads * ops;
            int contended = released.getInt(lock);
            System.out.printf("round %d: %d virtual threads, %.0f ops/ms, contended releases/op %.4f, owner changes/op %.4f%n",
                    round + 1, threads, total / (ns / 1e6), (double) contended / total, (double) changes[0] / total);
        }
    }
}
