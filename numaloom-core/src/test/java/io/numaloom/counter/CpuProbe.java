package io.numaloom.counter;

import java.lang.reflect.Method;

/**
 * CPU time of the threads that run a test's workers: the workers themselves when they are platform
 * threads, the virtual-thread scheduler's carriers when they are virtual (the JDK measures no CPU
 * time per virtual thread). Through reflection on {@code java.lang.management}, because the tests run
 * inside module io.numaloom, which does not read java.management.
 *
 * <p>What it is for: a test that needs two threads to run at the same moment can bound from below
 * how long they did. If threads that ran on a machine of C CPUs used T ns of CPU in total during W ns
 * of wall time, then at least {@code T - W} ns were spent with two or more of them on CPU at once,
 * whatever the load.
 */
final class CpuProbe {
    private final Object bean;
    private final Method allIds;
    private final Method cpuTime;
    private final Method info;
    private final Method name;

    CpuProbe() throws ReflectiveOperationException {
        Class<?> mx = Class.forName("java.lang.management.ThreadMXBean");
        bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        allIds = mx.getMethod("getAllThreadIds");
        cpuTime = mx.getMethod("getThreadCpuTime", long.class);
        info = mx.getMethod("getThreadInfo", long.class);
        name = Class.forName("java.lang.management.ThreadInfo").getMethod("getThreadName");
    }

    /** CPU time of the carrier threads of the default virtual-thread scheduler, in ns. */
    long carriersCpuNanos() throws ReflectiveOperationException {
        long sum = 0;
        for (long id : (long[]) allIds.invoke(bean)) {
            Object i = info.invoke(bean, id);
            if (i == null) {
                continue;
            }
            String n = (String) name.invoke(i);
            if (n.startsWith("ForkJoinPool-") && n.contains("-worker-")) {
                sum += Math.max(0L, (long) cpuTime.invoke(bean, id));
            }
        }
        return sum;
    }

    /** CPU time of platform thread {@code t}, in ns, or 0 once it has ended. */
    long cpuNanos(Thread t) throws ReflectiveOperationException {
        return Math.max(0L, (long) cpuTime.invoke(bean, t.threadId()));
    }
}
