package io.numaloom.bench.result;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * One session of a run: the run's start, or one {@code --resume} of it. A run cut short (Ctrl-C, a crash) and resumed
 * is measured in two or more sessions, perhaps hours apart and under other loads; each point's row names its session
 * ({@link PointResult#session()}) and {@code machine.json} keeps every session, so that the report compares only
 * points measured in one session and says where a comparison would span two.
 *
 * @param number      1 for the run's start, 2 for its first {@code --resume}, and so on
 * @param started     when the session started, ISO-8601; null where not recorded (a run started before sessions were)
 * @param stalls      the machine's stalls measured before the session's first point; null if not measured
 * @param loadAverage the system load average over the last minute when the session started, before its probe (the
 *                    runnable threads of every process: a load near the CPU count or above means the points shared the
 *                    machine); null where unknown
 * @param cpus        the CPUs available to the bench when the session started
 */
public record Session(int number, String started, MachineStalls stalls, Double loadAverage, int cpus) {

    /** The one-minute load average of this machine now, or null where the OS does not give it. */
    public static Double loadAverageNow() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 || !Double.isFinite(load) ? null : load;
    }

    /** "session 2, started 2026-11-27T12:00:00Z, load average 3.10 on 2 CPUs, 2 spinning threads for 2 s: ...". */
    public String describe() {
        StringBuilder sb = new StringBuilder("session ").append(number);
        if (started != null) {
            sb.append(", started ").append(started);
        }
        if (loadAverage != null) {
            sb.append(String.format(Locale.ROOT, ", load average %.2f on %d CPU%s", loadAverage, cpus, cpus == 1 ? "" : "s"));
        }
        if (stalls != null) {
            sb.append(", stalls: ").append(stalls.describe());
        }
        return sb.toString();
    }

    /** "session 2 (started 2026-11-27T12:00:00Z, load 3.10)": the short form of the console. */
    public String brief() {
        StringBuilder sb = new StringBuilder("session ").append(number);
        String sep = " (";
        if (started != null) {
            sb.append(sep).append("started ").append(started);
            sep = ", ";
        }
        if (loadAverage != null) {
            sb.append(sep).append(String.format(Locale.ROOT, "load %.2f", loadAverage));
            sep = ", ";
        }
        if (stalls != null) {
            sb.append(sep).append(String.format(Locale.ROOT, "longest stall %.1f ms", stalls.longestNs() / 1e6));
            sep = ", ";
        }
        return sep.equals(", ") ? sb.append(')').toString() : sb.toString();
    }
}
