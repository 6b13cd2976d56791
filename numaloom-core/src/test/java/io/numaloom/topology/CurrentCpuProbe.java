package io.numaloom.topology;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The main class of the child JVMs of {@link CurrentCpuChildJvmTest}: exercises {@link CurrentCpu} and
 * {@link Topology#current()} under the flags the test chose and prints {@code key=value} lines. Uses
 * nothing but the JDK and numaloom, so the child needs no test library.
 */
public final class CurrentCpuProbe {

    private CurrentCpuProbe() {}

    public static void main(String[] args) throws Exception {
        // Topology first: a bad numaloom.topology must fail every call the same way.
        try {
            Topology t = Topology.current();
            System.out.println("topology.nodeCount=" + t.nodeCount());
            System.out.println("topology.source=" + t.source());
            System.out.println("topology.same=" + (t == Topology.current()));
        } catch (IllegalArgumentException first) {
            String second;
            try {
                Topology.current();
                second = "no exception";
            } catch (IllegalArgumentException e) {
                second = e.getMessage();
            }
            System.out.println("topology.error=" + first.getMessage());
            System.out.println("topology.errorAgain=" + second);
            try {
                System.out.println("node=" + CurrentCpu.node());
            } catch (IllegalArgumentException e) {
                System.out.println("node.error=" + e.getMessage());
            }
            System.out.println("cpu=" + CurrentCpu.cpu());
            System.out.println("source=" + CurrentCpu.source());
            // A lock fails where the user creates it, never inside lock().
            try {
                new io.numaloom.VnaLock();
                System.out.println("vnaLock=created");
            } catch (IllegalArgumentException e) {
                System.out.println("vnaLock.error=" + e.getMessage());
            }
            try {
                io.numaloom.VnaLock.perSocket();
                System.out.println("vnaLockPerSocket=created");
            } catch (IllegalArgumentException e) {
                System.out.println("vnaLockPerSocket.error=" + e.getMessage());
            }
            try {
                new io.numaloom.counter.CloseableAcquireCounter();
                System.out.println("counter=created");
            } catch (IllegalArgumentException e) {
                System.out.println("counter.error=" + e.getMessage());
            }
            try {
                io.numaloom.counter.CloseableAcquireCounter.striped();
                System.out.println("stripedCounter=created");
            } catch (IllegalArgumentException e) {
                System.out.println("stripedCounter.error=" + e.getMessage());
            }
            io.numaloom.counter.CloseableAcquireCounter placed = io.numaloom.counter.CloseableAcquireCounter.withPlacement(2, () -> 1);
            placed.release(placed.tryAcquire());
            io.numaloom.VnaLock custom = io.numaloom.VnaLock.withPlacement(2, () -> 1);
            custom.lock();
            custom.unlock();
            System.out.println("customPlacement=works");
            System.out.println("done=true");
            return;
        }

        System.out.println("source=" + CurrentCpu.source());
        System.out.println("reason=" + CurrentCpu.sourceReason());
        System.out.println("cpu=" + CurrentCpu.cpu());
        System.out.println("online=" + CpuList.format(Topology.current().cpus()));
        System.out.println("node=" + CurrentCpu.node());
        System.out.println("socket=" + CurrentCpu.socket());
        System.out.println("allocatedBytesPerMillionCalls=" + allocatedBytesPerMillionCalls());

        Set<Integer> nodes = ConcurrentHashMap.newKeySet();
        Set<Integer> cpus = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                for (int k = 0; k < 10; k++) {
                    nodes.add(CurrentCpu.node());
                    cpus.add(CurrentCpu.cpu());
                    Thread.yield();
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("virtualThreadNodes=" + nodes.size());
        System.out.println("virtualThreadCpusOnline="
                + cpus.stream().allMatch(c -> CpuList.contains(Topology.current().cpus(), c)));
        System.out.println("done=true");
    }

    /**
     * Bytes the current thread allocates over a million calls of cpu(), node() and socket() after a warm-up,
     * less the measurement's own cost; -1 where com.sun.management is not available. Reflection keeps the
     * test sources free of a compile-time dependency on java.management (they are compiled into the
     * io.numaloom module, which requires only java.base).
     */
    private static long allocatedBytesPerMillionCalls() throws Exception {
        Object bean;
        Method allocated;
        try {
            bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        } catch (ClassNotFoundException e) {
            return -1;
        }
        long sink = 0;
        for (int i = 0; i < 300_000; i++) {
            sink += CurrentCpu.cpu() + CurrentCpu.node() + CurrentCpu.socket();
        }
        long a0 = (Long) allocated.invoke(bean);
        long a1 = (Long) allocated.invoke(bean);
        long overhead = a1 - a0;
        long before = (Long) allocated.invoke(bean);
        for (int i = 0; i < 1_000_000; i++) {
            sink += CurrentCpu.cpu() + CurrentCpu.node() + CurrentCpu.socket();
        }
        long after = (Long) allocated.invoke(bean);
        if (sink == 42) {
            System.out.println("sink");
        }
        return Math.max(0, after - before - overhead);
    }
}
