package io.numaloom.bench.locks;

import io.numaloom.topology.CurrentCpu;
import io.numaloom.topology.Topology;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * Where a NUMA-aware baseline gets its node ids: how many nodes there are, which one the calling thread runs
 * on now, and which socket each node belongs to. Indices are dense ({@code 0..count()-1}), whatever the
 * kernel's ids are; the topology layer maps sparse kernel ids to dense ones.
 *
 * <p>{@link #system()} follows the process topology ({@code -Dnumaloom.topology=...} or detection) and
 * {@link CurrentCpu#node()}; {@link #of(int, IntSupplier)} lets a test run two or four nodes in one JVM with
 * any assignment of threads to nodes, including one that changes between calls (a migrating thread).
 */
public final class NumaNodes {
    private final int count;
    private final IntSupplier current;
    private final int[] socketOfNode;
    private final int socketCount;
    private final boolean system;

    private NumaNodes(int count, IntSupplier current, int[] socketOfNode, boolean system) {
        if (count < 1) {
            throw new IllegalArgumentException("node count must be at least 1, got " + count);
        }
        if (socketOfNode.length != count) {
            throw new IllegalArgumentException("socketOfNode has " + socketOfNode.length + " entries for " + count + " nodes");
        }
        this.count = count;
        this.current = Objects.requireNonNull(current, "current node supplier");
        this.socketOfNode = socketOfNode.clone();
        this.socketCount = Arrays.stream(socketOfNode).max().orElse(0) + 1;
        this.system = system;
        for (int s : socketOfNode) {
            if (s < 0) {
                throw new IllegalArgumentException("negative socket index in " + Arrays.toString(socketOfNode));
            }
        }
    }

    /** The process topology: {@code Topology.current()} and {@code CurrentCpu.node()}. */
    public static NumaNodes system() {
        Topology t = Topology.current();
        int nodes = t.nodeCount();
        int[] sockets = new int[nodes];
        for (int n = 0; n < nodes; n++) {
            int[] cpus = t.cpusOfNode(n);
            sockets[n] = cpus.length == 0 ? 0 : t.socketOf(cpus[0]);
        }
        return new NumaNodes(nodes, CurrentCpu::node, sockets, true);
    }

    /**
     * {@code count} nodes, the current one given by {@code current}; nodes are grouped into sockets of two
     * consecutive nodes ({@code 0,1 | 2,3 | ...}), so that three-level locks have a middle level to use.
     */
    public static NumaNodes of(int count, IntSupplier current) {
        int[] sockets = new int[Math.max(count, 0)];
        Arrays.setAll(sockets, n -> n / 2);
        return new NumaNodes(count, current, sockets, false);
    }

    /** {@code count} nodes with an explicit socket index for each node. */
    public static NumaNodes of(int count, IntSupplier current, int[] socketOfNode) {
        return new NumaNodes(count, current, socketOfNode, false);
    }

    /** Whether these are the process topology's nodes ({@link #system()}), not an explicit assignment. */
    public boolean isSystem() {
        return system;
    }

    public int count() {
        return count;
    }

    /**
     * The node the calling thread runs on now.
     *
     * @throws IllegalStateException if the supplier returns an index outside {@code [0, count())}
     */
    public int current() {
        int n = current.getAsInt();
        if (n < 0 || n >= count) {
            throw new IllegalStateException("node supplier returned " + n + ", outside [0, " + count + ")");
        }
        return n;
    }

    public int socketCount() {
        return socketCount;
    }

    public int socketOf(int node) {
        return socketOfNode[node];
    }

    @Override
    public String toString() {
        return "NumaNodes[nodes=" + count + ", sockets=" + Arrays.toString(socketOfNode) + "]";
    }
}
