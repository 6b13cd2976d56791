package io.numaloom.agent;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's options, {@code -javaagent:numaloom-agent.jar=key=value,flag,...}:
 * <ul>
 * <li>{@code include=PREFIX:PREFIX...}: rewrite only classes whose name begins with one of these (dotted, e.g.
 *     {@code com.acme.:ch.qos.logback.}); default: every class of an application or library loader;
 * <li>{@code exclude=PREFIX:PREFIX...}: never these;
 * <li>{@code events}: each swapped lock is named by its site ({@code com.acme.Orders.<init>:41}), so numaloom's JFR
 *     events (virtual threads' waits included) say where it was made;
 * <li>{@code counts}: each swapped lock counts its acquisitions and contended acquisitions per site, for the report
 *     (an increment per acquisition: leave it off when measuring throughput);
 * <li>{@code report} or {@code report=FILE}: at exit, the report (each site swapped or left as it was, and why;
 *     with {@code counts}, per site its acquisitions) on the standard error, or into FILE.
 * </ul>
 *
 * @param include classes to rewrite (dotted prefixes); empty for all
 * @param exclude classes never to rewrite
 * @param events  whether the locks are named by their site
 * @param counts  whether the locks count their acquisitions
 * @param report  whether to write the report at exit
 * @param reportFile where, or null for the standard error
 */
record AgentOptions(List<String> include, List<String> exclude, boolean events, boolean counts, boolean report,
                    Path reportFile) {

    static final String USAGE = "options: include=PREFIX:PREFIX, exclude=PREFIX:PREFIX, events, counts, report[=FILE]";

    /**
     * Parses the agent's argument (null or empty: the defaults).
     *
     * @throws IllegalArgumentException naming the option that is wrong and what is expected
     */
    static AgentOptions parse(String argument) {
        List<String> include = new ArrayList<>();
        List<String> exclude = new ArrayList<>();
        boolean events = false;
        boolean counts = false;
        boolean report = false;
        Path reportFile = null;
        if (argument != null && !argument.isBlank()) {
            for (String option : argument.split(",", -1)) {
                String key = option.contains("=") ? option.substring(0, option.indexOf('=')).strip() : option.strip();
                String value = option.contains("=") ? option.substring(option.indexOf('=') + 1).strip() : null;
                switch (key) {
                    case "include" -> include.addAll(prefixes(key, value));
                    case "exclude" -> exclude.addAll(prefixes(key, value));
                    case "events" -> events = flag(key, value);
                    case "counts" -> counts = flag(key, value);
                    case "report" -> {
                        report = true;
                        if (value != null) {
                            if (value.isEmpty()) {
                                throw new IllegalArgumentException("report= needs a file name (or write report alone for the standard error)");
                            }
                            reportFile = Path.of(value);
                        }
                    }
                    case "" -> throw new IllegalArgumentException("an empty option in '" + argument + "'; " + USAGE);
                    default -> throw new IllegalArgumentException("unknown option '" + key + "'; " + USAGE);
                }
            }
        }
        return new AgentOptions(List.copyOf(include), List.copyOf(exclude), events, counts, report, reportFile);
    }

    private static List<String> prefixes(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " needs prefixes of class names, e.g. " + key + "=com.acme.:org.example.");
        }
        List<String> out = new ArrayList<>();
        for (String p : value.split(":")) {
            String prefix = p.strip();
            if (prefix.isEmpty() || !prefix.matches("[\\p{L}\\p{N}_$.]+")) {
                throw new IllegalArgumentException(key + ": '" + p + "' is not a prefix of a class name (letters, digits, _ $ .)");
            }
            out.add(prefix);
        }
        return out;
    }

    private static boolean flag(String key, String value) {
        if (value != null) {
            throw new IllegalArgumentException(key + " takes no value, got '" + key + "=" + value + "'");
        }
        return true;
    }

    /** Whether the class named {@code dotted} may be rewritten. */
    boolean covers(String dotted) {
        for (String e : exclude) {
            if (dotted.startsWith(e)) {
                return false;
            }
        }
        if (include.isEmpty()) {
            return true;
        }
        for (String i : include) {
            if (dotted.startsWith(i)) {
                return true;
            }
        }
        return false;
    }

    /** What replaces a {@code ReentrantLock} under these options. */
    LockSwap.Target target() {
        if (counts) {
            return new LockSwap.Target(java.lang.constant.ClassDesc.of(CountingLock.class.getName()), LockSwap.SiteArgument.NUMBER);
        }
        return events ? new LockSwap.Target(LockSwap.VNA_REENTRANT_LOCK, LockSwap.SiteArgument.NAME) : LockSwap.Target.PLAIN;
    }
}
