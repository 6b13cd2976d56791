package io.numaloom.stress.subject;

import io.numaloom.KeyedLock;
import io.numaloom.VnaLock;
import io.numaloom.topology.Topology;

/**
 * The locks every correctness test runs over.
 *
 * <p>{@code VnaLock} keeps one waiter queue per NUMA node ({@link #VNA_PER_NODE}) or per socket
 * ({@link #VNA_PER_SOCKET}). On a one-node machine its multi-queue paths only run under the virtual topology
 * override, for example {@code -Dnumaloom.topology=nodes=2}; {@link #requireTwoQueues()} makes a test that
 * claims to cover them fail loudly when it runs without the override. {@link #REENTRANT_LOCK} is the reference:
 * every test must pass on it too, which shows that the test checks the specification and not one
 * implementation's quirks.
 */
public enum Subject {
    VNA_PER_NODE {
        @Override public InspectableLock create() { return new InspectableVnaLock(new VnaLock()); }
        @Override public int queues() { return Topology.current().nodeCount(); }
    },
    VNA_PER_SOCKET {
        @Override public InspectableLock create() { return new InspectableVnaLock(VnaLock.perSocket()); }
        @Override public int queues() { return Topology.current().socketCount(); }
    },
    /** One key of a {@code KeyedLock}, through its {@code Lock} view: per-key semantics are VnaLock's. */
    KEYED_LOCK {
        @Override public InspectableLock create() { return new InspectableKeyedLock(); }
        @Override public int queues() { return Topology.current().nodeCount(); }
    },
    /**
     * One key of a {@code KeyedLock} that keeps no idle key bound ({@code idleKeys(0)}): an uncontended
     * acquisition holds the key thin (no record), and contention, re-entry or a condition inflates that hold.
     */
    KEYED_LOCK_THIN {
        @Override public InspectableLock create() {
            return new InspectableKeyedLock(KeyedLock.builder().idleKeys(0).build());
        }
        @Override public int queues() { return Topology.current().nodeCount(); }
    },
    /** {@code VnaReentrantLock}, held as a {@code ReentrantLock}: VnaLock's semantics behind ReentrantLock's type. */
    VNA_REENTRANT_LOCK {
        @Override public InspectableLock create() { return new InspectableVnaReentrantLock(); }
        @Override public int queues() { return Topology.current().nodeCount(); }
    },
    REENTRANT_LOCK {
        @Override public InspectableLock create() { return new InspectableReentrantLock(); }
        @Override public int queues() { return 1; }
    };

    /** A new, unlocked lock of this kind. */
    public abstract InspectableLock create();

    /** How many waiter queues a lock of this kind has in this JVM's topology. */
    public abstract int queues();

    /**
     * Fails unless a lock of this kind has at least two waiter queues here, so that a test meant to cover the
     * multi-queue paths cannot silently run on one queue.
     *
     * @throws IllegalStateException naming the system property that sets a virtual topology
     */
    public void requireTwoQueues() {
        int queues = queues();
        if (queues < 2) {
            throw new IllegalStateException(this + " has " + queues + " waiter queue(s) in this JVM (topology "
                    + Topology.current() + ", -Dnumaloom.topology=" + System.getProperty("numaloom.topology")
                    + "); this test needs two: run it with a two-node/two-socket virtual topology");
        }
    }
}
