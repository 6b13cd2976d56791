package io.numaloom.bench.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A validated configuration: its benches with every default filled in, and the same as JSON
 * ({@link #effective()}), which is what {@code config.json} of a run holds and what {@code --resume} reads.
 *
 * @param source      where it came from, for messages
 * @param description the configuration's description, possibly empty
 * @param benches     the benches, skipped ones included
 * @param effective   the effective configuration as JSON; parsing it again gives the same benches
 */
public record BenchConfig(String source, String description, List<BenchDefinition> benches, ObjectNode effective) {

    /** The resource that holds the built-in configuration (the shipped {@code configs/default.json}). */
    public static final String DEFAULT_RESOURCE = "/io/numaloom/bench/default.json";

    /** The configuration {@code ./numaloom bench} runs without {@code --config}. */
    public static BenchConfig builtInDefault() throws ConfigException {
        return ConfigReader.parse(builtInDefaultText(), "built-in default configuration (configs/default.json)");
    }

    /** The text of the built-in configuration. */
    public static String builtInDefaultText() {
        try (InputStream in = BenchConfig.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the bench jar has no " + DEFAULT_RESOURCE + "; rebuild it");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The benches that run (not skipped). */
    public List<BenchDefinition> activeBenches() {
        return benches.stream().filter(b -> !b.skip()).toList();
    }

    /**
     * This configuration with the A/A control of the verdict method (issue 73, docs/verdict-method.md): every active
     * bench compared with unfair {@code ReentrantLock} ({@code UNFAIR_REENTRANT}) also measures its twin
     * ({@code UNFAIR_REENTRANT_TWIN}, the same lock under another name), last among its locks, unless it names the
     * twin already. At a 95% interval the twin is judged different from its reference at about 5% of its points; a
     * run where that happens more often says that the machine was too noisy for its verdicts.
     */
    public BenchConfig withReferenceTwin() throws ConfigException {
        ObjectNode copy = effective.deepCopy();
        boolean added = false;
        for (JsonNode bench : copy.withArray("benches")) {
            ObjectNode payload = (ObjectNode) bench.get("payload");
            if (payload.path("skip").asBoolean(false) || !payload.has("locks")) {
                continue;
            }
            String baseline = io.numaloom.bench.workloads.WorkloadKind.byJsonName(bench.path("name").asText())
                    .map(io.numaloom.bench.report.Summary::baselineOf).orElse(io.numaloom.bench.report.Summary.BASELINE);
            String twinName = io.numaloom.bench.report.Summary.twinOf(baseline);
            LockEntry reference = null;
            boolean twin = false;
            for (LockEntry lock : LockEntry.listOf(payload.withArray("locks"))) {
                if (lock.label().equals(baseline)) {
                    reference = lock;
                }
                twin |= lock.label().equals(twinName);
            }
            if (reference != null && !twin) {
                // The twin is the reference measured again: under the reference's own JVM arguments, if it has any.
                // Unfair ReentrantLock's twin is a lock of its own name; another reference's is a label of it.
                String lock = twinName.equals(io.numaloom.bench.locks.Locks.TWIN) ? twinName : baseline;
                payload.withArray("locks").add(new LockEntry(twinName, lock, reference.jvmArgs()).toJson());
                added = true;
            }
        }
        return added ? ConfigReader.parse(copy.toPrettyString(), source) : this;
    }

    /**
     * A shortened version for a first look: one fork, at most one warm-up and two measured rounds, and a
     * tenth of the work per round (never less than one operation per thread). The thread counts and locks
     * stay, so the plots have the same shape.
     */
    public BenchConfig quick() throws ConfigException {
        ObjectNode copy = effective.deepCopy();
        for (JsonNode bench : copy.withArray("benches")) {
            ObjectNode payload = (ObjectNode) bench.get("payload");
            int maxThreads = 1;
            for (JsonNode t : payload.withArray("threads")) {
                maxThreads = Math.max(maxThreads, t.asInt());
            }
            payload.put("forks", 1);
            payload.put("warmupIterations", Math.min(1, payload.get("warmupIterations").asInt()));
            payload.put("measurementIterations", Math.min(2, payload.get("measurementIterations").asInt()));
            if (payload.has("actionsCount")) {
                payload.put("actionsCount", Math.max(maxThreads, payload.get("actionsCount").asLong() / 10));
            }
            if (payload.has("lines")) {
                payload.put("lines", Math.max(maxThreads, payload.get("lines").asInt() / 10));
            }
        }
        return ConfigReader.parse(copy.toPrettyString(), source + " (--quick)");
    }
}
