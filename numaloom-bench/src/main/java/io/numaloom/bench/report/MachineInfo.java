package io.numaloom.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.numaloom.bench.result.MachineStalls;
import io.numaloom.bench.result.Session;
import io.numaloom.topology.CurrentCpu;
import io.numaloom.topology.Topology;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The machine a run measured, as the report shows it: CPU model, cores, NUMA nodes, memory, OS, JDK and
 * flags. Collected by the bench JVM, which is the same JDK as the measured ones (they are forked from it).
 *
 * @param host         host name
 * @param cpuModel     {@code model name} of {@code /proc/cpuinfo}, or the architecture
 * @param cpus         available processors
 * @param nodes        NUMA nodes of the topology the bench JVM sees
 * @param topology     the topology summary ({@code Topology.toString()})
 * @param cpuSource    where the current CPU comes from ({@code CurrentCpu.source()} and why)
 * @param memory       {@code MemTotal} of {@code /proc/meminfo}
 * @param os           OS name, version and architecture
 * @param jdk          JDK vendor, name and version
 * @param javaHome     the JDK's home
 * @param benchJvmArgs the bench JVM's arguments (the measured JVMs' are in the configuration)
 * @param jmh          the JMH version
 * @param stalls       how long the machine took a CPU away from spinning threads before the run's first point (its
 *                     first session's probe, which a {@code --resume} keeps); null if not measured
 * @param timerFloorNs the shortest step between two consecutive {@code System.nanoTime()} readings here, ns: a
 *                     latency within twice this is the timer's floor, not a measurement; null if not measured
 * @param sessions     every session of the run, in order: its start and each {@code --resume}, with its own start, load
 *                     and stall probe; null in files written before sessions were recorded (see {@link #sessionsOrFirst})
 */
public record MachineInfo(String host, String cpuModel, int cpus, int nodes, String topology, String cpuSource,
                          String memory, String os, String jdk, String javaHome, List<String> benchJvmArgs, String jmh,
                          MachineStalls stalls, Long timerFloorNs, List<Session> sessions) {

    public static final String FILE = "machine.json";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** This machine, now, with the stalls measured before the first point (null if none were), and no sessions. */
    public static MachineInfo collect(MachineStalls stalls) {
        return collect(stalls, null);
    }

    /**
     * This machine, now, for a run measured in {@code sessions}: {@link #stalls} is the first session's probe, so that a
     * resumed run keeps the probe it started with beside the others.
     */
    public static MachineInfo collect(List<Session> sessions) {
        return collect(sessions.isEmpty() ? null : sessions.getFirst().stalls(), List.copyOf(sessions));
    }

    /**
     * The sessions of the run: {@link #sessions}, or, in a file written before sessions were recorded, one session 1 with
     * {@link #stalls} and nothing else known.
     */
    public List<Session> sessionsOrFirst() {
        return sessions != null && !sessions.isEmpty() ? sessions : List.of(new Session(1, null, stalls, null, cpus));
    }

    /** Session {@code number} of {@link #sessionsOrFirst}, or null where there is none. */
    public Session session(int number) {
        return sessionsOrFirst().stream().filter(s -> s.number() == number).findFirst().orElse(null);
    }

    private static MachineInfo collect(MachineStalls stalls, List<Session> sessions) {
        Topology topology = Topology.current();
        return new MachineInfo(readHostName(), readCpuModel(), Runtime.getRuntime().availableProcessors(), topology.nodeCount(),
                topology.toString(), CurrentCpu.source() + ": " + CurrentCpu.sourceReason(), readMemTotal(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                System.getProperty("java.vendor") + " " + System.getProperty("java.vm.name") + " "
                        + System.getProperty("java.runtime.version"),
                System.getProperty("java.home"), ManagementFactory.getRuntimeMXBean().getInputArguments(), readJmhVersion(),
                stalls, measureTimerFloorNs(), sessions);
    }

    /**
     * The smallest positive difference of two consecutive {@code System.nanoTime()} readings over many tries: what
     * one reading costs, or the clock's tick if that is coarser. A latency is measured as the difference of two
     * readings around the wait, so one within twice this cannot be told from no wait at all.
     */
    static long measureTimerFloorNs() {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 100_000; i++) {
            long a = System.nanoTime();
            long b = System.nanoTime();
            if (b > a && b - a < best) {
                best = b - a;
            }
        }
        return best == Long.MAX_VALUE ? 0 : best;
    }

    public void writeTo(Path dir) throws IOException {
        JSON.writeValue(dir.resolve(FILE).toFile(), this);
    }

    /** The machine of a run directory, or null if it has none. */
    public static MachineInfo readFrom(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        return Files.exists(file) ? JSON.readValue(file.toFile(), MachineInfo.class) : null;
    }

    /**
     * The timer floor of a run directory's machine, which the console and the report use for its latencies; null if
     * it has no machine.json, one written before the floor was recorded, or one that cannot be read.
     */
    public static Long timerFloorOf(Path dir) {
        try {
            MachineInfo machine = readFrom(dir);
            return machine == null ? null : machine.timerFloorNs();
        } catch (IOException | RuntimeException e) {
            return null; // every latency then reads in µs
        }
    }

    private static String readCpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name") || line.startsWith("Model") || line.startsWith("cpu model")) {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // Not Linux: the architecture is what there is.
        }
        return System.getProperty("os.arch");
    }

    private static String readMemTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return String.format("%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // Unknown.
        }
        return "unknown";
    }

    private static String readHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The JMH version from its Maven metadata, which the shaded jar keeps. */
    private static String readJmhVersion() {
        try (var in = MachineInfo.class.getResourceAsStream("/META-INF/maven/org.openjdk.jmh/jmh-core/pom.properties")) {
            if (in != null) {
                java.util.Properties p = new java.util.Properties();
                p.load(in);
                return p.getProperty("version", "unknown");
            }
        } catch (IOException ignored) {
            // Unknown.
        }
        return "unknown";
    }
}
