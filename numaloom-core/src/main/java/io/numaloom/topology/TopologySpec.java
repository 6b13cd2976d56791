package io.numaloom.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parser of the virtual topology specs of the {@code numaloom.topology} property; the grammar and its
 * examples are in the {@link Topology} class comment. Every error is an {@link IllegalArgumentException}
 * of the form {@code numaloom.topology="<spec>" is invalid: <what is wrong>}, naming the offending item.
 */
final class TopologySpec {

    private TopologySpec() {}

    /** A map-form entry {@code cpus:node[@socket]}; {@code socket} is -1 when the entry names none. */
    private record Entry(String text, int first, int last, int node, int socket) {}

    /**
     * Parses {@code spec} over {@code online} (ascending, distinct, non-empty).
     *
     * @throws IllegalArgumentException quoting the spec and saying what is wrong
     */
    static Topology parse(String spec, int[] online) {
        String s = spec.strip();
        if (s.isEmpty()) {
            throw invalid(spec, "it is empty; write nodes=N, nodes=N,sockets=S, or a cpu map such as 0-3:0,4-7:1");
        }
        boolean keyed = s.indexOf('=') >= 0;
        boolean mapped = s.indexOf(':') >= 0;
        if (keyed && mapped) {
            throw invalid(spec, "it mixes key=value items with cpu:node entries; use one form or the other");
        }
        if (keyed) {
            return parseKeyed(spec, s, online);
        }
        if (mapped) {
            return parseMap(spec, s, online);
        }
        if (s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw invalid(spec, "a bare number is ambiguous; did you mean nodes=" + s + "?");
        }
        throw invalid(spec, "expected nodes=N, nodes=N,sockets=S, or a cpu map such as 0-3:0,4-7:1");
    }

    // ---------------------------------------------------------------------------------------------
    // nodes=N[,sockets=S]

    private static Topology parseKeyed(String spec, String s, int[] online) {
        long nodes = -1;
        long sockets = -1;
        boolean hasNodes = false;
        boolean hasSockets = false;
        for (String raw : s.split(",", -1)) {
            String item = raw.strip();
            if (item.isEmpty()) {
                throw invalid(spec, "it has an empty item (a doubled, leading or trailing comma)");
            }
            int eq = item.indexOf('=');
            if (eq < 0) {
                throw invalid(spec, "\"" + item + "\" is not key=value; the keys are nodes and sockets");
            }
            String key = item.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            String value = item.substring(eq + 1).strip();
            switch (key) {
                case "nodes" -> {
                    if (hasNodes) {
                        throw invalid(spec, "nodes is given twice");
                    }
                    hasNodes = true;
                    nodes = count(spec, "nodes", value);
                }
                case "sockets" -> {
                    if (hasSockets) {
                        throw invalid(spec, "sockets is given twice");
                    }
                    hasSockets = true;
                    sockets = count(spec, "sockets", value);
                }
                default -> throw invalid(spec, "unknown key \"" + item.substring(0, eq).strip() + "\"; the keys are nodes and sockets");
            }
        }
        if (!hasNodes) {
            throw invalid(spec, "sockets=S needs nodes=N as well, e.g. nodes=4,sockets=2");
        }
        int cpuCount = online.length;
        if (nodes > cpuCount) {
            throw invalid(spec, "nodes=" + nodes + " asks for more nodes than the " + cpuCount + " online cpu"
                    + (cpuCount == 1 ? "" : "s") + " (" + CpuList.format(online) + "); each node needs at least one cpu");
        }
        if (hasSockets && sockets > nodes) {
            throw invalid(spec, "sockets=" + sockets + " asks for more sockets than the " + nodes + " node"
                    + (nodes == 1 ? "" : "s") + "; each socket holds at least one node");
        }
        int nodeCount = (int) nodes;
        int socketCount = hasSockets ? (int) sockets : nodeCount;
        int[] nodeOfIndex = split(cpuCount, nodeCount);
        int[] socketOfNode = split(nodeCount, socketCount);
        int[] nodeKeys = new int[cpuCount];
        int[] socketKeys = new int[cpuCount];
        long[] clusterKeys = new long[cpuCount];
        for (int i = 0; i < cpuCount; i++) {
            nodeKeys[i] = nodeOfIndex[i];
            socketKeys[i] = socketOfNode[nodeOfIndex[i]];
            clusterKeys[i] = nodeOfIndex[i];
        }
        return new Topology(online, nodeKeys, socketKeys, clusterKeys, "one per node", source(s));
    }

    /**
     * Splits {@code items} into {@code groups} contiguous groups whose sizes differ by at most one, the
     * first {@code items % groups} groups getting the extra item; returns the group of each item.
     */
    static int[] split(int items, int groups) {
        int[] groupOf = new int[items];
        int base = items / groups;
        int extra = items % groups;
        int i = 0;
        for (int g = 0; g < groups; g++) {
            int size = base + (g < extra ? 1 : 0);
            for (int k = 0; k < size; k++) {
                groupOf[i++] = g;
            }
        }
        return groupOf;
    }

    /** Parses the value of a count key: a whole number of at least 1. */
    private static long count(String spec, String key, String value) {
        if (value.isEmpty()) {
            throw invalid(spec, key + "= has no value; write " + key + "=N with N at least 1");
        }
        boolean negative = value.charAt(0) == '-';
        String digits = negative ? value.substring(1) : value;
        if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw invalid(spec, key + " needs a whole number, got \"" + value + "\"");
        }
        long n = Long.parseLong(digits);
        if (negative || n < 1) {
            throw invalid(spec, key + " must be at least 1, got " + value);
        }
        return n;
    }

    // ---------------------------------------------------------------------------------------------
    // cpus:node[@socket],...

    private static Topology parseMap(String spec, String s, int[] online) {
        List<Entry> entries = new ArrayList<>();
        for (String raw : s.split(",", -1)) {
            String item = raw.strip();
            if (item.isEmpty()) {
                throw invalid(spec, "it has an empty entry (a doubled, leading or trailing comma)");
            }
            entries.add(parseEntry(spec, item));
        }
        checkSockets(spec, entries);

        // Owner entry of each cpu id, so that overlaps name both entries.
        Entry[] owner = new Entry[online[online.length - 1] + 1];
        for (Entry e : entries) {
            int[] missing = notOnline(e, online);
            if (missing.length > 0) {
                throw invalid(spec, (missing.length == 1 ? "cpu " + missing[0] + " in entry \"" + e.text() + "\" is not online"
                        : "cpus " + CpuList.format(missing) + " in entry \"" + e.text() + "\" are not online")
                        + " (online cpus: " + CpuList.format(online) + ")");
            }
            for (int cpu = e.first(); cpu <= e.last(); cpu++) {
                if (owner[cpu] != null) {
                    throw invalid(spec, "cpu " + cpu + " is mapped twice, by \"" + owner[cpu].text() + "\" and by \"" + e.text() + "\"");
                }
                owner[cpu] = e;
            }
        }
        int[] unmapped = Arrays.stream(online).filter(cpu -> owner[cpu] == null).toArray();
        if (unmapped.length > 0) {
            throw invalid(spec, (unmapped.length == 1 ? "online cpu " + unmapped[0] + " is" : "online cpus " + CpuList.format(unmapped) + " are")
                    + " mapped to no node; every online cpu (" + CpuList.format(online) + ") needs a node");
        }

        int n = online.length;
        int[] nodeKeys = new int[n];
        int[] socketKeys = new int[n];
        long[] clusterKeys = new long[n];
        for (int i = 0; i < n; i++) {
            Entry e = owner[online[i]];
            nodeKeys[i] = e.node();
            socketKeys[i] = e.socket() < 0 ? e.node() : e.socket();
            clusterKeys[i] = e.node();
        }
        return new Topology(online, nodeKeys, socketKeys, clusterKeys, "one per node", source(s));
    }

    private static Entry parseEntry(String spec, String item) {
        int colon = item.indexOf(':');
        if (colon < 0) {
            throw invalid(spec, "entry \"" + item + "\" has no \":node\"; write cpus:node, e.g. " + item + ":0");
        }
        if (item.indexOf(':', colon + 1) >= 0) {
            throw invalid(spec, "entry \"" + item + "\" has more than one ':'; write cpus:node[@socket]");
        }
        String cpus = item.substring(0, colon).strip();
        String rest = item.substring(colon + 1).strip();
        int[] range;
        try {
            range = CpuList.parseRange(cpus);
        } catch (IllegalArgumentException e) {
            throw invalid(spec, "entry \"" + item + "\": " + e.getMessage());
        }
        int at = rest.indexOf('@');
        if (at >= 0 && rest.indexOf('@', at + 1) >= 0) {
            throw invalid(spec, "entry \"" + item + "\" has more than one '@'; write cpus:node@socket");
        }
        int node = id(spec, item, "node", at < 0 ? rest : rest.substring(0, at).strip());
        int socket = at < 0 ? -1 : id(spec, item, "socket", rest.substring(at + 1).strip());
        return new Entry(item, range[0], range[1], node, socket);
    }

    /** Parses a node or socket id: a whole number in [0, Integer.MAX_VALUE]. */
    private static int id(String spec, String item, String what, String text) {
        if (text.isEmpty()) {
            throw invalid(spec, "entry \"" + item + "\" has no " + what + " id");
        }
        if (text.length() > 9 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw invalid(spec, "entry \"" + item + "\": " + what + " id \"" + text + "\" is not a whole number from 0 to 999999999");
        }
        return Integer.parseInt(text);
    }

    /** Either every entry names a socket or none does; a node lies in one socket. */
    private static void checkSockets(String spec, List<Entry> entries) {
        Entry withSocket = null;
        Entry withoutSocket = null;
        for (Entry e : entries) {
            if (e.socket() >= 0) {
                withSocket = withSocket == null ? e : withSocket;
            } else {
                withoutSocket = withoutSocket == null ? e : withoutSocket;
            }
        }
        if (withSocket == null) {
            return;
        }
        if (withoutSocket != null) {
            throw invalid(spec, "entry \"" + withoutSocket.text() + "\" names no socket but \"" + withSocket.text()
                    + "\" does; give every entry a socket (cpus:node@socket) or none");
        }
        Map<Integer, Entry> socketOfNode = new HashMap<>();
        for (Entry e : entries) {
            Entry first = socketOfNode.putIfAbsent(e.node(), e);
            if (first != null && first.socket() != e.socket()) {
                throw invalid(spec, "node " + e.node() + " is put in socket " + first.socket() + " by \"" + first.text()
                        + "\" and in socket " + e.socket() + " by \"" + e.text() + "\"; a node lies in one socket");
            }
        }
    }

    private static int[] notOnline(Entry e, int[] online) {
        int[] missing = new int[0];
        int count = 0;
        for (int cpu = e.first(); cpu <= e.last(); cpu++) {
            if (!CpuList.contains(online, cpu)) {
                if (count == missing.length) {
                    missing = Arrays.copyOf(missing, Math.max(4, count * 2));
                }
                missing[count++] = cpu;
            }
        }
        return Arrays.copyOf(missing, count);
    }

    private static String source(String s) {
        return Topology.PROPERTY + "=" + s + " (virtual)";
    }

    static IllegalArgumentException invalid(String spec, String problem) {
        return new IllegalArgumentException(Topology.PROPERTY + "=\"" + spec + "\" is invalid: " + problem);
    }
}
