package io.numaloom.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Everything a measured JVM needs to run one point (one bench, one lock, one thread count), sent as the
 * single JMH parameter of {@link io.numaloom.bench.run.PointBenchmark} in URL-safe Base64 of its JSON.
 *
 * @param benchId         the bench's id, for messages
 * @param workload        the workload's configuration name ({@code consumeCpu}, ...)
 * @param settings        the workload's validated settings
 * @param lock            the lock registry name
 * @param threads         the number of worker threads
 * @param threadType      {@code virtual} or {@code platform}
 * @param carriers        the requested carrier count
 * @param pinCarriers     whether to pin carriers (or platform threads)
 * @param scheduler       {@code default} or {@code numa}, see {@link io.numaloom.bench.run.ThreadPlacement}
 * @param remotePenaltyNs the NUMA cost model's penalty per remote handoff
 * @param migrationPenaltyNs the NUMA cost model's penalty per migration of a thread between nodes
 * @param recordLatency   whether to record acquire latencies
 * @param timeoutSeconds  the longest a round may take
 * @param sidecarDir      the directory the JVM writes its {@link io.numaloom.bench.result.ForkReport} into
 */
public record PointSpec(String benchId, String workload, ObjectNode settings, String lock, int threads,
                        String threadType, int carriers, boolean pinCarriers, String scheduler, long remotePenaltyNs, long migrationPenaltyNs,
                        boolean recordLatency, int timeoutSeconds, String sidecarDir) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** This spec as a JMH parameter value. */
    public String encode() {
        try {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(JSON.writeValueAsBytes(this));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The spec of a JMH parameter value. */
    public static PointSpec decode(String encoded) {
        try {
            return JSON.readValue(new String(Base64.getUrlDecoder().decode(encoded), StandardCharsets.UTF_8), PointSpec.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not an encoded point: " + e.getOriginalMessage(), e);
        }
    }
}
