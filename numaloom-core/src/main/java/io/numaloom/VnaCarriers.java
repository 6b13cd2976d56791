package io.numaloom;

/**
 * How many threads can run at once, and so whether a waiter may spin: the carriers of the virtual-thread scheduler
 * for a virtual thread, the CPUs for a platform one. A waiter spins only where another thread can run meanwhile: a
 * spin on the only carrier or CPU waits for a thread that cannot run until it stops. Read once, at class
 * initialisation.
 */
final class VnaCarriers {

    private VnaCarriers() {
    }

    private static final int CPUS = Runtime.getRuntime().availableProcessors();
    private static final int CARRIERS = virtualCarriers();

    /**
     * The pauses {@link #pauseBriefly} spends before it yields: about as many as a heir's first spin
     * ({@code VnaHeirWait.HEIR_SPINS}), a few microseconds.
     */
    static final int PAUSES_BEFORE_YIELD = 128;

    /** {@return the carriers a virtual thread can run on, or the CPUs a platform thread can} */
    static int carriers(Thread me) {
        return me.isVirtual() ? CARRIERS : CPUS;
    }

    /** {@return whether {@code me} may spin: another thread can run while it does} */
    static boolean maySpin(Thread me) {
        return carriers(me) > 1;
    }

    /**
     * One step of waiting for another thread that is running and a few instructions away from the store we wait for:
     * {@code onSpinWait} for the first {@link #PAUSES_BEFORE_YIELD} steps, then {@code Thread.yield()}, so that the
     * other thread, if it shares our carrier or CPU, gets to run.
     *
     * @param spins the steps taken so far
     */
    static void pauseBriefly(int spins) {
        if (spins < PAUSES_BEFORE_YIELD) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    private static int virtualCarriers() {
        try {
            String p = System.getProperty("jdk.virtualThreadScheduler.parallelism");
            return p == null ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(p.trim());
        } catch (RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }
}
