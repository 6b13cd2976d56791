package io.numaloom;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of what the contended path of every {@link VnaLock} in this JVM does: how often a
 * thread had to wait, how often waiting meant parking, how many wake-ups were sent, how many
 * acquisitions came through a queue, how often a heir reserved the lock and how often a releasing
 * thread yielded to an overdue heir. They explain a throughput number: a lock that parks once per
 * acquisition pays a wake-up per critical section.
 *
 * <p>Off unless the JVM runs with {@code -Dnumaloom.diagnostics=true}. The switch is a
 * {@code static final} constant, so when it is off the JIT removes the counting altogether; it
 * never touches the uncontended path either way. When on, each event is one {@link LongAdder}
 * increment on the contended path. {@code ./numaloom bench} turns it on with the config setting
 * {@code "diagnostics": true} and reports the counts per operation in its CSV and report.
 */
public final class LockDiagnostics {

    /** The system property that turns counting on. */
    public static final String PROPERTY = "numaloom.diagnostics";

    static final boolean ENABLED = Boolean.getBoolean(PROPERTY);

    private static final LongAdder SLOW_PATHS = new LongAdder();
    private static final LongAdder QUEUED_ACQUISITIONS = new LongAdder();
    private static final LongAdder PARKS = new LongAdder();
    private static final LongAdder UNPARKS = new LongAdder();
    private static final LongAdder RESERVATIONS = new LongAdder();
    private static final LongAdder YIELDS = new LongAdder();
    private static final LongAdder LAPSES = new LongAdder();
    private static final LongAdder PLACED_BY_HOME_NODE = new LongAdder();
    private static final LongAdder PLACED_BY_CPU = new LongAdder();

    private LockDiagnostics() {}

    /** {@return whether this JVM counts ({@code -Dnumaloom.diagnostics=true})} */
    public static boolean enabled() {
        return ENABLED;
    }

    /** {@return the counts so far, summed over every {@link VnaLock}; all zero when counting is off} */
    public static Counts snapshot() {
        return new Counts(SLOW_PATHS.sum(), QUEUED_ACQUISITIONS.sum(), PARKS.sum(), UNPARKS.sum(), RESERVATIONS.sum(),
                YIELDS.sum(), LAPSES.sum());
    }

    /**
     * {@return how the waiters of per-node locks ({@code new VnaLock()}, {@code new KeyedLock<>()}) chose their
     * queue so far; zero when counting is off}
     */
    public static Placements placements() {
        return new Placements(PLACED_BY_HOME_NODE.sum(), PLACED_BY_CPU.sum());
    }

    /**
     * How waiters of per-node locks chose their queue, on a topology of more than one node (with one node there
     * is one queue and nothing to choose).
     *
     * @param byHomeNode waiters queued on their home node as told by a scheduler through
     *                   {@link io.numaloom.topology.HomeNode}, without asking which CPU they run on
     * @param byCpu      waiters queued on the node of the CPU they ran on ({@link io.numaloom.topology.CurrentCpu},
     *                   {@code sched_getcpu} where available)
     */
    public record Placements(long byHomeNode, long byCpu) {

        /**
         * {@return the counts from {@code earlier} to this snapshot}
         *
         * @param earlier an earlier snapshot
         */
        public Placements minus(Placements earlier) {
            return new Placements(byHomeNode - earlier.byHomeNode, byCpu - earlier.byCpu);
        }
    }

    /**
     * A snapshot of the counters.
     *
     * @param slowPaths           acquisitions that failed the fast path and were not re-entries
     * @param queuedAcquisitions  acquisitions by a thread that had joined a queue
     * @param parks               parks of waiting threads (each costs a wake-up to end, or a timeout)
     * @param unparks             wake-ups sent to waiters (designations and wakes of a parked heir)
     * @param reservations        times a heir past its deadline ({@link VnaLock#PATIENCE_NANOS} as heir, or
     *                            {@link VnaLock#STARVATION_NANOS} since it queued) reserved the lock
     * @param yields              times a thread that released the lock yielded to an overdue heir: one that had
     *                            not reserved it (virtual releasers only), or one that had reserved it and that
     *                            the release woke
     * @param lapses              times {@code tryLock()} took a lock that no thread held but a heir had reserved
     *                            and not taken for {@link VnaLock#RESERVATION_GRACE_NANOS}
     */
    public record Counts(long slowPaths, long queuedAcquisitions, long parks, long unparks, long reservations,
                         long yields, long lapses) {

        /**
         * {@return the counts from {@code earlier} to this snapshot}
         *
         * @param earlier an earlier snapshot
         */
        public Counts minus(Counts earlier) {
            return new Counts(slowPaths - earlier.slowPaths, queuedAcquisitions - earlier.queuedAcquisitions,
                    parks - earlier.parks, unparks - earlier.unparks, reservations - earlier.reservations,
                    yields - earlier.yields, lapses - earlier.lapses);
        }

        /**
         * {@return the sum of two snapshots' counts}
         *
         * @param other the snapshot to add
         */
        public Counts plus(Counts other) {
            return new Counts(slowPaths + other.slowPaths, queuedAcquisitions + other.queuedAcquisitions,
                    parks + other.parks, unparks + other.unparks, reservations + other.reservations,
                    yields + other.yields, lapses + other.lapses);
        }
    }

    static void slowPath() {
        if (ENABLED) {
            SLOW_PATHS.increment();
        }
    }

    static void queuedAcquisition() {
        if (ENABLED) {
            QUEUED_ACQUISITIONS.increment();
        }
    }

    static void park() {
        if (ENABLED) {
            PARKS.increment();
        }
    }

    static void unpark() {
        if (ENABLED) {
            UNPARKS.increment();
        }
    }

    static void reservation() {
        if (ENABLED) {
            RESERVATIONS.increment();
        }
    }

    static void yieldToHeir() {
        if (ENABLED) {
            YIELDS.increment();
        }
    }

    static void placedByHomeNode() {
        if (ENABLED) {
            PLACED_BY_HOME_NODE.increment();
        }
    }

    static void placedByCpu() {
        if (ENABLED) {
            PLACED_BY_CPU.increment();
        }
    }

    static void lapsedReservation() {
        if (ENABLED) {
            LAPSES.increment();
        }
    }
}
