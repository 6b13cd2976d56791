package io.numaloom.bench.result;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaloom.LockDiagnostics;
import io.numaloom.bench.SectionGaps;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.DataFormatException;

/**
 * What a measured JVM (one JMH fork) found besides the times JMH reports, written as a JSON side file
 * ({@code fork-<pid>.json} in the point's work directory) and read back by the parent. JMH's own results
 * carry only the timed score; the per-thread counts, latency histogram and handoff counts travel here.
 * Only measurement rounds count; warm-up rounds are checked but not reported.
 *
 * @param pid                 the measured JVM's process id
 * @param operationsPerRound  operations of one round (the throughput's numerator)
 * @param jain                Jain's fairness index of every measured round
 * @param minMax              min/max count ratio of every measured round
 * @param latency             the acquire-latency histogram of all measured rounds, compressed and Base64
 *                            encoded (HdrHistogram's format), or null if none was recorded
 * @param handoffs            handoffs in all measured rounds
 * @param localHandoffs       of which stayed on one node
 * @param placement           how the threads were placed ({@link io.numaloom.bench.run.ThreadPlacement#description()})
 * @param cpuSource           where the node of a thread came from ({@code CurrentCpu.source()})
 * @param topology            the topology the JVM saw, one line
 * @param error               the failure that ended the fork, or null
 * @param diagnostics         VnaLock's contended-path counts over the measured rounds, or null when
 *                            {@code -Dnumaloom.diagnostics} is off
 * @param allocatedBytes      heap bytes allocated by every thread during the measured rounds (the timed part
 *                            only), or null where the JVM cannot count them
 * @param retainedBytes       the size of what the last measured round's {@code Round.footprint()} reaches (JOL),
 *                            or null when the workload reports no footprint
 * @param nodeAcquisitions    acquisitions whose nodes were tracked in all measured rounds (null on one node or
 *                            from an older report)
 * @param foreignAcquisitions of which made on another node than the one the thread asked for the lock on
 * @param migrations          times a worker was seen on another node than the last time it was looked at
 * @param pairedLatency       the response times of the paired system of all measured rounds ({@code Round.pairedLatency()}),
 *                            encoded as {@code latency}; null when the workload has none
 * @param futileWakeups       returns from a condition's await that found the predicate still false, in all measured
 *                            rounds ({@code Round.conditionWaits()}); null when the workload counts none (also in a
 *                            report of an older build)
 * @param signalToLock        the times from a signal to the signalled thread holding the lock, in all measured
 *                            rounds, encoded as {@code latency}; null when the workload counts none
 * @param sectionGaps         the gaps between critical sections in all measured rounds, when the bench's
 *                            {@code handoffTiming} setting is on; else null
 */
public record ForkReport(long pid, long operationsPerRound, List<Double> jain, List<Double> minMax, String latency,
                         long handoffs, long localHandoffs, String placement, String cpuSource, String topology,
                         String error, LockDiagnostics.Counts diagnostics, Long allocatedBytes, Long retainedBytes,
                         Long nodeAcquisitions, Long foreignAcquisitions, Long migrations, String pairedLatency,
                         Long futileWakeups, String signalToLock, SectionGaps sectionGaps) {

    /** A report without condition waits. */
    public ForkReport(long pid, long operationsPerRound, List<Double> jain, List<Double> minMax, String latency,
                      long handoffs, long localHandoffs, String placement, String cpuSource, String topology,
                      String error, LockDiagnostics.Counts diagnostics, Long allocatedBytes, Long retainedBytes,
                      Long nodeAcquisitions, Long foreignAcquisitions, Long migrations, String pairedLatency) {
        this(pid, operationsPerRound, jain, minMax, latency, handoffs, localHandoffs, placement, cpuSource, topology, error,
                diagnostics, allocatedBytes, retainedBytes, nodeAcquisitions, foreignAcquisitions, migrations, pairedLatency,
                null, null, null);
    }

    /** A report without a paired system. */
    public ForkReport(long pid, long operationsPerRound, List<Double> jain, List<Double> minMax, String latency,
                      long handoffs, long localHandoffs, String placement, String cpuSource, String topology,
                      String error, LockDiagnostics.Counts diagnostics, Long allocatedBytes, Long retainedBytes,
                      Long nodeAcquisitions, Long foreignAcquisitions, Long migrations) {
        this(pid, operationsPerRound, jain, minMax, latency, handoffs, localHandoffs, placement, cpuSource, topology, error,
                diagnostics, allocatedBytes, retainedBytes, nodeAcquisitions, foreignAcquisitions, migrations, null, null, null, null);
    }

    /** A report without node tracking. */
    public ForkReport(long pid, long operationsPerRound, List<Double> jain, List<Double> minMax, String latency,
                      long handoffs, long localHandoffs, String placement, String cpuSource, String topology,
                      String error, LockDiagnostics.Counts diagnostics, Long allocatedBytes, Long retainedBytes) {
        this(pid, operationsPerRound, jain, minMax, latency, handoffs, localHandoffs, placement, cpuSource, topology, error,
                diagnostics, allocatedBytes, retainedBytes, null, null, null, null, null, null, null);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Whether the measured JVM saw one NUMA node ({@code topology} as {@code PointBenchmark} writes it). */
    public boolean oneNode() {
        return topology != null && topology.contains(", 1 nodes;");
    }

    /** Writes this report into {@code dir} atomically (a reader never sees half a file). */
    public void writeTo(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path tmp = dir.resolve("fork-" + pid + ".json.tmp");
        JSON.writeValue(tmp.toFile(), this);
        Files.move(tmp, dir.resolve("fork-" + pid + ".json"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Every report in {@code dir}, in file-name order. */
    public static List<ForkReport> readAll(Path dir) throws IOException {
        List<ForkReport> reports = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return reports;
        }
        try (var files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.getFileName().toString().matches("fork-\\d+\\.json")).sorted().toList()) {
                reports.add(JSON.readValue(p.toFile(), ForkReport.class));
            }
        }
        return reports;
    }

    /** Adds {@code h} to {@code sum}, made on the first non-null {@code h}; returns the sum (null while none). */
    public static Histogram accumulate(Histogram sum, Histogram h) {
        if (h == null) {
            return sum;
        }
        Histogram into = sum == null ? new Histogram(2) : sum;
        into.add(h);
        return into;
    }

    /** Encodes a histogram for {@link #latency}. */
    public static String encode(Histogram histogram) {
        if (histogram == null) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
    }

    /** Decodes {@link #latency}; null for null. */
    public static Histogram decode(String encoded) {
        if (encoded == null) {
            return null;
        }
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(encoded)), 0);
        } catch (DataFormatException e) {
            throw new IllegalArgumentException("corrupt latency histogram", e);
        }
    }
}
