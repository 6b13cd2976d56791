package io.numaloom.bench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.numaloom.bench.report.Summary;
import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PairedRatio.Estimate;
import io.numaloom.bench.result.PairedRatio.Verdict;
import io.numaloom.bench.run.JmhJarRun;
import io.numaloom.bench.run.JmhRounds;
import io.numaloom.bench.run.JmhRounds.Comparison;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the JMH route ({@code ./numaloom bench --jmh-jar}) writes: every fork's scores as the rounds run
 * ({@code rounds.csv}), the ratios at the end ({@code summary.csv}), the run's seed and command ({@code run.json}),
 * and the console's text.
 *
 * <p>It lives beside the command, not in {@code report}: it reads the JMH route's rounds ({@code run}), which the
 * report package, drawn from results alone, never imports (LayoutTest).
 *
 * <p>Why files as well as the console: the ratios say what the rounds showed, and the rounds themselves (with the
 * seed, which fixes their orders) let anyone check them or compute something else; {@code rounds.csv} grows a line
 * per score as each fork ends, so a run that is stopped keeps what it measured.
 */
public final class JmhJarReport implements Closeable {
    public static final String ROUNDS_FILE = "rounds.csv";
    public static final String SUMMARY_FILE = "summary.csv";
    public static final String RUN_FILE = "run.json";
    public static final String HTML_FILE = "index.html";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path dir;
    private final BufferedWriter rounds;

    /** Opens {@code dir/rounds.csv} (a new file, with its header). */
    public JmhJarReport(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
        rounds = Files.newBufferedWriter(dir.resolve(ROUNDS_FILE));
        rounds.write("round,position,alternative,value,benchmark,mode,params,score,unit,fasterScale,failure\n");
        rounds.flush();
    }

    /**
     * Appends a fork's scores to {@code rounds.csv}, one line each, or one line with its failure; {@code fasterScale}
     * is the score as compared (its inverse for a time).
     */
    public void fork(int round, int position, String name, String value, JmhJarRun.Outcome outcome) throws IOException {
        if (!outcome.ok()) {
            rounds.write(csv(round + 1, position, name, value, "", "", "", "", "", "", outcome.failure()));
        }
        for (JmhJarRun.Score s : outcome.scores()) {
            rounds.write(csv(round + 1, position, name, value, s.key().benchmark(), s.key().mode(), s.key().paramsText(),
                    num(s.score()), s.unit(), num(s.faster()), ""));
        }
        rounds.flush();
    }

    /** Writes {@code summary.csv}: one line per comparison and alternative other than the reference. */
    public void summary(JmhRounds rounds, JmhRounds.Result result) throws IOException {
        StringBuilder sb = new StringBuilder("benchmark,mode,params,alternative,value,reference,unit,rounds,stop,ratio,"
                + "ratioLow,ratioHigh,verdict,failure\n");
        for (Comparison c : result.comparisons()) {
            for (Map.Entry<String, String> alt : rounds.alternatives().entrySet()) {
                String name = alt.getKey();
                if (name.equals(rounds.reference())) {
                    continue;
                }
                Estimate e = c.estimates().get(name);
                String failure = c.failures().get(name);
                sb.append(csv(c.key().benchmark(), c.key().mode(), c.key().paramsText(), name, alt.getValue(), rounds.reference(),
                        c.unit(), c.rounds(), c.stop(), e == null ? "" : num(e.ratio()), e == null ? "" : num(e.low()),
                        e == null ? "" : num(e.high()), e == null ? "failed" : verdictWord(e.verdict()),
                        failure == null ? "" : failure));
            }
        }
        Files.writeString(dir.resolve(SUMMARY_FILE), sb.toString());
    }

    /** Writes {@code run.json}: what was run, with which seed and method, and when. */
    public void runFile(Map<String, Object> run) throws IOException {
        JSON.writeValue(dir.resolve(RUN_FILE).toFile(), new LinkedHashMap<>(run));
    }

    /**
     * One alternative over every comparison it has a ratio in: the geometric mean of those ratios with its interval
     * ({@link PairedRatio#geometricMean}) and how many were judged faster, slower and tied, and how many failed.
     */
    public record Overall(String name, Estimate mean, int faster, int slower, int tied, int noVerdict, int failed) {
        /** "agent: 1.01x [0.97, 1.06] in geometric mean over 2 comparisons; faster at 0, slower at 0, tied at 2". */
        public String text() {
            int n = faster + slower + tied + noVerdict;
            StringBuilder sb = new StringBuilder(name).append(": ");
            if (n == 0) {
                sb.append("no ratio");
            } else {
                sb.append(mean.format()).append(n == 1 ? " over 1 comparison" : " in geometric mean over " + n + " comparisons")
                        .append("; faster at ").append(faster).append(", slower at ").append(slower).append(", tied at ").append(tied);
                if (noVerdict > 0) {
                    sb.append(", no verdict at ").append(noVerdict);
                }
            }
            return failed > 0 ? sb.append("; failed at ").append(failed).toString() : sb.toString();
        }
    }

    /** The {@link Overall} of every alternative but the reference and the twin (the A/A control has its own line). */
    public static List<Overall> overall(JmhRounds rounds, JmhRounds.Result result) {
        List<Overall> lines = new ArrayList<>();
        for (String name : rounds.alternatives().keySet()) {
            if (name.equals(rounds.reference()) || name.equals(rounds.twin())) {
                continue;
            }
            List<Estimate> estimates = new ArrayList<>();
            int[] counts = new int[Verdict.values().length];
            int failed = 0;
            for (Comparison c : result.comparisons()) {
                Estimate e = c.estimates().get(name);
                if (e == null) {
                    failed++;
                } else {
                    estimates.add(e);
                    counts[e.verdict().ordinal()]++;
                }
            }
            lines.add(new Overall(name, PairedRatio.geometricMean(estimates), counts[Verdict.FASTER.ordinal()],
                    counts[Verdict.SLOWER.ordinal()], counts[Verdict.TIED.ordinal()], counts[Verdict.UNKNOWN.ordinal()], failed));
        }
        return lines;
    }

    /**
     * The precision reached, as the built-in bench states it: the half-widths of every ratio's interval (the twin's
     * included: the rounds were planned for it too) and how the comparisons stopped.
     */
    public static Summary.Precision precision(JmhRounds.Result result) {
        List<Double> widths = new ArrayList<>();
        int without = 0;
        List<String> stops = new ArrayList<>();
        for (Comparison c : result.comparisons()) {
            for (Estimate e : c.estimates().values()) {
                if (e.rounds() >= 2 && Double.isFinite(e.halfWidth())) {
                    widths.add(e.halfWidth());
                } else {
                    without++;
                }
            }
            stops.add(c.stop());
        }
        return new Summary.Precision(widths.stream().sorted().toList(), without, stops);
    }

    /** Writes {@code index.html} ({@link JmhJarHtml}). */
    public void html(JmhRounds rounds, JmhRounds.Result result, Map<String, Object> run, String param) throws IOException {
        Files.writeString(dir.resolve(HTML_FILE), JmhJarHtml.render(rounds, result, run, param));
    }

    /** {@code faster}, {@code slower}, {@code tied}, or {@code no verdict} (one round). */
    public static String verdictWord(Verdict v) {
        return switch (v) {
            case FASTER -> "faster";
            case SLOWER -> "slower";
            case TIED -> "tied";
            case UNKNOWN -> "no verdict";
        };
    }

    /**
     * The console's text: per comparison, each alternative's ratio to the reference with its interval and verdict,
     * the rounds and the stop; then the failed forks and the A/A control's line.
     */
    public static String text(JmhRounds rounds, JmhRounds.Result result, String param) { // param null: the agent route
        StringBuilder sb = new StringBuilder();
        String reference = rounds.reference();
        sb.append(String.format(Locale.ROOT, "Ratio to %s over interleaved rounds, 95%% interval; above 1 is faster "
                + "(for avgt, sample and ss: the time's inverse, time of %s / time)%n",
                param == null ? reference + " (the benchmarks without numaloom's agent; agent: with it)" : param + "=" + reference,
                reference));
        int width = rounds.alternatives().keySet().stream().mapToInt(String::length).max().orElse(8);
        for (Comparison c : result.comparisons()) {
            sb.append(String.format(Locale.ROOT, "%s%s: %d rounds, stop: %s%n", c.key().label(),
                    c.unit().isEmpty() ? "" : " [" + c.unit() + "]", c.rounds(), c.stop()));
            for (String name : rounds.alternatives().keySet()) {
                if (name.equals(reference)) {
                    continue;
                }
                Estimate e = c.estimates().get(name);
                String line = e == null ? "failed: " + c.failures().get(name)
                        : e.format() + "  " + verdictWord(e.verdict()) + (name.equals(rounds.twin()) ? " (A/A control)" : "");
                sb.append(String.format(Locale.ROOT, "  %-" + width + "s  %s%n", name, line));
            }
        }
        if (result.comparisons().isEmpty()) {
            sb.append("No benchmark gave a score in any round.").append(System.lineSeparator());
        } else {
            for (Overall o : overall(rounds, result)) {
                sb.append(o.text()).append(System.lineSeparator());
            }
            sb.append(capitalized(precision(result).text("comparisons"))).append(System.lineSeparator());
        }
        for (Map.Entry<String, String> f : result.forkFailures().entrySet()) {
            sb.append("Failed fork: ").append(f.getValue()).append(System.lineSeparator());
        }
        if (result.aaControl() != null) {
            sb.append(result.aaControl().describe()).append(System.lineSeparator());
        }
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        rounds.close();
    }

    static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static String num(double v) {
        return Double.isFinite(v) ? Double.toString(v) : "";
    }

    /** One CSV line: fields with a comma, a quote or a line break are quoted. */
    static String csv(Object... fields) {
        StringBuilder sb = new StringBuilder();
        for (Object f : fields) {
            String s = String.valueOf(f);
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
                sb.append('"').append(s.replace("\"", "\"\"")).append('"');
            } else {
                sb.append(s);
            }
        }
        return sb.append('\n').toString();
    }
}
