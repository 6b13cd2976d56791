package io.numaloom.counter;

import io.numaloom.topology.CurrentCpu;
import io.numaloom.topology.Topology;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.IntSupplier;

/**
 * The stripe table of an inflated {@link CloseableAcquireCounter}: a fixed array of slots, one group of
 * {@code 2^shift} slots per NUMA node, each slot empty or holding a {@link Stripe}.
 *
 * <p>The table never grows and a slot, once filled, never changes, so a ticket ({@code slot + 1})
 * names the same stripe for the life of the counter, whichever thread releases it. Slots are filled
 * lazily, one stripe at a time, by the counter while it holds its control word; the table itself is
 * only references, 4 bytes a slot with compressed oops.
 *
 * <p><b>Placement.</b> A thread's <em>home</em> slot is where it tries first; when the CAS there fails
 * it moves on to the next slot of the same group, so a group fills up as far as contention demands.
 * On the machine's own shape the home is the slot of the CPU the thread runs on
 * ({@link CurrentCpu#cpu()}): the group of that CPU's node, and the CPU's index within the node. Threads
 * that run at the same time run on different CPUs, so they do not share a home; placing by a hash of
 * the thread instead makes two running threads share one with probability {@code 1 / slots}, and a
 * shared home costs a failed CAS on a contended line on most acquisitions (one run, commit 5c89863,
 * not re-measured since: about three times the cost of a pair on separate stripes; docs/measurements.md,
 * entry 44). When {@code CurrentCpu} cannot call
 * {@code sched_getcpu} it answers with a fixed CPU per thread, and this degrades to placement by thread.
 * A virtual thread is placed by the CPU of its current carrier. Tests and applications can place by
 * their own function ({@link #placed}, {@link #byNodeAndThread}).
 */
final class Stripes {

    /** At most this many stripes per node. */
    static final int MAX_STRIPES_PER_NODE = 256;

    /** At most this many nodes get their own group; further nodes share groups modulo this. */
    static final int MAX_NODES = 64;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Stripe[].class);

    private final Stripe[] slots;
    private final int shift;
    private final int mask;
    /** The caller's home slot, always in {@code [0, slots.length)}. */
    private final IntSupplier home;

    private Stripes(int groups, int shift, IntSupplier home, boolean eager) {
        this.shift = shift;
        this.mask = (1 << shift) - 1;
        this.home = home;
        this.slots = new Stripe[groups << shift];
        if (eager) {
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Stripe(0);
            }
        }
    }

    /** A table shaped after this machine's topology (or the {@code numaloom.topology} override). */
    static Stripes forThisMachine(boolean eager) {
        return new Stripes(MachineShape.NODES, MachineShape.SHIFT, MachineShape.HOME, eager);
    }

    /**
     * One group per node (clamped to {@code [1, MAX_NODES]}) of {@code stripesPerNode} slots (rounded up
     * to a power of two, clamped to {@code [1, MAX_STRIPES_PER_NODE]}); a caller's home is in the group of
     * {@code nodeOfCaller} (any int, taken modulo the group count), at a hash of its thread id. For tests
     * of the NUMA paths on a one-node machine.
     */
    static Stripes byNodeAndThread(int nodes, int stripesPerNode, IntSupplier nodeOfCaller, boolean eager) {
        int groups = Math.clamp(nodes, 1, MAX_NODES);
        int shift = shiftFor(stripesPerNode);
        int mask = (1 << shift) - 1;
        IntSupplier home = groups == 1
                ? () -> threadHash() & mask
                : () -> (Math.floorMod(nodeOfCaller.getAsInt(), groups) << shift) | (threadHash() & mask);
        return new Stripes(groups, shift, home, eager);
    }

    /**
     * One group of {@code stripes} slots (rounded up to a power of two, at most
     * {@link #MAX_STRIPES_PER_NODE}), filled on first use; a caller's home slot is {@code homeStripe}
     * modulo the slot count.
     */
    static Stripes placed(int stripes, IntSupplier homeStripe) {
        int shift = shiftFor(stripes);
        int mask = (1 << shift) - 1;
        return new Stripes(1, shift, () -> homeStripe.getAsInt() & mask, false);
    }

    /** log2 of {@code n} rounded up to a power of two within {@code [1, MAX_STRIPES_PER_NODE]}. */
    private static int shiftFor(int n) {
        return 32 - Integer.numberOfLeadingZeros(Math.clamp(n, 1, MAX_STRIPES_PER_NODE) - 1);
    }

    int length() {
        return slots.length;
    }

    int stripesPerNode() {
        return mask + 1;
    }

    int nodeGroups() {
        return slots.length >>> shift;
    }

    /** The stripe in {@code slot}, or null; an acquire load, paired with {@link #publish}. */
    Stripe get(int slot) {
        return (Stripe) SLOT.getAcquire(slots, slot);
    }

    /** Fills an empty slot; the caller holds the counter's control word, so no CAS is needed. */
    void publish(int slot, Stripe stripe) {
        SLOT.setRelease(slots, slot, stripe);
    }

    /** The slot the calling thread tries first. */
    int homeSlot() {
        return home.getAsInt();
    }

    /** The next slot of the same node group, wrapping around within the group. */
    int neighbour(int slot) {
        return (slot & ~mask) | ((slot + 1) & mask);
    }

    /** The node group of a slot (for tests and diagnostics). */
    int groupOf(int slot) {
        return slot >>> shift;
    }

    /** Stripes created so far. */
    int created() {
        int n = 0;
        for (int i = 0; i < slots.length; i++) {
            if (get(i) != null) {
                n++;
            }
        }
        return n;
    }

    /** The home slot of CPU {@code cpu} in this machine's shape (for tests). */
    static int machineSlotOfCpu(int cpu) {
        return MachineShape.slotOf(cpu);
    }

    /**
     * A stable hash of the current thread, virtual or platform: Fibonacci hashing of the thread id,
     * whose high half spreads consecutive ids evenly.
     */
    static int threadHash() {
        long id = Thread.currentThread().threadId();
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 32);
    }

    /**
     * The machine's shape, computed once, on first inflation: a group per node of
     * {@link Topology#current()}, as many slots per group as the largest node has CPUs (rounded up to a
     * power of two), and each online CPU's slot. A topology that cannot be determined (a malformed
     * {@code numaloom.topology} property makes {@code Topology.current()} throw) must not break a
     * counter: that is logged once, and the shape becomes one group placed by thread.
     */
    private static final class MachineShape {
        static final int NODES;
        static final int SHIFT;
        /** The slot of each CPU id; ids beyond it (CPUs brought online later) wrap into group 0. */
        private static final int[] SLOT_BY_CPU;
        static final IntSupplier HOME;

        static {
            int nodes = 1;
            int shift = shiftFor(Runtime.getRuntime().availableProcessors());
            int[] slotByCpu = null;
            try {
                Topology topology = Topology.current();
                nodes = Math.clamp(topology.nodeCount(), 1, MAX_NODES);
                int largest = 1;
                int maxCpu = 0;
                for (int node = 0; node < topology.nodeCount(); node++) {
                    int[] cpus = topology.cpusOfNode(node);
                    largest = Math.max(largest, cpus.length);
                    for (int cpu : cpus) {
                        maxCpu = Math.max(maxCpu, cpu);
                    }
                }
                shift = shiftFor(largest);
                int mask = (1 << shift) - 1;
                slotByCpu = new int[maxCpu + 1];
                for (int node = 0; node < topology.nodeCount(); node++) {
                    int[] cpus = topology.cpusOfNode(node);
                    for (int i = 0; i < cpus.length; i++) {
                        slotByCpu[cpus[i]] = ((node % MAX_NODES) << shift) | (i & mask);
                    }
                }
                CurrentCpu.cpu();   // initialize it now: its failure would otherwise surface in an acquire
            } catch (RuntimeException | LinkageError e) {
                System.getLogger(CloseableAcquireCounter.class.getName()).log(System.Logger.Level.WARNING,
                        "numaloom: topology unavailable, CloseableAcquireCounter stripes by thread only: " + e);
                nodes = 1;
                shift = shiftFor(Runtime.getRuntime().availableProcessors());
                slotByCpu = null;
            }
            NODES = nodes;
            SHIFT = shift;
            SLOT_BY_CPU = slotByCpu;
            int mask = (1 << shift) - 1;
            HOME = slotByCpu != null ? MachineShape::cpuSlot : () -> threadHash() & mask;
        }

        private static int cpuSlot() {
            return slotOf(CurrentCpu.cpu());
        }

        static int slotOf(int cpu) {
            int[] slots = SLOT_BY_CPU;
            return cpu >= 0 && cpu < slots.length ? slots[cpu] : cpu & ((1 << SHIFT) - 1);
        }
    }
}
