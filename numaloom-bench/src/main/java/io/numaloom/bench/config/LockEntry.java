package io.numaloom.bench.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One entry of a bench's {@code locks}: the lock it measures, the name it goes by in the results, and the extra
 * arguments of its measured JVMs.
 *
 * <pre>{@code
 * "locks": [ { "name": "UNFAIR_REENTRANT" }, { "name": "VNA" },
 *            { "name": "VNA", "label": "VNA-no-poll", "jvmArgs": ["-Dnumaloom.experiment=no-poll"] } ]
 * }</pre>
 *
 * A variant ({@code label} or {@code jvmArgs} given) is measured like any lock of its group: a fork of it in every
 * round, in the shuffled order, its ratio to the reference with an interval. It is how one build is compared with
 * itself under a JVM flag: a mechanism switched off by a system property, a Java agent on and off, a GC or a JIT
 * setting. The label is the lock's name everywhere the results name it ({@code results.csv}, the tables, the plots,
 * the point's key and file names); the measured JVM instantiates {@code name}.
 *
 * @param label   the name in the results: {@code label}, or {@code name} when none is given
 * @param lock    the lock measured (a name of the registry)
 * @param jvmArgs arguments of this lock's measured JVMs, after the bench's {@code jvmArgs}
 */
public record LockEntry(String label, String lock, List<String> jvmArgs) {

    /** What a label may hold: it becomes part of file names and of the point's key ({@code bench/lock/threads}). */
    static final Pattern LABEL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.+-]{0,47}");

    public LockEntry {
        jvmArgs = List.copyOf(jvmArgs);
    }

    /** A plain entry: the lock under its own name, no arguments of its own. */
    public static LockEntry of(String lock) {
        return new LockEntry(lock, lock, List.of());
    }

    /** Whether this entry is more than its lock's name: a label of its own, or arguments of its own. */
    public boolean isVariant() {
        return !label.equals(lock) || !jvmArgs.isEmpty();
    }

    /** The entry as a configuration writes it: {@code {"name": ...}}, with {@code label} and {@code jvmArgs} when given. */
    ObjectNode toJson() {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("name", lock);
        if (!label.equals(lock)) {
            node.put("label", label);
        }
        if (!jvmArgs.isEmpty()) {
            jvmArgs.forEach(node.putArray("jvmArgs")::add);
        }
        return node;
    }

    /**
     * The entries of a validated payload's {@code locks} array (the effective payload of a {@link BenchDefinition}),
     * in order.
     */
    static List<LockEntry> listOf(JsonNode locks) {
        List<LockEntry> entries = new ArrayList<>();
        for (JsonNode node : locks) {
            String lock = node.path("name").asText();
            String label = node.hasNonNull("label") ? node.get("label").asText() : lock;
            List<String> args = new ArrayList<>();
            node.path("jvmArgs").forEach(a -> args.add(a.asText()));
            entries.add(new LockEntry(label, lock, args));
        }
        return entries;
    }
}
