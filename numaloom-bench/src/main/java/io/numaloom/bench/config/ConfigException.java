package io.numaloom.bench.config;

import java.util.List;

/**
 * A configuration that cannot run. {@link #problems()} lists every problem found, each starting with the
 * JSON path of the offending value, for example {@code benches[1].payload.forks: must be >= 1, got -2}.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String source;
    @SuppressWarnings("serial") // an immutable List.copyOf, serializable in practice
    private final List<String> problems;

    public ConfigException(String source, List<String> problems) {
        super(format(source, problems));
        this.source = source;
        this.problems = List.copyOf(problems);
    }

    /** Where the configuration came from (a file name or "built-in default configuration"). */
    public String source() {
        return source;
    }

    /** Every problem, each as {@code path: what is wrong}. */
    public List<String> problems() {
        return problems;
    }

    private static String format(String source, List<String> problems) {
        StringBuilder sb = new StringBuilder(source).append(": ")
                .append(problems.size() == 1 ? "1 problem" : problems.size() + " problems");
        for (String p : problems) {
            sb.append(System.lineSeparator()).append("  ").append(p);
        }
        return sb.toString();
    }
}
