package io.numaloom.bench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PairedRatio.Estimate;
import io.numaloom.bench.run.JmhRounds;
import io.numaloom.bench.run.JmhRounds.Comparison;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.numaloom.bench.report.Html.esc;

/**
 * The JMH route's {@code index.html}: the verdict (each alternative's geometric mean and verdict counts, the
 * precision reached, the A/A control, failures), every comparison's ratios with their intervals as a table and as
 * an interval plot drawn inline (SVG, so the page needs no other file), and the run's settings.
 *
 * <p>It says what the console says, in the built-in bench's page style ({@link io.numaloom.bench.report.Html}), so
 * that a user's own benchmarks answer as the built-in ones do.
 */
final class JmhJarHtml {
    private JmhJarHtml() {}

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** The plot's geometry: a label column, then the ratio axis (log scale), one row per ratio. */
    static final int PLOT_WIDTH = 960;
    static final int LABEL_WIDTH = 420;
    static final int ROW_HEIGHT = 22;
    static final int AXIS_HEIGHT = 34;
    /** The ratios the axis may mark; those within its range are drawn. */
    static final double[] TICKS = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.8, 0.9, 1.0, 1.1, 1.25, 2, 5, 10, 20, 50, 100};

    static String render(JmhRounds rounds, JmhRounds.Result result, Map<String, Object> run, String param) {
        StringBuilder h = new StringBuilder(16_384);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">")
                .append("<title>numaloom bench report: JMH benchmarks</title><style>")
                .append(io.numaloom.bench.report.Html.CSS)
                .append(".faster{color:#0a7a2f}.slower{color:#b00}</style></head><body>\n");
        h.append("<h1>numaloom bench report: JMH benchmarks</h1>\n<p class=\"muted\">Jar: <code>")
                .append(esc(String.valueOf(run.get("jar")))).append("</code>. Started ").append(esc(String.valueOf(run.get("started"))))
                .append(run.get("finished") == null ? ", not finished" : ", finished " + esc(String.valueOf(run.get("finished"))))
                .append("; ").append(result.rounds()).append(result.rounds() == 1 ? " round" : " rounds")
                .append(", seed ").append(esc(String.valueOf(run.get("seed")))).append(".</p>\n");
        h.append("<p>").append(esc(compared(rounds, param))).append("</p>\n");
        verdict(h, rounds, result);
        table(h, rounds, result);
        plot(h, rounds, result);
        h.append("<h2 id=\"files\">Files</h2>\n<ul>")
                .append(link(JmhJarReport.SUMMARY_FILE, "one line per comparison and alternative: the ratio, its interval, the verdict, the rounds and the stop"))
                .append(link(JmhJarReport.ROUNDS_FILE, "every fork's scores, in the order they ran (round, position, alternative)"))
                .append(link(JmhJarReport.RUN_FILE, "the command, the seed (which fixes every round's order) and the method"))
                .append(link("logs/", "JMH's output per fork"))
                .append("</ul>\n");
        h.append("<h2 id=\"method\">How to read it</h2>\n<p class=\"muted\">Each round runs one JMH fork of every ")
                .append("alternative, in an order shuffled anew each round from the seed, so that whatever the machine does ")
                .append("meanwhile falls on every alternative alike. A ratio is estimated from the rounds' ratios of an ")
                .append("alternative's score to the reference's score in the same round, on the scale where above 1 is faster ")
                .append("(for avgt, sample and ss: the reference's time over the alternative's), with a 95% interval over the ")
                .append("rounds: from 6 rounds the Hodges-Lehmann estimate and Wilcoxon's signed-rank interval, below that ")
                .append("their geometric mean and Student's t. Faster or slower only where the ")
                .append("interval excludes 1, tied where it contains 1, no verdict with one round. The reference's twin, the ")
                .append("reference measured again under another name, is the A/A control: the method judges it different at ")
                .append("about 5% of comparisons; far more says this machine was too noisy for the verdicts. ")
                .append("docs/verdict-method.md describes the method.</p>\n");
        h.append("<h2 id=\"run\">Run</h2>\n<pre>");
        try {
            h.append(esc(JSON.writeValueAsString(new LinkedHashMap<>(run))));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            h.append(esc(run.toString()));
        }
        h.append("</pre>\n</body></html>\n");
        return h.toString();
    }

    private static String compared(JmhRounds rounds, String param) {
        return param == null
                ? "Your benchmarks as they are (" + rounds.reference() + ", the reference) and through numaloom's agent (agent)."
                : "The values of @Param " + param + " against " + param + "=" + rounds.reference() + ".";
    }

    private static void verdict(StringBuilder h, JmhRounds rounds, JmhRounds.Result result) {
        h.append("<h2 id=\"verdict\">Verdict</h2>\n");
        if (result.comparisons().isEmpty()) {
            h.append("<p class=\"err\">No benchmark gave a score in any round.</p>\n");
        } else {
            h.append("<ul class=\"verdict\">");
            for (JmhJarReport.Overall o : JmhJarReport.overall(rounds, result)) {
                h.append("<li><code>").append(esc(o.text())).append("</code></li>");
            }
            h.append("</ul>\n<p class=\"muted\">")
                    .append(esc(JmhJarReport.capitalized(JmhJarReport.precision(result).text("comparisons"))))
                    .append(" (the half-width of a ratio's 95% interval, relative to the ratio).</p>\n");
        }
        PairedRatio.AaControl aa = result.aaControl();
        if (aa != null) {
            h.append(aa.tooNoisy() ? "<p class=\"warn\">⚠ " : "<p class=\"muted\">").append(esc(aa.describe()))
                    .append(aa.tooNoisy() ? ": take them as not shown; a longer budget (--budget) or a quieter "
                            + "machine may help" : "").append(".</p>\n");
        }
        if (!result.forkFailures().isEmpty()) {
            h.append("<ul class=\"err\">");
            result.forkFailures().values().forEach(f -> h.append("<li>Failed fork: ").append(esc(f)).append("</li>"));
            h.append("</ul>\n");
        }
    }

    private static List<String> others(JmhRounds rounds) {
        return rounds.alternatives().keySet().stream().filter(n -> !n.equals(rounds.reference())).toList();
    }

    private static void table(StringBuilder h, JmhRounds rounds, JmhRounds.Result result) {
        if (result.comparisons().isEmpty()) {
            return;
        }
        h.append("<h2 id=\"ratios\">Ratios</h2>\n<p class=\"muted\">Each alternative's score over ")
                .append(esc(rounds.reference())).append("'s, with its 95% interval: ▲ faster, ▼ slower where the interval ")
                .append("excludes 1.</p>\n<table class=\"ratios\"><tr><th class=\"l\">benchmark</th><th>unit</th>")
                .append("<th>rounds</th><th>stop</th>");
        for (String name : others(rounds)) {
            h.append("<th>").append(esc(name)).append(name.equals(rounds.twin()) ? " (A/A control)" : "").append("</th>");
        }
        h.append("</tr>\n");
        for (Comparison c : result.comparisons()) {
            h.append("<tr").append(c.failures().isEmpty() ? "" : " class=\"failed\"").append("><td class=\"l\">")
                    .append(esc(c.key().label())).append("</td><td>").append(esc(c.unit())).append("</td><td>")
                    .append(c.rounds()).append("</td><td>").append(esc(c.stop())).append("</td>");
            for (String name : others(rounds)) {
                Estimate e = c.estimates().get(name);
                if (e == null) {
                    h.append("<td class=\"l err\">").append(esc(c.failures().getOrDefault(name, "failed"))).append("</td>");
                } else {
                    String cls = switch (e.verdict()) {
                        case FASTER -> " class=\"faster\"";
                        case SLOWER -> " class=\"slower\"";
                        default -> "";
                    };
                    h.append("<td").append(cls).append(">").append(esc(cell(e))).append("</td>");
                }
            }
            h.append("</tr>\n");
        }
        h.append("</table>\n");
    }

    /** {@code 1.12 [1.05, 1.19] ▲}, {@code 1.12 [-]} without an interval. */
    static String cell(Estimate e) {
        if (e.rounds() < 2 || !Double.isFinite(e.low())) {
            return String.format(Locale.ROOT, "%.2f [-]", e.ratio());
        }
        String mark = e.verdict().mark();
        return String.format(Locale.ROOT, "%.2f [%.2f, %.2f]%s", e.ratio(), e.low(), e.high(), mark.isEmpty() ? "" : " " + mark);
    }

    /** One row of the plot: a comparison's alternative. */
    record Row(String label, Estimate estimate, boolean twin) {}

    static List<Row> rows(JmhRounds rounds, JmhRounds.Result result) {
        List<Row> rows = new ArrayList<>();
        for (Comparison c : result.comparisons()) {
            for (String name : others(rounds)) {
                Estimate e = c.estimates().get(name);
                if (e != null && e.ratio() > 0 && Double.isFinite(e.ratio())) {
                    rows.add(new Row(c.key().label() + ", " + name, e, name.equals(rounds.twin())));
                }
            }
        }
        return rows;
    }

    /**
     * The ratios as intervals on a log axis with 1 marked: a dot at the ratio, a bar over its interval, green where
     * judged faster, red where slower, grey where tied, hollow without an interval; the twin's rows in italics.
     */
    static void plot(StringBuilder h, JmhRounds rounds, JmhRounds.Result result) {
        List<Row> rows = rows(rounds, result);
        if (rows.isEmpty()) {
            return;
        }
        double lo = 1 / 1.1;
        double hi = 1.1;
        for (Row r : rows) {
            Estimate e = r.estimate();
            lo = Math.min(lo, Double.isFinite(e.low()) && e.low() > 0 ? e.low() : e.ratio());
            hi = Math.max(hi, Double.isFinite(e.high()) ? e.high() : e.ratio());
        }
        double pad = Math.pow(hi / lo, 0.05);
        double min = Math.log(lo / pad);
        double max = Math.log(hi * pad);
        int plotLeft = LABEL_WIDTH + 10;
        int plotWidth = PLOT_WIDTH - plotLeft - 20;
        int height = AXIS_HEIGHT + rows.size() * ROW_HEIGHT + 10;
        java.util.function.DoubleUnaryOperator x = v -> plotLeft + plotWidth * (Math.log(v) - min) / (max - min);
        h.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(PLOT_WIDTH).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(PLOT_WIDTH).append(' ').append(height)
                .append("\" role=\"img\" aria-label=\"ratios with their 95% intervals\" font-family=\"system-ui,sans-serif\" font-size=\"12\">\n");
        for (double t : TICKS) {
            if (Math.log(t) < min || Math.log(t) > max) {
                continue;
            }
            String tx = num(x.applyAsDouble(t));
            h.append("<line x1=\"").append(tx).append("\" y1=\"").append(AXIS_HEIGHT - 6).append("\" x2=\"").append(tx)
                    .append("\" y2=\"").append(height - 10).append("\" stroke=\"").append(t == 1.0 ? "#444" : "#e4e4e4")
                    .append("\"/>\n<text x=\"").append(tx).append("\" y=\"").append(AXIS_HEIGHT - 12)
                    .append("\" text-anchor=\"middle\">").append(tickLabel(t)).append("</text>\n");
        }
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            Estimate e = r.estimate();
            double y = AXIS_HEIGHT + i * ROW_HEIGHT + ROW_HEIGHT / 2.0;
            String color = switch (e.verdict()) {
                case FASTER -> "#0a7a2f";
                case SLOWER -> "#b00";
                default -> "#666";
            };
            h.append("<text x=\"").append(LABEL_WIDTH).append("\" y=\"").append(num(y + 4)).append("\" text-anchor=\"end\"")
                    .append(r.twin() ? " font-style=\"italic\"" : "").append(">").append(esc(shorten(r.label()))).append("<title>")
                    .append(esc(r.label() + ": " + e.format())).append("</title></text>\n");
            boolean interval = e.rounds() >= 2 && Double.isFinite(e.low()) && e.low() > 0 && Double.isFinite(e.high());
            if (interval) {
                h.append("<line x1=\"").append(num(x.applyAsDouble(e.low()))).append("\" y1=\"").append(num(y))
                        .append("\" x2=\"").append(num(x.applyAsDouble(e.high()))).append("\" y2=\"").append(num(y))
                        .append("\" stroke=\"").append(color).append("\" stroke-width=\"2\"/>\n");
            }
            h.append("<circle cx=\"").append(num(x.applyAsDouble(e.ratio()))).append("\" cy=\"").append(num(y))
                    .append("\" r=\"4\" fill=\"").append(interval ? color : "white").append("\" stroke=\"").append(color)
                    .append("\"/>\n");
        }
        h.append("</svg>\n");
    }

    /** A label that fits the label column (the full one is the row's tooltip). */
    static String shorten(String label) {
        int max = LABEL_WIDTH / 7;
        return label.length() <= max ? label : "…" + label.substring(label.length() - max + 1);
    }

    private static String tickLabel(double t) {
        return t == Math.rint(t) ? Long.toString((long) t) : String.format(Locale.ROOT, "%s", t);
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String link(String file, String what) {
        return "<li><a href=\"" + esc(file) + "\">" + esc(file) + "</a>: " + esc(what) + "</li>";
    }
}
