package io.numaloom.topology;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;

/**
 * The machine's CPUs grouped into NUMA nodes, sockets and clusters, with every group numbered densely from
 * zero so that callers can index arrays by it. A {@code Topology} is immutable; {@link #current()} is the
 * one the library uses, detected once per JVM or given by the {@code numaloom.topology} system property.
 *
 * <p>The hot query is {@link #nodeOf(int) nodeOf(cpu)}, one bounds check and one array load;
 * {@link CurrentCpu#node()} pairs it with the CPU the calling thread runs on.
 *
 * <h2>Detection</h2>
 * {@link #detect()} reads Linux sysfs:
 * <ul>
 * <li>online CPUs from {@code /sys/devices/system/cpu/online} (kernel list syntax: {@code 0-3,8-11});
 * <li>NUMA nodes from {@code /sys/devices/system/node/node<id>/cpulist}, or {@code cpumap} (a hex mask) where
 *     no {@code cpulist} exists. Kernel node ids may be sparse ({@code node0}, {@code node2}); they map to
 *     dense indices in ascending order ({@code 0}, {@code 1}), and {@link #kernelNodeId(int)} maps back.
 *     Nodes without online CPUs (memory-only nodes such as CXL or HBM expanders) get no index. Without a
 *     {@code node} directory (a kernel without NUMA) all CPUs form one node;
 * <li>sockets from {@code cpu<id>/topology/physical_package_id}, densely in ascending package id; an
 *     unreadable file counts as package {@code -1}, so all such CPUs share one socket;
 * <li>clusters (CPUs sharing a cache below the socket, typically an L2) from
 *     {@code cpu<id>/topology/cluster_id}, keyed by (package, cluster id), where every online CPU reports a
 *     cluster id that is neither {@code -1} nor {@code 65535} (the kernel's "unknown" values on arm64 and
 *     x86). Otherwise there is one cluster per core ({@code core_id}, which groups SMT siblings), and where
 *     {@code core_id} is missing too, one cluster per socket.
 * </ul>
 * Online CPUs and node membership are required: if they cannot be read or parsed, or the OS is not Linux,
 * the result is a fallback topology of one node, one socket and one cluster over the CPU ids
 * {@code 0..availableProcessors()-1}, and {@link #source()} says why (for example
 * {@code "fallback: not Linux (os.name=Mac OS X)"} or
 * {@code "fallback: cannot read /sys/devices/system/cpu/online (no such file)"}). Detection never throws.
 * A topology describes the machine, not the process: CPUs outside the process's affinity mask or cgroup
 * cpuset are included.
 *
 * <h2>Virtual topologies: the {@code numaloom.topology} property</h2>
 * A virtual topology regroups the detected online CPUs, so that NUMA code paths run on one-node machines.
 * {@link #current()} uses it when the system property {@code numaloom.topology} is set; an empty value or
 * {@code detect} means detection. Two forms; whitespace around items is ignored:
 * <pre>{@code
 * spec    := "nodes=" N [ ",sockets=" S ]       (the two keys in either order)
 *          | entry ( "," entry )*
 * entry   := cpus ":" node [ "@" socket ]
 * cpus    := cpu | cpu "-" cpu                  (inclusive range)
 * }</pre>
 * <ul>
 * <li>{@code nodes=N} splits the online CPUs, in ascending id order, into {@code N} contiguous nodes whose
 *     sizes differ by at most one (the first {@code cpuCount % N} nodes get the extra CPU). {@code N} may be
 *     1 to the number of online CPUs.
 * <li>{@code sockets=S} groups the nodes, in order, into {@code S} contiguous sockets the same way
 *     ({@code 1 <= S <= N}). Without it every virtual node is its own socket, so that the plain
 *     {@code nodes=N} also exercises per-socket code.
 * <li>The map form assigns each range of CPUs to a node id and, optionally, a socket id. Ids need not be
 *     dense: like kernel ids they map to dense indices in ascending order, and {@link #kernelNodeId(int)}
 *     returns the id written in the spec (so {@code 0-3:0,4-7:2} reproduces a machine with sparse node
 *     ids). Several entries may name the same node. Every online CPU must be mapped exactly once. Either
 *     every entry names a socket or none does; without sockets every node is its own socket; a node may
 *     not be put in two sockets.
 * <li>In a virtual topology each node is one cluster.
 * </ul>
 * Examples, on a machine with CPUs 0-7 online:
 * <pre>{@code
 * nodes=2                          nodes 0-3 | 4-7, sockets 0-3 | 4-7
 * nodes=3                          nodes 0-2 | 3-5 | 6-7
 * nodes=4,sockets=2                nodes 0-1 | 2-3 | 4-5 | 6-7, sockets 0-3 | 4-7
 * 0-3:0,4-7:1                      nodes 0-3 | 4-7
 * 0-1:0,4-5:0,2-3:1,6-7:1          nodes 0-1,4-5 | 2-3,6-7
 * 0-1:0@0,2-3:1@0,4-5:2@1,6-7:3@1  four nodes, two per socket
 * 0-3:0,4-7:2                      two nodes, kernelNodeId(1) == 2
 * }</pre>
 * A malformed or impossible spec throws an {@link IllegalArgumentException} whose message quotes the spec
 * and names the problem, for example
 * {@code numaloom.topology="nodes=9" is invalid: nodes=9 asks for more nodes than the 8 online cpus (0-7)}.
 * {@link #current()} throws it on every call (so does {@link CurrentCpu#node()}): a mistyped override
 * fails loudly instead of silently measuring the wrong machine.
 *
 * <h2>CPU ids that are not online</h2>
 * Per-CPU queries ({@link #nodeOf}, {@link #socketOf}, {@link #clusterOf}) map an id that was not online
 * when the topology was built (a negative id, an id above the largest online one, or a CPU hot-added
 * later) to index {@code 0}, so that callers always get a valid index and never an exception.
 */
public final class Topology {

    /** The system property that overrides detection. */
    public static final String PROPERTY = "numaloom.topology";

    private static final String SYSFS_ROOT = "/sys";

    /** Online CPU ids, ascending. */
    private final int[] cpus;
    /** Dense node, socket and cluster by CPU id; ids that are not online hold 0. */
    private final int[] nodeByCpu;
    private final int[] socketByCpu;
    private final int[] clusterByCpu;
    /** Kernel (or spec) node and socket id by dense index, ascending. */
    private final int[] kernelNodeIds;
    private final int[] kernelSocketIds;
    private final int clusterCount;
    private final int[][] cpusByNode;
    private final int[][] cpusBySocket;
    private final int[][] cpusByCluster;
    /** How clusters were formed, for toString: "cluster_id", "one per core", "one per socket" or "one per node". */
    private final String clusterBasis;
    private final String source;

    /**
     * Builds a topology from per-CPU keys. All arrays are parallel to {@code cpus} (ascending, distinct,
     * non-empty); each key array is densified in ascending key order.
     */
    Topology(int[] cpus, int[] nodeKeys, int[] socketKeys, long[] clusterKeys, String clusterBasis, String source) {
        int n = cpus.length;
        if (n == 0 || nodeKeys.length != n || socketKeys.length != n || clusterKeys.length != n) {
            throw new IllegalArgumentException("topology needs at least one cpu and one key of each kind per cpu");
        }
        for (int i = 1; i < n; i++) {
            if (cpus[i] <= cpus[i - 1]) {
                throw new IllegalArgumentException("cpu ids must be ascending and distinct: " + Arrays.toString(cpus));
            }
        }
        if (cpus[0] < 0) {
            throw new IllegalArgumentException("cpu ids must not be negative: " + cpus[0]);
        }
        this.cpus = cpus.clone();
        this.kernelNodeIds = distinct(nodeKeys);
        this.kernelSocketIds = distinct(socketKeys);
        long[] clusterIds = distinct(clusterKeys);
        this.clusterCount = clusterIds.length;
        int size = cpus[n - 1] + 1;
        this.nodeByCpu = new int[size];
        this.socketByCpu = new int[size];
        this.clusterByCpu = new int[size];
        for (int i = 0; i < n; i++) {
            nodeByCpu[cpus[i]] = Arrays.binarySearch(kernelNodeIds, nodeKeys[i]);
            socketByCpu[cpus[i]] = Arrays.binarySearch(kernelSocketIds, socketKeys[i]);
            clusterByCpu[cpus[i]] = Arrays.binarySearch(clusterIds, clusterKeys[i]);
        }
        this.cpusByNode = group(this.cpus, nodeByCpu, kernelNodeIds.length);
        this.cpusBySocket = group(this.cpus, socketByCpu, kernelSocketIds.length);
        this.cpusByCluster = group(this.cpus, clusterByCpu, clusterCount);
        this.clusterBasis = clusterBasis;
        this.source = Objects.requireNonNull(source);
    }

    // ---------------------------------------------------------------------------------------------
    // Factories

    /**
     * {@return the topology the library uses: the one described by the {@code numaloom.topology} system
     * property if it is set (and is neither empty nor {@code detect}), else the detected one} It is computed
     * once per JVM, on first use, and the same instance is returned afterwards.
     *
     * @throws IllegalArgumentException on every call, if the property holds a malformed or impossible spec
     */
    public static Topology current() {
        Topology t = Current.TOPOLOGY;
        if (t == null) {
            throw currentFailed();
        }
        return t;
    }

    private static IllegalArgumentException currentFailed() {
        // A fresh exception per call, so that each caller gets its own stack trace.
        return new IllegalArgumentException(Current.ERROR.getMessage(), Current.ERROR);
    }

    /**
     * Detects the topology from sysfs now, ignoring the {@code numaloom.topology} property. Never throws:
     * on a system that is not Linux, or whose sysfs cannot be read, it returns a one-node, one-socket
     * topology whose {@link #source()} says why.
     *
     * @return the detected topology, or the fallback
     */
    public static Topology detect() {
        return detect(System.getProperty("os.name", ""), Path.of(SYSFS_ROOT));
    }

    /**
     * Detects the topology of an OS named {@code osName} (as in the {@code os.name} property) from the sysfs
     * tree mounted at {@code sysRoot} (normally {@code /sys}). Never throws; see {@link #detect()}.
     */
    static Topology detect(String osName, Path sysRoot) {
        if (!osName.startsWith("Linux")) {
            return fallback("not Linux (os.name=" + osName + ")");
        }
        try {
            return SysfsReader.read(sysRoot);
        } catch (SysfsReader.Unreadable e) {
            return fallback(e.getMessage());
        } catch (RuntimeException e) {
            return fallback("unexpected " + e);
        }
    }

    /** The one-node topology used when detection fails; {@code why} goes into {@link #source()}. */
    static Topology fallback(String why) {
        int n = Math.max(1, Runtime.getRuntime().availableProcessors());
        int[] cpus = new int[n];
        for (int i = 0; i < n; i++) {
            cpus[i] = i;
        }
        return new Topology(cpus, new int[n], new int[n], new long[n], "one per socket", "fallback: " + why);
    }

    /**
     * Parses a virtual topology over the detected online CPUs. See the class comment for the grammar.
     *
     * @param spec a topology spec (see the class comment)
     * @return the virtual topology
     * @throws IllegalArgumentException if the spec is malformed or impossible; the message quotes it
     * @throws NullPointerException if {@code spec} is null
     */
    public static Topology parse(String spec) {
        return TopologySpec.parse(spec, Detected.TOPOLOGY.cpus);
    }

    /**
     * Parses a virtual topology over the given online CPU ids (any order, distinct, non-negative).
     *
     * @param spec a topology spec (see the class comment)
     * @param onlineCpus the online CPU ids
     * @return the virtual topology
     * @throws IllegalArgumentException if the spec is malformed or impossible, or the CPU ids are empty,
     *         negative or repeated
     * @throws NullPointerException if an argument is null
     */
    public static Topology parse(String spec, int[] onlineCpus) {
        Objects.requireNonNull(spec, "spec");
        int[] sorted = onlineCpus.clone();
        Arrays.sort(sorted);
        if (sorted.length == 0) {
            throw new IllegalArgumentException("no online cpus given");
        }
        if (sorted[0] < 0 || sorted[sorted.length - 1] > CpuList.MAX_CPU_ID) {
            throw new IllegalArgumentException("online cpu ids must be in [0, " + CpuList.MAX_CPU_ID + "]: " + Arrays.toString(onlineCpus));
        }
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                throw new IllegalArgumentException("online cpu " + sorted[i] + " is given twice");
            }
        }
        return TopologySpec.parse(spec, sorted);
    }

    /** Online CPU ids of the detected topology, shared (not copied): for {@link CurrentCpu}'s spread. */
    static int[] detectedCpus() {
        return Detected.TOPOLOGY.cpus;
    }

    // ---------------------------------------------------------------------------------------------
    // Queries

    /** {@return the number of online CPUs} */
    public int cpuCount() {
        return cpus.length;
    }

    /** {@return the online CPU ids in ascending order (a fresh copy)} */
    public int[] cpus() {
        return cpus.clone();
    }

    /** {@return the number of NUMA nodes that have online CPUs; node indices are {@code 0..nodeCount()-1}} */
    public int nodeCount() {
        return kernelNodeIds.length;
    }

    /**
     * {@return the dense node index of CPU {@code cpu}, in {@code [0, nodeCount())}; {@code 0} for an id that
     * is not online} One bounds check and one array load.
     *
     * @param cpu a CPU id
     */
    public int nodeOf(int cpu) {
        int[] map = nodeByCpu;
        return cpu >= 0 && cpu < map.length ? map[cpu] : 0;
    }

    /** {@return the number of sockets (packages); socket indices are {@code 0..socketCount()-1}} */
    public int socketCount() {
        return kernelSocketIds.length;
    }

    /**
     * {@return the dense socket index of CPU {@code cpu}, in {@code [0, socketCount())}; 0 if not online}
     *
     * @param cpu a CPU id
     */
    public int socketOf(int cpu) {
        int[] map = socketByCpu;
        return cpu >= 0 && cpu < map.length ? map[cpu] : 0;
    }

    /**
     * {@return the number of clusters: groups of CPUs sharing a cache below the socket where the kernel
     * exposes {@code cluster_id}, else cores, else sockets; in a virtual topology, nodes} See the class
     * comment.
     */
    public int clusterCount() {
        return clusterCount;
    }

    /**
     * {@return the dense cluster index of CPU {@code cpu}, in {@code [0, clusterCount())}; 0 if not online}
     *
     * @param cpu a CPU id
     */
    public int clusterOf(int cpu) {
        int[] map = clusterByCpu;
        return cpu >= 0 && cpu < map.length ? map[cpu] : 0;
    }

    /**
     * {@return the online CPUs of node {@code node}, ascending (a fresh copy)}
     *
     * @param node a dense node index, in {@code [0, nodeCount())}
     * @throws IllegalArgumentException if {@code node} is not in {@code [0, nodeCount())}; the message names the
     *         node count
     */
    public int[] cpusOfNode(int node) {
        return cpusByNode[check("node", node, cpusByNode.length)].clone();
    }

    /**
     * {@return the online CPUs of socket {@code socket}, ascending (a fresh copy)}
     *
     * @param socket a dense socket index, in {@code [0, socketCount())}
     * @throws IllegalArgumentException if {@code socket} is not in {@code [0, socketCount())}; the message names
     *         the socket count
     */
    public int[] cpusOfSocket(int socket) {
        return cpusBySocket[check("socket", socket, cpusBySocket.length)].clone();
    }

    /**
     * {@return the online CPUs of cluster {@code cluster}, ascending (a fresh copy)}
     *
     * @param cluster a dense cluster index, in {@code [0, clusterCount())}
     * @throws IllegalArgumentException if {@code cluster} is not in {@code [0, clusterCount())}; the message names
     *         the cluster count
     */
    public int[] cpusOfCluster(int cluster) {
        return cpusByCluster[check("cluster", cluster, cpusByCluster.length)].clone();
    }

    /**
     * {@return the kernel's id of dense node {@code node} (the {@code N} of {@code nodeN} in sysfs, or the
     * node id written in a map spec)} Sparse ids such as {@code node0, node2} have indices {@code 0, 1}.
     *
     * @param node a dense node index, in {@code [0, nodeCount())}
     * @throws IllegalArgumentException if {@code node} is not in {@code [0, nodeCount())}; the message names the
     *         node count
     */
    public int kernelNodeId(int node) {
        return kernelNodeIds[check("node", node, kernelNodeIds.length)];
    }

    /**
     * {@return the kernel's {@code physical_package_id} of dense socket {@code socket} ({@code -1} where the
     * kernel did not say), or the socket id written in a map spec}
     *
     * @param socket a dense socket index, in {@code [0, socketCount())}
     * @throws IllegalArgumentException if {@code socket} is not in {@code [0, socketCount())}; the message names
     *         the socket count
     */
    public int kernelSocketId(int socket) {
        return kernelSocketIds[check("socket", socket, kernelSocketIds.length)];
    }

    /**
     * {@code index} if it is one of {@code count} nodes, sockets or clusters; otherwise an
     * {@link IllegalArgumentException} that says how many there are and, for nodes and sockets, how a machine with
     * fewer gets more (a virtual topology).
     */
    private static int check(String what, int index, int count) {
        if (index >= 0 && index < count) {
            return index;
        }
        String more = switch (what) {
            case "node" -> "; -D" + PROPERTY + "=nodes=2 (or more) splits this machine's CPUs into virtual nodes";
            case "socket" -> "; -D" + PROPERTY + "=nodes=2,sockets=2 gives this machine virtual sockets";
            default -> "";
        };
        throw new IllegalArgumentException(what + " " + index + " is not one of this topology's " + count + " " + what
                + (count == 1 ? "" : "s") + " (" + (count == 1 ? "0" : "0 to " + (count - 1)) + ")" + more);
    }

    /**
     * {@return where this topology came from: {@code "sysfs"} (or {@code "sysfs at <root>"} for a tree other
     * than {@code /sys}), {@code "numaloom.topology=<spec> (virtual)"}, or {@code "fallback: <why>"}}
     */
    public String source() {
        return source;
    }

    /** {@return whether this is the fallback topology of a failed detection} */
    public boolean isFallback() {
        return source.startsWith("fallback:");
    }

    /**
     * Returns a human summary over several lines: the counts and source, then each node with its kernel id,
     * CPUs and socket(s), for example:
     * <pre>{@code
     * Topology: 8 cpus (0-7), 2 nodes, 1 socket, 4 clusters (cluster_id); source: sysfs
     *   node 0 (kernel node 0): cpus 0-3, socket 0
     *   node 1 (kernel node 2): cpus 4-7, socket 0
     * }</pre>
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Topology: ")
                .append(plural(cpus.length, "cpu")).append(" (").append(CpuList.format(cpus)).append("), ")
                .append(plural(nodeCount(), "node")).append(", ")
                .append(plural(socketCount(), "socket")).append(", ")
                .append(plural(clusterCount, "cluster")).append(" (").append(clusterBasis).append("); source: ")
                .append(source);
        for (int node = 0; node < cpusByNode.length; node++) {
            int[] members = cpusByNode[node];
            int[] sockets = new int[members.length];
            for (int i = 0; i < members.length; i++) {
                sockets[i] = socketByCpu[members[i]];
            }
            Arrays.sort(sockets);
            int[] distinctSockets = Arrays.stream(sockets).distinct().toArray();
            sb.append(System.lineSeparator())
                    .append("  node ").append(node).append(" (kernel node ").append(kernelNodeIds[node]).append("): cpus ")
                    .append(CpuList.format(members))
                    .append(distinctSockets.length == 1 ? ", socket " : ", sockets ")
                    .append(CpuList.format(distinctSockets));
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers

    private static String plural(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private static int[] distinct(int[] keys) {
        return Arrays.stream(keys).sorted().distinct().toArray();
    }

    private static long[] distinct(long[] keys) {
        return Arrays.stream(keys).sorted().distinct().toArray();
    }

    /** Splits {@code cpus} (ascending) into {@code groups} ascending arrays by {@code groupOf[cpu]}. */
    private static int[][] group(int[] cpus, int[] groupOf, int groups) {
        int[] sizes = new int[groups];
        for (int cpu : cpus) {
            sizes[groupOf[cpu]]++;
        }
        int[][] out = new int[groups][];
        for (int g = 0; g < groups; g++) {
            out[g] = new int[sizes[g]];
        }
        int[] fill = new int[groups];
        for (int cpu : cpus) {
            int g = groupOf[cpu];
            out[g][fill[g]++] = cpu;
        }
        return out;
    }

    /** The detected topology, read once per JVM on first use. */
    private static final class Detected {
        static final Topology TOPOLOGY = detect();
    }

    /**
     * The topology of {@link #current()}: a static final field of a holder class, initialized on first use
     * and constant to the JIT afterwards. A bad spec leaves {@code TOPOLOGY} null and the error in
     * {@code ERROR}, so that every call reports it, instead of a one-time ExceptionInInitializerError
     * followed by NoClassDefFoundErrors.
     */
    private static final class Current {
        static final Topology TOPOLOGY;
        static final IllegalArgumentException ERROR;

        static {
            Topology topology = null;
            IllegalArgumentException error = null;
            String spec = System.getProperty(PROPERTY);
            if (spec == null || spec.isBlank() || spec.strip().equals("detect")) {
                topology = Detected.TOPOLOGY;
            } else {
                try {
                    topology = parse(spec);
                } catch (IllegalArgumentException e) {
                    error = e;
                }
            }
            TOPOLOGY = topology;
            ERROR = error;
        }
    }
}
