package io.numaloom.bench.cli;

import io.numaloom.scheduler.CpuAffinity;
import io.numaloom.bench.run.ThreadPlacement;
import io.numaloom.topology.CurrentCpu;
import io.numaloom.topology.Topology;

import java.io.PrintStream;

/** {@code ./numaloom topology}: what numaloom sees of this machine. */
final class TopologyCommand {
    private TopologyCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        String spec = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--help", "-h" -> {
                    out.print("""
                            Usage: ./numaloom topology [--topology SPEC]

                            Prints the NUMA topology numaloom uses (io.numaloom.topology.Topology.current()): CPUs,
                            nodes, sockets and where they were read from; the source of the current CPU
                            (CurrentCpu: sched_getcpu through FFM, or a per-thread spread); the CPUs this process may
                            run on; and whether the bench can pin carrier threads.

                              --topology SPEC  a virtual topology, as -Dnumaloom.topology=SPEC: "nodes=2",
                                               "nodes=4,sockets=2" or a map like "0-3:0,4-7:1"
                            """);
                    return Main.OK;
                }
                case "--topology" -> {
                    if (i + 1 >= args.length) {
                        throw new Main.UsageException("--topology needs a value, e.g. nodes=2");
                    }
                    spec = args[++i];
                }
                default -> throw new Main.UsageException("unknown option '" + args[i] + "'");
            }
        }
        Topology topology;
        try {
            topology = spec == null ? Topology.current() : Topology.parse(spec);
        } catch (IllegalArgumentException e) {
            err.println("numaloom topology: " + e.getMessage());
            return Main.USAGE;
        }
        out.println(topology);
        out.println();
        out.println("Current CPU source: " + CurrentCpu.source() + " (" + CurrentCpu.sourceReason() + ")");
        int cpu = CurrentCpu.cpu();
        out.println("This thread now: cpu " + cpu + ", node " + topology.nodeOf(cpu) + ", socket " + topology.socketOf(cpu));
        var allowed = CpuAffinity.allowedCpus();
        out.println("CPUs this process may use: " + (allowed.isEmpty() ? "unknown" : allowed));
        out.println("Carrier pinning: " + CpuAffinity.unavailableReason().map(r -> "unavailable (" + r + ")")
                .orElse("available (FFM sched_setaffinity; the scheduler of pinned carriers needs "
                        + "--add-opens java.base/java.lang=ALL-UNNAMED, which the bench passes to measured JVMs)"));
        out.println("Default virtual-thread carriers: " + Runtime.getRuntime().availableProcessors()
                + " (set per bench with \"carriers\", i.e. -D" + ThreadPlacement.PARALLELISM_PROPERTY + ")");
        return Main.OK;
    }
}
