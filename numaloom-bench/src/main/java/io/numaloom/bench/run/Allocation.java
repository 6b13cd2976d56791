package io.numaloom.bench.run;

import java.lang.management.ManagementFactory;

/**
 * Heap bytes allocated by the whole JVM, for the bench's allocation per operation: HotSpot's
 * {@code com.sun.management.ThreadMXBean#getTotalThreadAllocatedBytes()}, which counts live and terminated
 * threads. A virtual thread allocates in its carrier's buffer, so its bytes are counted with the carrier's.
 * The count includes whatever the harness allocates while a round runs (little: a round's threads are started
 * before it is timed), so a workload that allocates nothing measures a small fraction of a byte per operation.
 */
final class Allocation {
    private static final com.sun.management.ThreadMXBean THREADS = threads();

    private Allocation() {}

    private static com.sun.management.ThreadMXBean threads() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean hotspot
                && hotspot.isThreadAllocatedMemorySupported()) {
            hotspot.setThreadAllocatedMemoryEnabled(true);
            return hotspot;
        }
        return null;
    }

    /** Bytes allocated since the JVM started, or -1 where the JVM does not count them. */
    static long total() {
        return THREADS == null ? -1 : THREADS.getTotalThreadAllocatedBytes();
    }
}
