package io.numaloom.bench.report;

import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The HTML page of {@code ./numaloom contention}: {@code contention.html} with the table of
 * {@link Contention#text} and a histogram of the wait times of the most contended locks
 * ({@code contention-waits.png} and {@code .svg}), in buckets that double from 1 ms.
 */
public final class ContentionReport {
    public static final String PAGE = "contention.html";
    static final String PLOT = "contention-waits";
    /** Locks drawn in the histogram. */
    static final int PLOTTED = 5;

    private ContentionReport() {}

    /** Writes the page (and the plot, if any lock waited) into {@code dir}; returns the page. */
    public static Path write(Contention.Summary s, Path dir, int top) throws IOException {
        Files.createDirectories(dir);
        List<Contention.LockWaits> waited = s.locks().stream().filter(l -> l.count() > 0).toList();
        boolean plotted = !waited.isEmpty();
        if (plotted) {
            Charts.save(histogram(waited.subList(0, Math.min(PLOTTED, waited.size()))),
                    dir.resolve(PLOT + ".png"), dir.resolve(PLOT + ".svg"));
        }
        Path page = dir.resolve(PAGE);
        Files.writeString(page, html(s, waited, plotted, top));
        return page;
    }

    /** Bucket {@code i} holds waits in [2^(i-1), 2^i) ms; bucket 0 those under 1 ms. */
    static int bucket(long nanos) {
        long ms = nanos / 1_000_000L;
        return ms == 0 ? 0 : 64 - Long.numberOfLeadingZeros(ms);
    }

    static String bucketLabel(int i) {
        return i == 0 ? "<1" : (1L << (i - 1)) + "-" + (1L << i);
    }

    private static CategoryChart histogram(List<Contention.LockWaits> locks) {
        int buckets = 1;
        for (Contention.LockWaits l : locks) {
            buckets = Math.max(buckets, bucket(l.waits.getMaxValue()) + 1);
        }
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < buckets; i++) {
            labels.add(bucketLabel(i));
        }
        CategoryChart chart = new CategoryChartBuilder().width(Charts.WIDTH).height(Charts.HEIGHT)
                .title("Waits to acquire, by duration").xAxisTitle("wait (ms)").yAxisTitle("waits").build();
        Charts.style(chart.getStyler());
        List<String> order = locks.stream().map(Contention.LockWaits::label).toList();
        for (Contention.LockWaits l : locks) {
            double[] counts = new double[buckets];
            for (HistogramIterationValue v : l.waits.recordedValues()) {
                counts[bucket(v.getValueIteratedTo())] += v.getCountAtValueIteratedTo();
            }
            List<Double> values = new ArrayList<>();
            for (double c : counts) {
                values.add(c);
            }
            chart.addSeries(l.label(), labels, values).setFillColor(Charts.colorOf(l.label(), order));
        }
        return chart;
    }

    private static String html(Contention.Summary s, List<Contention.LockWaits> waited, boolean plotted, int top) {
        StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>numaloom contention</title>")
                .append("<style>body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #ccc;padding:.3em .6em;text-align:right}td:first-child,th:first-child,")
                .append("td:last-child{text-align:left}</style></head><body>\n")
                .append("<h1>numaloom contention</h1>\n<p>").append(Html.esc(s.file().toString())).append(": ")
                .append(s.lockWaits()).append(" contended acquisitions and ").append(s.conditionWaits())
                .append(" condition waits of numaloom locks, at or above the recording's thresholds (")
                .append(Html.esc(Contention.thresholds(s.thresholds()))).append(").</p>\n");
        if (plotted) {
            sb.append("<p><img src=\"").append(PLOT).append(".png\" alt=\"histogram of wait times\" width=\"")
                    .append(Charts.WIDTH).append("\"></p>\n");
        }
        sb.append("<table><tr><th>lock</th><th>waits</th><th>total ms</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th>")
                .append("<th>max ms</th><th>queued</th><th>parked</th><th>reserved</th><th>cross-node</th>")
                .append("<th>longest holders (ms of waits caused)</th></tr>\n");
        for (Contention.LockWaits l : waited.subList(0, Math.min(top, waited.size()))) {
            Double cross = l.crossQueueFraction();
            sb.append("<tr><td>").append(Html.esc(l.label())).append("</td>")
                    .append(cell("%d", l.count())).append(cell("%.1f", l.totalMillis()))
                    .append(cell("%.2f", l.percentileMillis(50))).append(cell("%.2f", l.percentileMillis(90)))
                    .append(cell("%.2f", l.percentileMillis(99))).append(cell("%.2f", l.maxMillis()))
                    .append(cell("%.0f%%", 100 * l.fraction(l.queued))).append(cell("%.0f%%", 100 * l.fraction(l.parked)))
                    .append(cell("%.0f%%", 100 * l.fraction(l.reserved)))
                    .append("<td>").append(cross == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * cross)).append("</td>")
                    .append("<td>").append(Html.esc(Contention.entries(l.topHolders(5)))).append("</td></tr>\n");
        }
        sb.append("</table>\n");
        for (Contention.LockWaits l : waited.subList(0, Math.min(top, waited.size()))) {
            sb.append("<h2>").append(Html.esc(l.label())).append(": where threads waited</h2>\n")
                    .append("<table><tr><th>call site</th><th>waits</th><th>total ms</th></tr>\n");
            for (Contention.CallSite c : l.topCallSites(top)) {
                sb.append("<tr><td>").append(Html.esc(c.frame())).append("</td>").append(cell("%d", c.waits()))
                        .append(cell("%.1f", c.totalMillis())).append("</tr>\n");
            }
            sb.append("</table>\n");
            if (!l.keyNanos.isEmpty()) {
                sb.append("<p>Keys of ").append(Html.esc(l.label())).append(" waited for longest: ")
                        .append(Html.esc(Contention.entries(l.topKeys(top)))).append("</p>\n");
            }
        }
        sb.append("<p>queued: waited in a queue, not just polled; parked: slept at least once; reserved: took the lock")
                .append(" by reservation after being overtaken for 1 ms; cross-node: of the waits whose holder came through")
                .append(" a queue, those where it was another queue (NUMA node) than the waiter's. Open the recording in JDK")
                .append(" Mission Control (Event Browser &gt; numaloom &gt; Locks) for each wait's stack trace.</p>\n");
        return sb.append("</body></html>\n").toString();
    }

    private static String cell(String format, Object value) {
        return "<td>" + String.format(Locale.ROOT, format, value) + "</td>";
    }
}
