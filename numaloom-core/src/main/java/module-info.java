/**
 * numaloom: NUMA-aware synchronization primitives for virtual threads.
 *
 * <p>{@link io.numaloom.VnaLock} is a drop-in {@link java.util.concurrent.locks.Lock};
 * {@link io.numaloom.KeyedLock} a lock per key;
 * {@link io.numaloom.topology.Topology} and {@link io.numaloom.topology.CurrentCpu} describe the machine.
 * The module needs only {@code java.base} and {@code jdk.jfr} (for its JFR events); native calls go
 * through the FFM API and fall back cleanly when native access is denied.
 */
module io.numaloom {
    requires jdk.jfr;

    exports io.numaloom;
    exports io.numaloom.topology;
    exports io.numaloom.counter;
}
