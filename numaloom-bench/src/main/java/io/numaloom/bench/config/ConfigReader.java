package io.numaloom.bench.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaloom.bench.Mutex;
import io.numaloom.bench.locks.KeyedSchemes;
import io.numaloom.bench.workloads.FalseSharing;
import io.numaloom.bench.workloads.Keyed;
import io.numaloom.bench.workloads.LoopbackServer;
import io.numaloom.bench.workloads.ProducerConsumer;
import io.numaloom.bench.workloads.UserSection;
import io.numaloom.bench.workloads.WorkloadKind;
import io.numaloom.topology.Topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.TreeSet;

/**
 * Reads and validates a bench configuration: the VNA thesis's format (ITMO bachelor thesis, 2023,
 * Appendix A) extended for the workloads of this suite.
 *
 * <pre>{@code
 * {
 *   "description": "optional text for the report",
 *   "defaults": { payload fields applied to every bench that does not set them },
 *   "benches": [
 *     { "name": "consumeCpu",            // the workload
 *       "id": "high",                    // optional; made from the title when absent
 *       "payload": { "actionsCount": 64000, "beforeCpuTokens": 0, "inCpuTokens": 1000,
 *                    "warmupIterations": 7, "measurementIterations": 7, "forks": 3,
 *                    "yieldsBefore": 1, "yieldInCrit": true, "title": "ConsumeCPU. High contention.",
 *                    "skip": false, "locks": [ { "name": "VNA" }, { "name": "UNFAIR_REENTRANT" } ],
 *                    "threads": [1, 2, 4, 8] } }    // optional; generated when absent
 *   ]
 * }
 * }</pre>
 *
 * Validation is strict and complete before anything runs: unknown fields, wrong types, values below their
 * bound, unknown workloads or locks, duplicate keys and impossible combinations are all collected and
 * reported together, each with the JSON path of the offending value
 * ({@code benches[1].payload.forks: must be >= 1, got -2}); an unknown lock name lists the known ones. The
 * result has every default filled in, so its {@link BenchConfig#effective() effective JSON} reads back to
 * the same configuration.
 */
public final class ConfigReader {

    /** Payload fields common to all workloads (besides {@code locks} and {@code threads}). */
    public static final List<Field> COMMON_FIELDS = List.of(
            Field.stringField("title", null, "title of the plot and report section; defaults to the workload name"),
            Field.boolField("skip", false, "whether to leave this bench out of the run"),
            Field.intField("warmupIterations", 0, 3, "JMH warm-up rounds per fork (a round is the whole actionsCount)"),
            Field.intField("measurementIterations", 1, 5, "JMH measured rounds per fork"),
            Field.intField("forks", 1, 1, "fresh JVMs per point"),
            Field.choiceField("threadType", "virtual", List.of("virtual", "platform"), "the kind of the measured threads"),
            Field.intField("carriers", 1, null, "carrier threads of the virtual-thread scheduler; defaults to the CPU count"),
            Field.boolField("pinCarriers", false, "pin carriers (or platform threads) to CPUs, node by node (FFM sched_setaffinity; the scheduler of "
                    + "pinned carriers needs --add-opens java.base/java.lang=ALL-UNNAMED, which the bench passes)"),
            Field.choiceField("scheduler", "default", List.of("default", "numa", "numa-park"), "the scheduler of the measured virtual threads: the "
                    + "JDK's (\"default\", pinned or not by pinCarriers), or \"numa\": a NumaScheduler of numaloom-scheduler with one pinned "
                    + "carrier pool per node of the JVM's topology (carriers/nodes carriers per node, at least one), worker i homed on node "
                    + "i % nodes, every mount on its home node; \"numa-park\": the same with idleSpin(0), carriers that park as soon as "
                    + "their queue is empty (NumaScheduler's behaviour before its idle spin, for comparison)"),
            Field.longField("remotePenaltyNs", 0, 0L, "NUMA cost model: spin this long when the previous holder ran on another node"),
            Field.longField("migrationPenaltyNs", 0, 0L, "NUMA cost model: spin this long each time a measured thread is seen on "
                    + "another node than the last time it was looked at (before each acquisition and inside each critical section), "
                    + "a stand-in for its working set left in the other node's memory and caches"),
            Field.stringField("topology", "", "numaloom.topology of the measured JVMs, e.g. \"nodes=2\"; empty for the detected one"),
            Field.boolField("recordLatency", true, "record acquire latency (two System.nanoTime() calls per acquisition)"),
            Field.boolField("diagnostics", false, "count VnaLock's contended-path events (io.numaloom.LockDiagnostics: slow paths, "
                    + "parks, wake-ups, queued acquisitions, reservations, yields) and report them per operation; costs the contended path a "
                    + "counter increment per event"),
            Field.boolField("handoffTiming", false, "time the gaps between critical sections (two System.nanoTime() calls per "
                    + "acquisition, inside the section): per point, how often the lock went to another thread, the mean time from "
                    + "one section's end to the next one's start, and that mean where the lock changed thread and where it did not; for finding where "
                    + "a lock's time goes, not for the comparison of throughputs"),
            Field.boolField("ownerChanges", false, "count how often the lock went to another thread, without reading the clock "
                    + "(a comparison inside the section, and a store where the holder changed): the owner changes per operation of "
                    + "handoffTiming, for sections too short to time"),
            Field.boolField("startupCache", true, "start the measured JVMs from an ahead-of-time class cache (JEP 483) made by one "
                    + "training JVM per distinct argument list: a shorter start per point; it holds loaded and linked classes, no profiles "
                    + "or compiled code, so the measured rounds are unchanged"),
            Field.stringsField("jvmArgs", List.of("-XX:+UseParallelGC", "-Xms1g", "-Xmx1g"), "extra arguments of the measured JVMs"),
            Field.intField("timeoutSeconds", 1, 600, "the longest one round may take before the point fails"));

    private static final Set<String> TOP_LEVEL = Set.of("description", "defaults", "benches");
    private static final Set<String> BENCH_LEVEL = Set.of("name", "id", "payload");

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final String source;
    private final int cpus;
    private final List<String> knownLocks;
    private final boolean checkMachine;
    private final List<String> problems = new ArrayList<>();

    private ConfigReader(String source, int cpus, List<String> knownLocks, boolean checkMachine) {
        this.source = source;
        this.cpus = cpus;
        this.knownLocks = knownLocks;
        this.checkMachine = checkMachine;
    }

    /** Reads a configuration file. */
    public static BenchConfig read(Path file) throws ConfigException {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file.toString(), List.of("no such file"));
        } catch (IOException e) {
            throw new ConfigException(file.toString(), List.of("cannot read: " + e));
        }
        return parse(text, file.toString());
    }

    /** Parses configuration text; {@code source} names it in messages. */
    public static BenchConfig parse(String json, String source) throws ConfigException {
        return parse(json, source, Runtime.getRuntime().availableProcessors(), lockNames());
    }

    /**
     * Every lock name a configuration may use: the mutexes, the keyed schemes of the {@code keyed} workload, the
     * counter layouts of {@code falseSharing} and the JDK's blocking queues of {@code queue}.
     */
    public static List<String> lockNames() {
        List<String> names = new ArrayList<>(Mutex.names());
        names.addAll(KeyedSchemes.names());
        names.addAll(FalseSharing.layoutNames());
        names.addAll(ProducerConsumer.jdkQueueNames());
        return List.copyOf(names);
    }

    /** Parses with an explicit CPU count (for generated thread counts and carriers) and lock names. */
    public static BenchConfig parse(String json, String source, int cpus, List<String> knownLocks) throws ConfigException {
        return parse(json, source, cpus, knownLocks, true);
    }

    /**
     * Parses the effective configuration saved in a results directory, to draw its report: the locks it
     * names are taken as known and its topology is not checked against this machine, because the results
     * may come from another build or another machine.
     */
    public static BenchConfig parseSaved(String json, String source) throws ConfigException {
        List<String> locks = new ArrayList<>(lockNames());
        try {
            for (JsonNode bench : JSON.readTree(json).path("benches")) {
                for (JsonNode lock : bench.path("payload").path("locks")) {
                    if (lock.path("name").isTextual() && !locks.contains(lock.path("name").asText())) {
                        locks.add(lock.path("name").asText());
                    }
                }
            }
        } catch (JsonProcessingException e) {
            // parse() below reports it with its position.
        }
        return parse(json, source, Runtime.getRuntime().availableProcessors(), locks, false);
    }

    private static BenchConfig parse(String json, String source, int cpus, List<String> knownLocks, boolean checkMachine)
            throws ConfigException {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : "line " + at.getLineNr() + ", column " + at.getColumnNr() + ": ";
            throw new ConfigException(source, List.of(where + "not valid JSON: " + e.getOriginalMessage()));
        }
        if (root == null || root.isMissingNode()) {
            throw new ConfigException(source, List.of("the file is empty; expected an object with \"benches\""));
        }
        ConfigReader reader = new ConfigReader(source, cpus, knownLocks, checkMachine);
        BenchConfig config = reader.readRoot(root);
        if (!reader.problems.isEmpty()) {
            throw new ConfigException(source, reader.problems);
        }
        return config;
    }

    // ---------------------------------------------------------------------------------------------
    // Structure

    private BenchConfig readRoot(JsonNode root) {
        if (!root.isObject()) {
            problem("(root)", "must be an object with \"benches\", got " + describe(root));
            return null;
        }
        unknownFields(root, "", TOP_LEVEL, "known top-level fields: benches, defaults, description");
        String description = "";
        JsonNode d = root.get("description");
        if (d != null) {
            if (d.isTextual()) {
                description = d.asText();
            } else {
                problem("description", "must be a string, got " + describe(d));
            }
        }
        Map<String, JsonNode> defaults = readDefaults(root.get("defaults"));
        JsonNode benchesNode = root.get("benches");
        List<BenchDefinition> benches = new ArrayList<>();
        if (benchesNode == null) {
            problem("benches", "is required (an array of benches)");
        } else if (!benchesNode.isArray()) {
            problem("benches", "must be an array, got " + describe(benchesNode));
        } else if (benchesNode.isEmpty()) {
            problem("benches", "must not be empty");
        } else {
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < benchesNode.size(); i++) {
                BenchDefinition bench = readBench(i, benchesNode.get(i), defaults, ids);
                if (bench != null) {
                    benches.add(bench);
                }
            }
            checkSaturationSources(benches);
            checkPairedLocks(benches);
            if (problems.isEmpty() && benches.stream().allMatch(BenchDefinition::skip)) {
                problem("benches", "every bench has \"skip\": true; there is nothing to run");
            }
        }
        if (!problems.isEmpty()) {
            return null;
        }
        ObjectNode effective = JsonNodeFactory.instance.objectNode();
        if (!description.isEmpty()) {
            effective.put("description", description);
        }
        ArrayNode array = effective.putArray("benches");
        for (BenchDefinition b : benches) {
            ObjectNode node = array.addObject();
            node.put("name", b.kind().jsonName());
            node.put("id", b.id());
            node.set("payload", b.payload());
        }
        return new BenchConfig(source, description, List.copyOf(benches), effective);
    }

    /** A server's {@code pairedWith} must name a mutex (a lock the server can count under) and go with an open loop. */
    private void checkPairedLocks(List<BenchDefinition> benches) {
        for (BenchDefinition b : benches) {
            String paired = b.settings().values().path(LoopbackServer.PAIRED_WITH).asText("").trim();
            if (paired.isEmpty() || b.skip()) {
                continue;
            }
            String path = "benches[" + b.index() + "].payload." + LoopbackServer.PAIRED_WITH;
            List<String> mutexes = Mutex.names();
            if (!mutexes.contains(paired)) {
                problem(path, "unknown lock '" + paired + "'" + Suggest.hint(paired, mutexes) + " (known: "
                        + String.join(", ", mutexes) + ")");
            } else if (b.settings().getInt("loadPercent") == 0) {
                problem(path, "applies to an open loop only (loadPercent 1-100); this bench is the closed loop");
            }
        }
    }

    /**
     * A server load level's {@code saturationFrom} must name a closed-loop server bench listed before it (the runner
     * reads that bench's unfair ReentrantLock point at the same thread count, so it must have run), with the same
     * thread type, that lock and every thread count of the load level.
     */
    private void checkSaturationSources(List<BenchDefinition> benches) {
        for (BenchDefinition b : benches) {
            String from = b.settings().values().path(LoopbackServer.SATURATION_FROM).asText("");
            if (from.isEmpty() || b.skip()) {
                continue;
            }
            String path = "benches[" + b.index() + "].payload." + LoopbackServer.SATURATION_FROM;
            if (b.settings().getInt("loadPercent") == 0) {
                problem(path, "applies to an open loop only (loadPercent 1-100); this bench is the closed loop");
                continue;
            }
            if (b.settings().getLong(LoopbackServer.SATURATION_PER_SECOND) > 0) {
                problem(path, "and saturationPerSecond both give the saturation rate; keep one");
                continue;
            }
            BenchDefinition source = benches.stream().filter(o -> o.id().equals(from)).findFirst().orElse(null);
            String baseline = LoopbackServer.SATURATION_LOCK;
            if (source == null || source.index() >= b.index()) {
                problem(path, "'" + from + "' is not the id of a bench listed before this one"
                        + Suggest.hint(from, benches.stream().filter(o -> o.index() < b.index()).map(BenchDefinition::id).toList()));
            } else if (source.kind() != b.kind() || source.settings().getInt("loadPercent") != 0) {
                problem(path, "'" + from + "' is not a closed-loop server bench (loadPercent 0)");
            } else if (source.skip()) {
                problem(path, "'" + from + "' is skipped, so there is no rate to take");
            } else if (!source.threadType().equals(b.threadType())) {
                problem(path, "'" + from + "' measures " + source.threadType() + " threads, this bench " + b.threadType());
            } else if (!source.locks().contains(baseline)) {
                problem(path, "'" + from + "' does not measure " + baseline + ", whose rate the load levels are a percent of");
            } else if (!source.threads().containsAll(b.threads())) {
                problem(path, "'" + from + "' measures " + source.threads() + " threads, not every count of this bench's "
                        + b.threads());
            }
        }
    }

    private Map<String, JsonNode> readDefaults(JsonNode node) {
        Map<String, JsonNode> defaults = new LinkedHashMap<>();
        if (node == null) {
            return defaults;
        }
        if (!node.isObject()) {
            problem("defaults", "must be an object of payload fields, got " + describe(node));
            return defaults;
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String path = "defaults." + e.getKey();
            if (e.getKey().equals("locks")) {
                readLocks(e.getValue(), path);
            } else if (e.getKey().equals("threads")) {
                readThreads(e.getValue(), path);
            } else {
                Field field = anyField(e.getKey());
                if (field == null) {
                    problem(path, "unknown field; a default must be a payload field of some workload");
                    continue;
                }
                value(field, e.getValue(), path);
            }
            defaults.put(e.getKey(), e.getValue());
        }
        return defaults;
    }

    private BenchDefinition readBench(int index, JsonNode node, Map<String, JsonNode> defaults, Set<String> ids) {
        String at = "benches[" + index + "]";
        if (!node.isObject()) {
            problem(at, "must be an object with \"name\" and \"payload\", got " + describe(node));
            return null;
        }
        int before = problems.size();
        unknownFields(node, at + ".", BENCH_LEVEL, "known fields of a bench: name, id, payload");
        WorkloadKind kind = readWorkload(node.get("name"), at + ".name");
        JsonNode payload = readPayloadObject(node.get("payload"), at + ".payload");
        if (kind == null || payload == null) {
            return null;
        }
        Source source = new Source(at + ".payload.", payload, defaults);
        List<Field> fields = fieldsOf(kind);
        Set<String> known = new TreeSet<>(List.of("locks", "threads"));
        fields.forEach(f -> known.add(f.name()));
        unknownFields(payload, source.prefix(), known, "known fields for " + kind.jsonName() + ": " + String.join(", ", known));

        Map<String, Object> values = new LinkedHashMap<>();
        boolean complete = true;
        for (Field field : fields) {
            Object v = source.has(field.name()) ? read(source, field.name(), (n, path) -> value(field, n, path))
                    : field.name().equals("carriers") ? cpus : field.defaultValue();
            complete &= v != null || field.defaultValue() == null && !source.has(field.name());
            values.put(field.name(), v);
        }
        if (values.get("title") == null || ((String) values.get("title")).isBlank()) {
            values.put("title", kind.jsonName());
        }
        List<LockEntry> locks = source.has("locks") ? read(source, "locks", this::readLocks) : null;
        if (!source.has("locks")) {
            problem(source.path("locks"), "is required (an array like [{\"name\": \"VNA\"}]; known: "
                    + String.join(", ", knownLocks) + ")");
        }
        List<Integer> threads = source.has("threads") ? read(source, "threads", this::readThreads) : kind.defaultThreads(cpus);
        String id = readId(node.get("id"), at + ".id", (String) values.get("title"), kind, ids);
        if (problems.size() > before || !complete || locks == null || threads == null) {
            return null;
        }
        checkCombinations(kind, values, locks.stream().map(LockEntry::lock).toList(), threads, source);
        return problems.size() > before ? null : definition(index, id, kind, values, locks, threads);
    }

    /**
     * Where a bench's fields come from: its payload, else the configuration's {@code defaults}.
     *
     * @param prefix   the JSON path of the payload, with a trailing dot
     * @param payload  the bench's payload
     * @param defaults the configuration's defaults
     */
    private record Source(String prefix, JsonNode payload, Map<String, JsonNode> defaults) {
        boolean has(String field) {
            return payload.has(field) || defaults.containsKey(field);
        }

        boolean fromDefaults(String field) {
            return !payload.has(field) && defaults.containsKey(field);
        }

        JsonNode node(String field) {
            return payload.has(field) ? payload.get(field) : defaults.get(field);
        }

        /** The path of a field's value: in the payload, else in the defaults; a missing one in the payload. */
        String path(String field) {
            return fromDefaults(field) ? "defaults." + field : prefix + field;
        }
    }

    /**
     * Reads a field with {@code reader}. A value from {@code defaults} was validated, and its problems
     * reported, once at {@code defaults.<field>}: they are not reported again for every bench; the value
     * is then null.
     */
    private <T> T read(Source source, String field, BiFunction<JsonNode, String, T> reader) {
        int mark = problems.size();
        T value = reader.apply(source.node(field), source.path(field));
        if (source.fromDefaults(field) && problems.size() > mark) {
            problems.subList(mark, problems.size()).clear();
            return null;
        }
        return value;
    }

    private WorkloadKind readWorkload(JsonNode name, String path) {
        if (name == null) {
            problem(path, "is required (the workload: " + String.join(", ", WorkloadKind.jsonNames()) + ")");
            return null;
        }
        if (!name.isTextual()) {
            problem(path, "must be a string, got " + describe(name));
            return null;
        }
        WorkloadKind kind = WorkloadKind.byJsonName(name.asText()).orElse(null);
        if (kind == null) {
            problem(path, "unknown workload '" + name.asText() + "'" + Suggest.hint(name.asText(), WorkloadKind.jsonNames())
                    + "; known: " + String.join(", ", WorkloadKind.jsonNames()));
        }
        return kind;
    }

    private JsonNode readPayloadObject(JsonNode payload, String path) {
        if (payload == null) {
            problem(path, "is required (an object with the bench's settings and \"locks\")");
            return null;
        }
        if (!payload.isObject()) {
            problem(path, "must be an object, got " + describe(payload));
            return null;
        }
        return payload;
    }

    /** Checks that need several fields, or the registry and the machine. */
    private void checkCombinations(WorkloadKind kind, Map<String, Object> values, List<String> locks,
                                   List<Integer> threads, Source source) {
        int maxThreads = threads.stream().mapToInt(Integer::intValue).max().orElse(1);
        for (String work : List.of("actionsCount", "lines")) {
            if (values.get(work) instanceof Number n && n.longValue() < maxThreads) {
                problem(source.path(work), "must be >= the largest thread count (" + maxThreads
                        + ") so that every thread has work, got " + n + (source.has(work) ? "" : " (the default)"));
            }
        }
        for (int i = 0; i < locks.size(); i++) {
            if (ProducerConsumer.isJdkQueue(locks.get(i))) {
                if (kind != WorkloadKind.QUEUE) {
                    problem(source.path("locks") + "[" + i + "].name", locks.get(i)
                            + " is one of the JDK's blocking queues, measured only by the queue workload");
                }
                continue;
            }
            if (kind.isKeyed() != KeyedSchemes.isKeyed(locks.get(i))) {
                problem(source.path("locks") + "[" + i + "].name", kind.isKeyed()
                        ? locks.get(i) + " is not a keyed scheme; a keyed bench compares " + String.join(", ", KeyedSchemes.names())
                        : locks.get(i) + " is a keyed scheme, measured only by the keyed workload");
            }
            if (!kind.isKeyed() && kind.isLayout() != FalseSharing.isLayout(locks.get(i))) {
                problem(source.path("locks") + "[" + i + "].name", kind.isLayout()
                        ? locks.get(i) + " is not a counter layout; falseSharing compares " + String.join(", ", FalseSharing.layoutNames())
                        : locks.get(i) + " is a counter layout, measured only by the falseSharing workload");
            }
        }
        if (kind == WorkloadKind.LOCK_RATE && (Integer) values.get("load") > 1) {
            problem(source.path("load"), "must be 0 (an empty critical section) or 1 (one atomic add inside), got "
                    + values.get("load"));
        }
        if (kind.isKeyed() && (Long) values.get("actionsCount") > Keyed.MAX_ACTIONS) {
            problem(source.path("actionsCount"), "must be <= " + Keyed.MAX_ACTIONS
                    + " (the key sequence is drawn in advance and held in memory), got " + values.get("actionsCount"));
        }
        if (kind.isKeyed() && (Integer) values.get("keys") > Keyed.MAX_KEYS) {
            problem(source.path("keys"), "must be <= " + Keyed.MAX_KEYS
                    + " (every key is a string held for the whole run), got " + values.get("keys"));
        }
        checkRealWorld(kind, values, threads, source);
        if (checkMachine && kind == WorkloadKind.SYNC && (Integer) values.get("depth") > 1) {
            for (int i = 0; i < locks.size(); i++) {
                if (!reentrant(locks.get(i))) {
                    problem(source.path("locks") + "[" + i + "].name", locks.get(i) + " is not reentrant; sync with depth "
                            + values.get("depth") + " takes the held lock again");
                }
            }
        }
        if (String.valueOf(values.get("scheduler")).startsWith("numa") && "platform".equals(values.get("threadType"))) {
            problem(source.path("scheduler"), "\"numa\" schedules virtual threads; threadType is \"platform\"");
        }
        String topology = (String) values.get("topology");
        if (checkMachine && !topology.isBlank()) {
            try {
                Topology.parse(topology);
            } catch (IllegalArgumentException e) {
                problem(source.path("topology"), e.getMessage());
            }
        }
    }

    /** The bounds of the queue, cache and server workloads that need a maximum or the thread counts. */
    private void checkRealWorld(WorkloadKind kind, Map<String, Object> values, List<Integer> threads, Source source) {
        switch (kind) {
            case QUEUE -> {
                if (threads.getFirst() < 2) {
                    problem(source.path("threads"), "queue needs at least 2 threads per point (a producer and a consumer), got "
                            + threads.getFirst() + (source.has("threads") ? "" : " (the default)"));
                }
                atMost(source, values, "producerPercent", 99, "at least one thread consumes");
                atMost(source, values, "actionsCount", ProducerConsumer.MAX_ITEMS, "the items are preallocated and every consumer keeps a bit per item");
            }
            case CACHE -> {
                atMost(source, values, "getPercent", 100, "a percent");
                atMost(source, values, "actionsCount", Keyed.MAX_ACTIONS, "the operations are drawn in advance and held in memory");
                atMost(source, values, "keys", Keyed.MAX_KEYS, "every key is an object held for the whole run");
            }
            case SERVER -> {
                atMost(source, values, "loadPercent", 100, "a percent of the saturation rate; 0 is closed loop");
                atMost(source, values, "keys", LoopbackServer.MAX_KEYS, "the client counts answers per key and connection");
                atMost(source, values, "actionsCount", Integer.MAX_VALUE, "requests are numbered by int");
            }
            case RUNNABLE -> checkUserSection(values, source);
            default -> {
            }
        }
    }

    /**
     * The {@code runnable} workload names its section one way: a class ({@code workloadClass}) or a section registered
     * in this JVM ({@code section}); a class is loaded here, as a measured JVM will, when the machine is checked.
     */
    private void checkUserSection(Map<String, Object> values, Source source) {
        String className = (String) values.get(UserSection.CLASS_FIELD);
        String section = (String) values.get(UserSection.SECTION_FIELD);
        if (className.isBlank() == section.isBlank()) {
            problem(source.path(UserSection.CLASS_FIELD), className.isBlank()
                    ? "is required: the class whose run() is the critical section (public, a public no-argument constructor, "
                    + "implements Runnable), e.g. \"com.acme.MyWork\", with \"" + UserSection.CLASSPATH_FIELD + "\": \"app.jar\""
                    : "and " + UserSection.SECTION_FIELD + " exclude each other: give one");
            return;
        }
        if (!className.isBlank() && checkMachine) {
            try {
                UserSection.check(className, UserSection.classpath((String) values.get(UserSection.CLASSPATH_FIELD),
                        source.path(UserSection.CLASSPATH_FIELD)), source.path(UserSection.CLASS_FIELD), source.path(UserSection.CLASSPATH_FIELD));
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
    }

    /** A problem if the number field {@code name} is over {@code max}. */
    private void atMost(Source source, Map<String, Object> values, String name, long max, String why) {
        if (values.get(name) instanceof Number n && n.longValue() > max) {
            problem(source.path(name), "must be <= " + max + " (" + why + "), got " + n);
        }
    }

    /** The definition of a valid bench, with its effective payload (every default filled in). */
    private static BenchDefinition definition(int index, String id, WorkloadKind kind, Map<String, Object> values,
                                              List<LockEntry> locks, List<Integer> threads) {
        ObjectNode effective = JsonNodeFactory.instance.objectNode();
        values.forEach((name, v) -> put(effective, name, v));
        ArrayNode locksArray = effective.putArray("locks");
        locks.forEach(l -> locksArray.add(l.toJson()));
        ArrayNode threadsArray = effective.putArray("threads");
        threads.forEach(threadsArray::add);
        ObjectNode settings = JsonNodeFactory.instance.objectNode();
        for (Field field : kind.fields()) {
            settings.set(field.name(), effective.get(field.name()));
        }
        @SuppressWarnings("unchecked")
        List<String> jvmArgs = (List<String>) values.get("jvmArgs");
        return new BenchDefinition(index, id, kind, (String) values.get("title"), (Boolean) values.get("skip"),
                locks.stream().map(LockEntry::label).toList(),
                threads, (Integer) values.get("warmupIterations"), (Integer) values.get("measurementIterations"),
                (Integer) values.get("forks"), (String) values.get("threadType"), (Integer) values.get("carriers"),
                (Boolean) values.get("pinCarriers"), (String) values.get("scheduler"), kind.accepts("remotePenaltyNs") ? (Long) values.get("remotePenaltyNs") : 0,
                kind.accepts("migrationPenaltyNs") ? (Long) values.get("migrationPenaltyNs") : 0,
                ((String) values.get("topology")).trim(), kind.accepts("recordLatency") && (Boolean) values.get("recordLatency"),
                jvmArgs, (Integer) values.get("timeoutSeconds"), new Settings(settings), effective);
    }

    /** Whether a registered lock may be taken again by its holder (probed on a new instance). */
    private static boolean reentrant(String lock) {
        try {
            return Mutex.create(lock).isReentrant();
        } catch (RuntimeException e) {
            return true; // Cannot tell here; the measured JVM will say.
        }
    }

    /** The payload fields of a workload: the applicable common ones, then its own. */
    public static List<Field> fieldsOf(WorkloadKind kind) {
        List<Field> fields = new ArrayList<>();
        for (Field f : COMMON_FIELDS) {
            if (kind.accepts(f.name())) {
                fields.add(f);
            }
        }
        fields.addAll(kind.fields());
        return fields;
    }

    private String readId(JsonNode node, String path, String title, WorkloadKind kind, Set<String> ids) {
        if (node != null) {
            if (!node.isTextual() || !node.asText().matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
                problem(path, "must be a string of letters, digits, '.', '_' or '-' (at most 64), got " + describe(node));
                return null;
            }
            if (!ids.add(node.asText())) {
                problem(path, "duplicate id '" + node.asText() + "'; every bench needs its own");
                return null;
            }
            return node.asText();
        }
        String base = title.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        if (base.length() > 48) {
            base = base.substring(0, 48).replaceAll("-+$", "");
        }
        if (base.isEmpty()) {
            base = kind.jsonName();
        }
        String id = base;
        for (int n = 2; !ids.add(id); n++) {
            id = base + "-" + n;
        }
        return id;
    }

    private List<LockEntry> readLocks(JsonNode node, String path) {
        if (!node.isArray()) {
            problem(path, "must be an array like [{\"name\": \"VNA\"}], got " + describe(node));
            return null;
        }
        if (node.isEmpty()) {
            problem(path, "must name at least one lock; known: " + String.join(", ", knownLocks));
            return null;
        }
        List<LockEntry> locks = new ArrayList<>();
        Set<String> labels = new HashSet<>();
        boolean ok = true;
        for (int i = 0; i < node.size(); i++) {
            JsonNode entry = node.get(i);
            String at = path + "[" + i + "]";
            if (!entry.isObject()) {
                problem(at, "must be an object like {\"name\": \"VNA\"}, got " + describe(entry));
                ok = false;
                continue;
            }
            unknownFields(entry, at + ".", LOCK_ENTRY, "a lock entry has \"name\" and, for a variant, \"label\" and "
                    + "\"jvmArgs\"");
            LockEntry read = readLockEntry(entry, at);
            if (read == null) {
                ok = false;
            } else if (!labels.add(read.label())) {
                problem(at + (read.isVariant() ? ".label" : ".name"), "lock '" + read.label() + "' is listed twice"
                        + (read.isVariant() ? "" : "; to measure it again under other JVM arguments, give the second a \"label\""));
                ok = false;
            } else {
                locks.add(read);
            }
        }
        return ok ? List.copyOf(locks) : null;
    }

    private static final Set<String> LOCK_ENTRY = Set.of("name", "label", "jvmArgs");

    /** One entry of {@code locks}, or null after reporting its problems. */
    private LockEntry readLockEntry(JsonNode entry, String at) {
        JsonNode name = entry.get("name");
        boolean ok = true;
        if (name == null || !name.isTextual()) {
            problem(at + ".name", name == null ? "is required" : "must be a string, got " + describe(name));
            ok = false;
        } else if (!knownLocks.contains(name.asText())) {
            problem(at + ".name", "unknown lock '" + name.asText() + "'" + Suggest.hint(name.asText(), knownLocks)
                    + "; known: " + String.join(", ", knownLocks));
            ok = false;
        }
        String label = ok ? name.asText() : null;
        JsonNode labelNode = entry.get("label");
        if (labelNode != null) {
            if (!labelNode.isTextual() || !LockEntry.LABEL.matcher(labelNode.asText()).matches()) {
                problem(at + ".label", "must be 1 to 48 letters, digits or _ . + - (it names files), starting with a letter "
                        + "or digit, got " + describe(labelNode));
                ok = false;
            } else if (knownLocks.contains(labelNode.asText()) && !labelNode.asText().equals(label)) {
                problem(at + ".label", "'" + labelNode.asText() + "' is the name of another lock; a variant needs a name "
                        + "of its own, e.g. \"" + (label == null ? "VNA" : label) + "-variant\"");
                ok = false;
            } else {
                label = labelNode.asText();
            }
        }
        List<String> args = new ArrayList<>();
        JsonNode argsNode = entry.get("jvmArgs");
        if (argsNode != null) {
            if (!argsNode.isArray()) {
                problem(at + ".jvmArgs", "must be an array of strings like [\"-Dname=value\"], got " + describe(argsNode));
                ok = false;
            } else {
                for (int j = 0; j < argsNode.size(); j++) {
                    JsonNode arg = argsNode.get(j);
                    if (!arg.isTextual() || arg.asText().isBlank()) {
                        problem(at + ".jvmArgs[" + j + "]", "must be a non-blank string, got " + describe(arg));
                        ok = false;
                    } else {
                        args.add(arg.asText());
                    }
                }
            }
        }
        return ok ? new LockEntry(label, name.asText(), args) : null;
    }

    private List<Integer> readThreads(JsonNode node, String path) {
        if (!node.isArray() || node.isEmpty()) {
            problem(path, "must be a non-empty array of thread counts, got " + describe(node));
            return null;
        }
        TreeSet<Integer> counts = new TreeSet<>();
        boolean ok = true;
        for (int i = 0; i < node.size(); i++) {
            String at = path + "[" + i + "]";
            JsonNode v = node.get(i);
            if (!v.isIntegralNumber() || !v.canConvertToInt()) {
                problem(at, "must be an integer, got " + describe(v));
                ok = false;
            } else if (v.asInt() < 1) {
                problem(at, "must be >= 1, got " + v.asInt());
                ok = false;
            } else if (!counts.add(v.asInt())) {
                problem(at, "thread count " + v.asInt() + " is listed twice");
                ok = false;
            }
        }
        return ok ? List.copyOf(counts) : null;
    }

    /** The validated value of {@code node} as the Java type of {@code field}, or null after a problem. */
    private Object value(Field field, JsonNode node, String path) {
        switch (field.kind()) {
            case INT, LONG -> {
                boolean fits = field.kind() == Field.Kind.INT ? node.canConvertToInt() : node.canConvertToLong();
                if (!node.isIntegralNumber()) {
                    problem(path, "must be an integer, got " + describe(node));
                    return null;
                }
                if (!fits) {
                    problem(path, "is out of range, got " + node.asText());
                    return null;
                }
                long v = node.asLong();
                if (v < field.min()) {
                    problem(path, "must be >= " + field.min() + ", got " + v);
                    return null;
                }
                return field.kind() == Field.Kind.INT ? (Object) (int) v : (Object) v;
            }
            case BOOL -> {
                if (!node.isBoolean()) {
                    problem(path, "must be true or false, got " + describe(node));
                    return null;
                }
                return node.asBoolean();
            }
            case STRING -> {
                if (!node.isTextual()) {
                    problem(path, "must be a string, got " + describe(node));
                    return null;
                }
                return node.asText();
            }
            case CHOICE -> {
                if (!node.isTextual() || !field.choices().contains(node.asText())) {
                    problem(path, "must be one of " + String.join(", ", field.choices().stream().map(c -> '"' + c + '"').toList())
                            + ", got " + describe(node));
                    return null;
                }
                return node.asText();
            }
            case STRINGS -> {
                if (!node.isArray()) {
                    problem(path, "must be an array of strings, got " + describe(node));
                    return null;
                }
                List<String> list = new ArrayList<>();
                for (int i = 0; i < node.size(); i++) {
                    if (!node.get(i).isTextual()) {
                        problem(path + "[" + i + "]", "must be a string, got " + describe(node.get(i)));
                        return null;
                    }
                    list.add(node.get(i).asText());
                }
                return List.copyOf(list);
            }
        }
        throw new AssertionError(field.kind());
    }

    private static void put(ObjectNode node, String name, Object v) {
        switch (v) {
            case null -> node.putNull(name);
            case Integer i -> node.put(name, i);
            case Long l -> node.put(name, l);
            case Boolean b -> node.put(name, b);
            case String s -> node.put(name, s);
            case List<?> list -> {
                ArrayNode a = node.putArray(name);
                list.forEach(e -> a.add(String.valueOf(e)));
            }
            default -> throw new IllegalArgumentException(name + ": " + v);
        }
    }

    /** A common or workload field of that name, from any workload. */
    private static Field anyField(String name) {
        for (Field f : COMMON_FIELDS) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        for (WorkloadKind kind : WorkloadKind.values()) {
            for (Field f : kind.fields()) {
                if (f.name().equals(name)) {
                    return f;
                }
            }
        }
        return null;
    }

    private void unknownFields(JsonNode node, String prefix, Set<String> known, String hint) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!known.contains(name)) {
                problem(prefix + name, "unknown field" + Suggest.hint(name, known) + "; " + hint);
            }
        }
    }

    private void problem(String path, String what) {
        problems.add(path + ": " + what);
    }

    /** A value as it appears in the JSON, shortened, with its type for non-scalars. */
    private static String describe(JsonNode node) {
        if (node.isObject()) {
            return "an object";
        }
        if (node.isArray()) {
            return "an array";
        }
        String text = node.toString();
        return text.length() > 40 ? text.substring(0, 37) + "..." : text;
    }
}
