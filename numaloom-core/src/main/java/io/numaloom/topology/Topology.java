package io.numaloom.topology;

/** API placeholder: the topology helper replaces this file with the real implementation. */
public final class Topology {
    private static final Topology CURRENT = new Topology();

    public static Topology current() { return CURRENT; }
    public int cpuCount() { return Runtime.getRuntime().availableProcessors(); }
    public int nodeCount() { return 1; }
    public int nodeOf(int cpu) { return 0; }
    public int socketCount() { return 1; }
    public int socketOf(int cpu) { return 0; }
}
