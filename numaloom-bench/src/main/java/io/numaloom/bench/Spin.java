package io.numaloom.bench;

/** Bounded busy-waiting measured by the clock: the remote-handoff penalty and the Contend portions. */
public final class Spin {
    private Spin() {}

    /**
     * Spins until {@code nanos} have elapsed on {@link System#nanoTime()}, hinting the CPU with
     * {@link Thread#onSpinWait()}; returns at once for {@code nanos <= 0}. The wait is bounded by its
     * argument, so it never needs to park.
     */
    public static void nanos(long nanos) {
        if (nanos <= 0) {
            return;
        }
        long deadline = System.nanoTime() + nanos;
        while (System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
    }
}
