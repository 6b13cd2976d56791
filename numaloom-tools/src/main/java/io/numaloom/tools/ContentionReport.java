package io.numaloom.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The HTML page of the contention summary: {@code contention.html}, one file with nothing to fetch,
 * so it can be mailed or attached as it is. It holds every lock side by side (numaloom's, parks',
 * monitors'), a histogram of the wait times of the most contended ones (inline SVG, in buckets that
 * double from 1 ms), numaloom's table with holders and keys, the condition waits, and the call sites
 * of every table.
 */
public final class ContentionReport {
    public static final String PAGE = "contention.html";
    /** Locks drawn in the histogram. */
    static final int PLOTTED = 5;
    private static final int WIDTH = 800;
    private static final int HEIGHT = 360;
    /** Series colours, in the order of the histogram's locks. */
    private static final String[] COLORS = {"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377"};

    private ContentionReport() {}

    /** Writes the page into {@code dir}; returns it. */
    public static Path write(Contention.Summary s, Path dir, int top) throws IOException {
        Files.createDirectories(dir);
        Path page = dir.resolve(PAGE);
        Files.writeString(page, html(s, top));
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

    static String html(Contention.Summary s, int top) {
        StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>lock contention</title>")
                .append("<style>body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin-bottom:1em}")
                .append("td,th{border:1px solid #ccc;padding:.3em .6em;text-align:right}td:first-child,th:first-child,")
                .append("td:last-child,th:last-child{text-align:left}</style></head><body>\n")
                .append("<h1>Lock contention</h1>\n<p>").append(esc(s.file().toString())).append(": ")
                .append(s.lockWaits()).append(" contended acquisitions and ").append(s.conditionWaits())
                .append(" condition waits of numaloom locks, at or above the recording's thresholds (")
                .append(esc(Contention.thresholds(s.thresholds()))).append("); ")
                .append(esc(Contention.jdkLine(s))).append(".</p>\n");
        if (s.virtualThreads()) {
            sb.append("<p><b>").append(esc(Contention.VIRTUAL_THREADS_NOTE)).append("</b></p>\n");
        }
        List<Contention.Row> rows = s.rows();
        if (rows.isEmpty()) {
            sb.append("<p>No lock waits in the recording: nothing waited as long as its thresholds, or it disabled the")
                    .append(" events. Lower the thresholds to see shorter waits, e.g. <code>-XX:StartFlightRecording:")
                    .append("filename=app.jfr,+io.numaloom.LockContended#threshold=1ms</code>.</p>\n");
        } else {
            sb.append("<h2>Every lock threads waited for</h2>\n<p>numaloom's locks, the JDK's (parks: a <code>ReentrantLock</code>")
                    .append(" or another synchronizer) and <code>synchronized</code>, the longest total wait first, with where")
                    .append(" in the application threads waited longest.</p>\n")
                    .append("<table><tr><th>kind</th><th>lock</th><th>waits</th><th>total ms</th><th>p50 ms</th><th>p99 ms</th>")
                    .append("<th>max ms</th><th>where threads waited longest</th></tr>\n");
            for (Contention.Row r : rows.subList(0, Math.min(top, rows.size()))) {
                Waits w = r.waits();
                sb.append("<tr><td>").append(esc(r.kind())).append("</td><td style=\"text-align:left\">").append(esc(r.lock()))
                        .append("</td>").append(cell("%d", w.count())).append(cell("%.1f", w.totalMillis()))
                        .append(cell("%.2f", w.percentileMillis(50))).append(cell("%.2f", w.percentileMillis(99)))
                        .append(cell("%.2f", w.maxMillis())).append("<td>").append(esc(w.topCallSite())).append("</td></tr>\n");
            }
            sb.append("</table>\n");
            sb.append(histogram(rows.subList(0, Math.min(PLOTTED, rows.size()))));
        }
        numaloom(sb, s, top);
        conditions(sb, s, top);
        jdk(sb, s, top);
        sb.append("<p>queued: waited in a queue, not just polled; parked: slept at least once; reserved: took the lock")
                .append(" by reservation after being overtaken for 1 ms; cross-node: of the waits whose holder came through")
                .append(" a queue, those where it was another queue (NUMA node) than the waiter's. A call site is the first")
                .append(" recorded frame outside numaloom and the JDK. Parks and monitor enters count only with such a frame:")
                .append(" an idle pool thread's park is not contention. JDK 25 records parks and monitor enters of platform")
                .append(" threads only, not of virtual threads (numaloom's events record both). Open the recording in JDK")
                .append(" Mission Control (Event Browser &gt;")
                .append(" numaloom &gt; Locks, Java Application &gt; Java Thread Park) for each wait's stack trace.</p>\n");
        return sb.append("</body></html>\n").toString();
    }

    private static void numaloom(StringBuilder sb, Contention.Summary s, int top) {
        List<Contention.LockWaits> waited = s.locks().stream().filter(l -> l.count() > 0).limit(top).toList();
        if (waited.isEmpty()) {
            return;
        }
        sb.append("<h2>numaloom locks</h2>\n")
                .append("<table><tr><th>lock</th><th>waits</th><th>total ms</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th>")
                .append("<th>max ms</th><th>queued</th><th>parked</th><th>reserved</th><th>cross-node</th>")
                .append("<th>longest holders (ms of waits caused)</th></tr>\n");
        for (Contention.LockWaits l : waited) {
            Double cross = l.crossQueueFraction();
            Waits w = l.acquisitions();
            sb.append("<tr><td>").append(esc(l.label())).append("</td>")
                    .append(cell("%d", w.count())).append(cell("%.1f", w.totalMillis()))
                    .append(cell("%.2f", w.percentileMillis(50))).append(cell("%.2f", w.percentileMillis(90)))
                    .append(cell("%.2f", w.percentileMillis(99))).append(cell("%.2f", w.maxMillis()))
                    .append(cell("%.0f%%", 100 * l.fraction(l.queued))).append(cell("%.0f%%", 100 * l.fraction(l.parked)))
                    .append(cell("%.0f%%", 100 * l.fraction(l.reserved)))
                    .append("<td>").append(cross == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * cross)).append("</td>")
                    .append("<td>").append(esc(Contention.entries(w.topHolders(5)))).append("</td></tr>\n");
        }
        sb.append("</table>\n");
        for (Contention.LockWaits l : waited) {
            sites(sb, l.label() + ": where threads waited", l.acquisitions(), top);
            if (!l.keyNanos.isEmpty()) {
                sb.append("<p>Keys of ").append(esc(l.label())).append(" waited for longest (ms): ")
                        .append(esc(Contention.entries(l.topKeys(top)))).append("</p>\n");
            }
        }
    }

    private static void conditions(StringBuilder sb, Contention.Summary s, int top) {
        List<Contention.LockWaits> numaloom = s.locks().stream().filter(l -> l.conditions().count() > 0)
                .sorted((a, b) -> Long.compare(b.conditions().totalNanos(), a.conditions().totalNanos())).limit(top).toList();
        List<Contention.JdkWaits> aqs = s.jdk(Contention.Kind.CONDITION);
        if (numaloom.isEmpty() && aqs.isEmpty()) {
            return;
        }
        sb.append("<h2>Condition waits</h2>\n<p>From the call to <code>await</code> to its return with the lock held again")
                .append(" (numaloom's), or the park on an AQS condition (a <code>ReentrantLock</code>'s). A long wait here is")
                .append(" a thread that had nothing to do, not contention, unless its signal came late.</p>\n")
                .append("<table><tr><th>condition of</th><th>waits</th><th>total ms</th><th>p50 ms</th><th>max ms</th>")
                .append("<th>timed out</th></tr>\n");
        for (Contention.LockWaits l : numaloom) {
            Waits w = l.conditions();
            sb.append("<tr><td>").append(esc(l.label())).append("</td>").append(cell("%d", w.count()))
                    .append(cell("%.1f", w.totalMillis())).append(cell("%.2f", w.percentileMillis(50)))
                    .append(cell("%.2f", w.maxMillis())).append(cell("%d", l.conditionTimedOut)).append("</tr>\n");
        }
        for (Contention.JdkWaits j : aqs.subList(0, Math.min(top, aqs.size()))) {
            Waits w = j.waits();
            sb.append("<tr><td>").append(esc(j.label())).append("</td>").append(cell("%d", w.count()))
                    .append(cell("%.1f", w.totalMillis())).append(cell("%.2f", w.percentileMillis(50)))
                    .append(cell("%.2f", w.maxMillis())).append("<td>-</td></tr>\n");
        }
        sb.append("</table>\n");
        for (Contention.LockWaits l : numaloom) {
            sites(sb, l.label() + ": where threads awaited a condition", l.conditions(), top);
        }
        for (Contention.JdkWaits j : aqs.subList(0, Math.min(top, aqs.size()))) {
            sites(sb, j.label() + ": where threads awaited it", j.waits(), top);
        }
    }

    private static void jdk(StringBuilder sb, Contention.Summary s, int top) {
        for (Contention.Kind kind : List.of(Contention.Kind.PARK, Contention.Kind.MONITOR)) {
            List<Contention.JdkWaits> of = s.jdk(kind);
            if (of.isEmpty()) {
                continue;
            }
            boolean monitor = kind == Contention.Kind.MONITOR;
            sb.append(monitor ? "<h2><code>synchronized</code> (jdk.JavaMonitorEnter)</h2>\n<p>By the class of the object locked.</p>\n"
                    : "<h2>JDK locks and other parks (jdk.ThreadPark)</h2>\n<p>By the class parked on: a <code>ReentrantLock</code>'s,"
                    + " a <code>ReentrantReadWriteLock</code>'s, a latch's or future's.</p>\n");
            sb.append("<table><tr><th>lock</th><th>waits</th><th>total ms</th><th>p50 ms</th><th>p99 ms</th><th>max ms</th>")
                    .append(monitor ? "<th>longest holders (ms of waits caused)</th>" : "").append("</tr>\n");
            List<Contention.JdkWaits> shown = of.subList(0, Math.min(top, of.size()));
            for (Contention.JdkWaits j : shown) {
                Waits w = j.waits();
                sb.append("<tr><td>").append(esc(j.label())).append("</td>").append(cell("%d", w.count()))
                        .append(cell("%.1f", w.totalMillis())).append(cell("%.2f", w.percentileMillis(50)))
                        .append(cell("%.2f", w.percentileMillis(99))).append(cell("%.2f", w.maxMillis()));
                if (monitor) {
                    sb.append("<td>").append(esc(Contention.entries(w.topHolders(5)))).append("</td>");
                }
                sb.append("</tr>\n");
            }
            sb.append("</table>\n");
            for (Contention.JdkWaits j : shown) {
                sites(sb, j.label() + ": where threads waited", j.waits(), top);
            }
        }
    }

    private static void sites(StringBuilder sb, String title, Waits w, int top) {
        sb.append("<h3>").append(esc(title)).append("</h3>\n")
                .append("<table><tr><th>call site</th><th>waits</th><th>total ms</th></tr>\n");
        for (Waits.CallSite c : w.topCallSites(top)) {
            sb.append("<tr><td>").append(esc(c.frame())).append("</td>").append(cell("%d", c.waits()))
                    .append(cell("%.1f", c.totalMillis())).append("</tr>\n");
        }
        sb.append("</table>\n");
    }

    /** A bar chart of the waits of {@code rows} by duration bucket, one bar per lock in each bucket, as inline SVG. */
    static String histogram(List<Contention.Row> rows) {
        int buckets = 1;
        for (Contention.Row r : rows) {
            buckets = Math.max(buckets, bucket(r.waits().maxNanos()) + 1);
        }
        long[][] counts = new long[rows.size()][buckets];
        long most = 1;
        for (int i = 0; i < rows.size(); i++) {
            long[] c = counts[i];
            rows.get(i).waits().forEach(n -> c[bucket(n)]++);
            for (long v : c) {
                most = Math.max(most, v);
            }
        }
        int left = 60;
        int right = 20;
        int topMargin = 40;
        int bottom = 50;
        int legend = 20 * rows.size();
        int plotW = WIDTH - left - right;
        int plotH = HEIGHT - topMargin - bottom;
        double slot = (double) plotW / buckets;
        double bar = slot * 0.8 / rows.size();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\""
                + " aria-label=\"histogram of wait times\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT + legend));
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"20\" font-size=\"16\" text-anchor=\"middle\">Waits to acquire,"
                + " by duration</text>%n", WIDTH / 2));
        int y0 = topMargin + plotH;
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n", left, y0, left + plotW, y0));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n", left, topMargin, left, y0));
        long lastTick = -1;
        for (int t = 0; t <= 4; t++) {
            long v = Math.round(most * t / 4.0);
            if (v == lastTick) {
                continue; // few waits: fewer ticks than 5
            }
            lastTick = v;
            double y = y0 - (double) plotH * v / most;
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>%n", left - 6, y + 4, v));
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>%n",
                    left + 1, y, left + plotW, y));
        }
        for (int b = 0; b < buckets; b++) {
            double x = left + slot * b + slot * 0.1;
            for (int i = 0; i < rows.size(); i++) {
                double h = (double) plotH * counts[i][b] / most;
                sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                                + "<title>%s: %d waits of %s ms</title></rect>%n", x + bar * i, y0 - h, bar, h, COLORS[i % COLORS.length],
                        esc(rows.get(i).lock()), counts[i][b], bucketLabel(b)));
            }
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    left + slot * (b + 0.5), y0 + 16, esc(bucketLabel(b))));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">wait (ms)</text>%n",
                left + plotW / 2, y0 + 36));
        for (int i = 0; i < rows.size(); i++) {
            int y = HEIGHT + 20 * i;
            sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s (%s)</text>%n", left, y, COLORS[i % COLORS.length], left + 18, y + 11,
                    esc(rows.get(i).lock()), esc(rows.get(i).kind())));
        }
        return sb.append("</svg>\n").toString();
    }

    private static String cell(String format, Object value) {
        return "<td>" + String.format(Locale.ROOT, format, value) + "</td>";
    }

    /** Escapes text for HTML (and SVG): {@code & < > "}; null as empty. */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
