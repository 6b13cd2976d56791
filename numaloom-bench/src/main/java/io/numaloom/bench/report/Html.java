package io.numaloom.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.result.PointResult;

import java.util.List;

/**
 * Renders {@code index.html}: one self-contained page (inline CSS, plots as relative images). Its style sheet and
 * escaping are public for the JMH route's page, which is drawn from that route's rounds (outside this package).
 */
public final class Html {
    private Html() {}

    /** The pages' style sheet. */
    public static final String CSS = """
            body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;max-width:1200px;
                 padding:0 1em;color:#222;line-height:1.45}
            h1{margin-bottom:.2em} h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
            table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
            th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right;vertical-align:top}
            th{background:#f4f4f4} td.l,th.l{text-align:left}
            tr.failed td{background:#fff0f0}
            .muted{color:#666;font-size:.9em} .err{color:#b00}
            ul.verdict{font-size:1.05em} ul.verdict code{white-space:pre} .warn{background:#fff6e0;border-left:4px solid #e0a000;padding:.5em .8em}
            img{max-width:100%;border:1px solid #eee}
            table.ratios td{white-space:nowrap}
            pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:.85em}
            nav a{margin-right:1em}
            """;

    static String render(BenchConfig config, String configText, List<Report.Section> sections,
                         List<Summary.BenchSummary> summary, Recommendation recommendation, MachineInfo machine,
                         JsonNode run) {
        StringBuilder h = new StringBuilder(32_768);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">")
                .append("<title>numaloom bench report</title><style>").append(CSS).append("</style></head><body>\n");
        h.append("<h1>numaloom bench report</h1>\n<p class=\"muted\">");
        if (run != null) {
            h.append("Configuration: ").append(esc(run.path("config").asText())).append(". Started ")
                    .append(esc(run.path("started").asText())).append(", ")
                    .append(run.path("finished").isNull() || run.path("finished").isMissingNode()
                            ? "not finished (resume with <code>--resume</code>)" : "finished " + esc(run.path("finished").asText()))
                    .append(". ");
        }
        long ok = sections.stream().flatMap(s -> s.rows().stream()).filter(PointResult::ok).count();
        long failed = sections.stream().flatMap(s -> s.rows().stream()).filter(r -> !r.ok()).count();
        h.append(ok).append(" points measured").append(failed > 0 ? ", <span class=\"err\">" + failed + " failed</span>" : "")
                .append(".</p>\n");
        verdict(h, summary, recommendation, machine, sections.stream().flatMap(s -> s.rows().stream()).toList());
        if (!config.description().isEmpty()) {
            h.append("<p>").append(esc(config.description())).append("</p>\n");
        }
        h.append("<nav>");
        for (Report.Section s : sections) {
            h.append("<a href=\"#").append(esc(s.bench().id())).append("\">").append(esc(s.bench().title())).append("</a>");
        }
        h.append("<a href=\"#machine\">Machine</a><a href=\"#config\">Configuration</a></nav>\n");
        java.util.Map<String, List<BestOther.Line>> bestOther = new java.util.HashMap<>();
        for (Report.Section s : sections) {
            bestOther.put(s.bench().id(), BestOther.lines(s.bench(), s.rows()));
        }
        whoWon(h, summary, bestOther);

        for (Report.Section s : sections) {
            bench(h, s, machine == null ? null : machine.timerFloorNs());
        }
        machine(h, machine);
        h.append("<h2 id=\"metrics\">What the columns mean</h2>\n<ul>")
                .append("<li><b>ops/ms</b>: operations (critical sections) per millisecond over a whole round, mean of ")
                .append("all measured rounds of all forks, with its 95% confidence interval (Student's t). With two or more ")
                .append("forks the interval is that of the forks' means: each fork is a fresh JVM, and JVMs differ more ")
                .append("than the rounds of one JVM do. With one fork it is that of the rounds, and too narrow.</li>")
                .append("<li><b>time</b>: the time of one round (all threads doing all the work), ms.</li>")
                .append("<li><b>Jain</b>: Jain's fairness index of the operations each thread had completed when the first ")
                .append("thread finished its share: 1 is perfectly even, 1/threads means one thread did everything. ")
                .append("<b>min/max</b>: the least over the most of those counts.</li>")
                .append("<li><b>acquire p50/p99/p99.9/max</b>: time from calling lock to holding it (HdrHistogram, all measured rounds); ")
                .append("max is the worst wait of the point, and <code>summary.csv</code> gives it as a ratio to the baseline's. ")
                .append("It is one sample from the tail and varies from run to run: when the operating system takes a CPU ")
                .append("away for milliseconds, that lands in the max of whichever lock was running. The machine section ")
                .append("says how long the machine stalled threads that only spun, just before the run. The <code>queue</code> ")
                .append("workload puts each item's put-to-take time in these columns instead, and <code>server</code> each ")
                .append("request's response time (from its intended send time in open loop); their tables say so.</li>")
                .append("<li><b>paired p99, p99 ÷ paired</b> (<code>server</code> with <code>pairedWith</code>): the p99 of a ")
                .append("second server on the paired lock that ran beside the point's in the same rounds, taking every other ")
                .append("request of each connection, and the point's p99 over it. Two points' p99s are measured minutes apart, ")
                .append("each under the machine's stalls of its own minutes; the ratio is taken under the same ones.</li>")
                .append("<li><b>local handoffs</b>: the fraction of consecutive acquisitions whose two holders ran on the same ")
                .append("NUMA node (of the measured JVM's topology, which may be virtual). With <code>remotePenaltyNs</code> ")
                .append("above zero, every other handoff spins that long inside the critical section (the NUMA cost model). ")
                .append("Blank on a one-node topology, where every handoff is local.</li>")
                .append("<li><b>futile wake-ups/op, signal→lock p50/p99</b> (<code>queue</code>, buffer over a lock): per item, the ")
                .append("times a thread woken from notFull or notEmpty found the buffer still full or still empty and waited again; ")
                .append("and the time from a signal (stamped under the lock when a thread waits on that condition) to the woken ")
                .append("thread holding the lock again, from the latest signal when several came first (so a lower bound), all ")
                .append("wake-ups of a monitor's single wait set counted. Blank for <code>ARRAY_BLOCKING_QUEUE</code> and ")
                .append("<code>LINKED_BLOCKING_QUEUE</code>.</li>")
                .append("<li><b>slow/op, queued/op, parks/op, wake-ups/op, reservations, yields</b> (VnaLock, with <code>\"diagnostics\": true</code>): ")
                .append("per operation, the acquisitions that failed the fast path, those that came through a queue, the parks of ")
                .append("waiting threads and the wake-ups sent to them; and how often a heir past its deadline (")
                .append("<code>VnaLock.PATIENCE_NANOS</code> as heir, or <code>VnaLock.STARVATION_NANOS</code> since it ")
                .append("queued) reserved the lock, and how often a thread that released the lock yielded its CPU or carrier to ")
                .append("such a heir that had not run since its deadline (io.numaloom.LockDiagnostics).</li>")
                .append("<li><b>B/op</b>: heap bytes the measured JVM allocated per operation while the measured rounds ran ")
                .append("(the threads are started before the clock, so almost all of it is the workload's and the lock's).</li>")
                .append("<li><b>retained</b> (keyed workload): the bytes reachable from the keyed scheme after the last measured ")
                .append("round (JOL), keys included: what the scheme keeps once the work is done.</li>")
                .append("</ul>\n");
        h.append("<h2 id=\"config\">Configuration</h2>\n<p class=\"muted\">The effective configuration, every default filled in ")
                .append("(<a href=\"config.json\">config.json</a>; results in <a href=\"results.csv\">results.csv</a> and ")
                .append("<a href=\"results.json\">results.json</a>).</p>\n<pre>").append(esc(configText)).append("</pre>\n");
        h.append("</body></html>\n");
        return h.toString();
    }

    /**
     * At the top: the verdict, the same lines as the console's last block (every lock on the same points, what to use or
     * a tie); the warning when the machine's stalls may decide points; then each lock over every point it measured.
     */
    private static void verdict(StringBuilder h, List<Summary.BenchSummary> summary, Recommendation recommendation,
                                MachineInfo machine, List<PointResult> rows) {
        if (rows.isEmpty()) {
            return;
        }
        h.append("<h2 id=\"verdict\">Verdict</h2>\n<p>").append(esc(recommendation.header())).append("</p>\n");
        if (!recommendation.lockLines().isEmpty()) {
            h.append("<ul class=\"verdict\">");
            for (String line : recommendation.lockLines()) {
                h.append("<li><code>").append(esc(line.strip())).append("</code></li>");
            }
            h.append("</ul>\n");
        }
        if (recommendation.use() != null) {
            h.append("<p><b>").append(esc(recommendation.use())).append("</b></p>\n");
        }
        if (summary.stream().anyMatch(s -> !s.locks().isEmpty())) {
            h.append("<p class=\"muted\">Over every ratio of <a href=\"#summary\">who won</a>, ")
                    .append(esc(Summary.Precision.of(summary).text()))
                    .append(" (the half-width of a ratio's 95% interval, relative to the ratio).</p>\n");
        }
        for (String note : recommendation.notes()) {
            h.append(note.startsWith("⚠") ? "<p class=\"warn\">" : "<p class=\"muted\">").append(esc(note)).append("</p>\n");
        }
        Summary.stallWarningFor(machine, rows)
                .ifPresent(w -> h.append("<p class=\"warn\">⚠ ").append(esc(w)).append("</p>\n"));
        List<Summary.Overall> overall = Summary.overall(summary);
        if (!overall.isEmpty()) {
            h.append("<p class=\"muted\">Each lock over every point it measured. Locks measured different points, so ")
                    .append("these lines do not rank locks against each other; the verdict above does, on the same points.</p>\n")
                    .append("<ul class=\"muted\">");
            for (Summary.Overall o : overall) {
                h.append("<li>").append(esc(o.line())).append("</li>");
            }
            h.append("</ul>\n");
        }
    }

    /**
     * Each lock against its bench's baseline, per bench and thread count, with the one-line verdicts and VNA against the
     * best other lock ({@link BestOther}), with the twin's line under it where the bench measured the twin.
     */
    private static void whoWon(StringBuilder h, List<Summary.BenchSummary> summary,
                               java.util.Map<String, List<BestOther.Line>> bestOther) {
        if (summary.stream().allMatch(s -> s.locks().isEmpty())) {
            return;
        }
        h.append("<h2 id=\"summary\">Who won</h2>\n<p class=\"muted\">Throughput as a ratio to ")
                .append("each bench's baseline (named above its table) at the same thread count, with the ratio's 95% interval ")
                .append("in brackets: ▲ faster and ▼ slower where that interval excludes 1, unmarked where it contains 1 ")
                .append("(a tie); [-]: no interval (one round), so no verdict. Under each table, the precision reached: the ")
                .append("median and widest half-width of its intervals, and how its groups (one thread count each) stopped ")
                .append("adding rounds. Also in ")
                .append("<a href=\"").append(Summary.FILE).append("\">").append(Summary.FILE).append("</a>.</p>\n");
        for (Summary.BenchSummary s : summary) {
            if (s.locks().isEmpty()) {
                continue;
            }
            h.append("<p><b><a href=\"#").append(esc(s.id())).append("\">").append(esc(s.title())).append("</a></b>, against ")
                    .append(esc(s.baselineName())).append("</p>\n")
                    .append("<table class=\"ratios\"><tr><th class=\"l\">lock</th>");
            for (int t : s.threads()) {
                h.append("<th>").append(t).append(t == 1 ? " thread" : " threads").append("</th>");
            }
            h.append("<th>geometric mean</th></tr>\n");
            for (Summary.LockLine line : s.locks()) {
                h.append("<tr><td class=\"l\">").append(esc(line.lock())).append("</td>");
                for (int t : s.threads()) {
                    String cell = line.cells().stream().filter(c -> c.threads() == t).findFirst()
                            .map(Summary::withInterval).orElse("");
                    h.append(td(cell));
                }
                h.append(td(Double.isNaN(line.geometricMean()) ? "" : Report.fixed(line.geometricMean(), 2))).append("</tr>\n");
            }
            h.append("</table>\n<p class=\"muted\">").append(esc(s.precision().text())).append(".</p>\n<ul>");
            for (Summary.LockLine line : s.locks()) {
                h.append("<li>").append(esc(line.verdict())).append("</li>");
            }
            for (BestOther.Line best : bestOther.getOrDefault(s.id(), List.of())) {
                h.append("<li>").append(esc(best.text())).append(best.isTwin() ? " (" + esc(TWIN_SENTENCE) + ")" : "")
                        .append("</li>");
            }
            h.append("</ul>\n");
            if (s.locks().stream().anyMatch(l -> l.cells().stream().anyMatch(Summary.Cell::spansSessions))) {
                h.append("<p class=\"warn\">").append(esc(Summary.SESSIONS_NOTE)).append(".</p>\n");
            }
        }
    }

    private static void bench(StringBuilder h, Report.Section s, Long timerFloorNs) {
        BenchDefinition b = s.bench();
        h.append("<h2 id=\"").append(esc(b.id())).append("\">").append(esc(b.title())).append("</h2>\n");
        h.append("<p class=\"muted\">Workload <b>").append(esc(b.kind().jsonName())).append("</b>: ")
                .append(esc(b.kind().summary())).append(".<br>Settings: ");
        boolean first = true;
        for (var e : b.settings().values().properties()) {
            h.append(first ? "" : ", ").append(esc(e.getKey())).append(" = ").append(esc(e.getValue().asText()));
            first = false;
        }
        h.append(". Threads: ").append(esc(b.threadType())).append(", ").append(b.carriers()).append(" carriers")
                .append(b.scheduler().startsWith("numa") ? ", NumaScheduler (pinned carrier pools per node" + ("numa-park".equals(b.scheduler()) ? ", no idle spin)" : ")") : b.pinCarriers() ? ", pinned" : "")
                .append(". Remote handoff penalty: ").append(b.remotePenaltyNs())
                .append(" ns, migration penalty: ").append(b.migrationPenaltyNs()).append(" ns").append(b.topology().isEmpty() ? "" : ", topology " + esc(b.topology()))
                .append(". JMH: ").append(b.forks()).append(" fork(s) × (").append(b.warmupIterations()).append(" warm-up + ")
                .append(b.measurementIterations()).append(" measured rounds).<br>Measured JVM flags: <code>")
                .append(esc(String.join(" ", b.measuredJvmArgs()))).append("</code>")
                .append(b.startupCache() ? " and the run's class cache (<code>-XX:AOTCache</code>, loaded and linked classes only)" : "")
                .append("</p>\n");
        if (s.plotted()) {
            h.append("<p><img src=\"").append(esc(b.id())).append(".png\" alt=\"").append(esc(b.title()))
                    .append("\"><br><a href=\"").append(esc(b.id())).append(".svg\">SVG</a></p>\n");
            if (s.ratioPlotted()) {
                String ratio = b.id() + Charts.RATIO_SUFFIX;
                h.append("<p><img src=\"").append(esc(ratio)).append(".png\" alt=\"").append(esc(b.title()))
                        .append(": ratio to the reference\"><br><a href=\"").append(esc(ratio))
                        .append(".svg\">SVG</a>. Each lock's throughput as a ratio to ").append(esc(Summary.nameOf(
                                Summary.baselineOf(b)))).append(", with its 95% interval (no bar: no interval, or the two ")
                        .append("points were measured in different sessions); the line at 1 is the reference.</p>\n");
            }
        } else {
            h.append("<p class=\"err\">No point of this bench was measured successfully; nothing to plot.</p>\n");
        }
        if (s.rows().isEmpty()) {
            h.append("<p class=\"muted\">No results yet.</p>\n");
            return;
        }
        h.append("<table><tr><th>threads</th><th class=\"l\">lock</th><th>ops/ms</th><th>95% CI</th><th>time ms</th>")
                .append("<th>Jain</th><th>min/max</th><th>").append(esc(b.kind().latencyName())).append(" p50 µs</th><th>p99 µs</th><th>p99.9 µs</th><th>max µs</th>");
        boolean paired = s.rows().stream().anyMatch(r -> r.pairedP99Ns() != null);
        if (paired) {
            h.append("<th>paired p99 µs</th><th>p99 ÷ paired</th>");
        }
        h.append("<th>local handoffs</th>");
        boolean waits = s.rows().stream().anyMatch(r -> r.futileWakeupsPerOp() != null);
        if (waits) {
            h.append("<th>futile wake-ups/op</th><th>signal→lock p50 µs</th><th>signal→lock p99 µs</th>");
        }
        boolean diagnostics = s.rows().stream().anyMatch(r -> r.parksPerOp() != null);
        if (diagnostics) {
            h.append("<th>slow/op</th><th>queued/op</th><th>parks/op</th><th>wake-ups/op</th><th>reservations</th><th>yields</th>");
        }
        boolean retained = s.rows().stream().anyMatch(r -> r.retainedBytes() != null);
        h.append("<th>B/op</th>").append(retained ? "<th>retained</th>" : "");
        boolean sessions = s.rows().stream().map(PointResult::sessionOrFirst).distinct().count() > 1;
        h.append("<th>rounds</th>").append(sessions ? "<th>session</th>" : "").append("<th class=\"l\">status</th></tr>\n");
        for (PointResult r : s.rows()) {
            h.append(r.ok() ? "<tr>" : "<tr class=\"failed\">")
                    .append(td(Integer.toString(r.threads()))).append("<td class=\"l\">").append(esc(r.lock())).append("</td>")
                    .append(td(Report.num(r.opsPerMs())))
                    .append(td(Report.throughputCi(r.opsPerMsCiLow(), r.opsPerMsCiHigh())))
                    .append(td(Report.num(r.timeMs()))).append(td(Report.fixed(r.jain(), 3)))
                    .append(td(Report.fixed(r.minMaxRatio(), 2))).append(td(Report.microsOrFloor(r.latencyP50Ns(), timerFloorNs)))
                    .append(td(Report.microsOrFloor(r.latencyP99Ns(), timerFloorNs)))
                    .append(td(Report.microsOrFloor(r.latencyP999Ns(), timerFloorNs)))
                    .append(td(Report.microsOrFloor(r.latencyMaxNs(), timerFloorNs)));
            if (paired) {
                h.append(td(Report.microsOrFloor(r.pairedP99Ns(), timerFloorNs)))
                        .append(td(r.latencyP99Ns() == null || r.pairedP99Ns() == null || r.pairedP99Ns() == 0 ? ""
                                : Report.fixed((double) r.latencyP99Ns() / r.pairedP99Ns(), 2)));
            }
            h.append(td(Report.percent(r.localHandoffFraction())));
            if (waits) {
                h.append(td(Report.fixed(r.futileWakeupsPerOp(), 3)))
                        .append(td(Report.microsOrFloor(r.signalToLockP50Ns(), timerFloorNs)))
                        .append(td(Report.microsOrFloor(r.signalToLockP99Ns(), timerFloorNs)));
            }
            if (diagnostics) {
                h.append(td(Report.fixed(r.slowPathsPerOp(), 3))).append(td(Report.fixed(r.queuedPerOp(), 3)))
                        .append(td(Report.fixed(r.parksPerOp(), 3))).append(td(Report.fixed(r.unparksPerOp(), 3)))
                        .append(td(r.reservations() == null ? "" : Long.toString(r.reservations())))
                        .append(td(r.yields() == null ? "" : Long.toString(r.yields())));
            }
            h.append(td(Report.fixed(r.bytesPerOp(), 2)));
            if (retained) {
                h.append(td(Report.bytes(r.retainedBytes())));
            }
            h.append(td(Integer.toString(r.rounds())));
            if (sessions) {
                h.append(td(Integer.toString(r.sessionOrFirst())));
            }
            h.append("<td class=\"l\">").append(r.ok() ? "ok" : "<span class=\"err\">failed: " + esc(r.error()) + "</span>")
                    .append("</td></tr>\n");
        }
        h.append("</table>\n");
        if (s.rows().stream().anyMatch(r -> r.opsPerMsCiLow() != null && r.opsPerMsCiLow() < 0)) {
            h.append("<p class=\"muted\">0* in the 95% CI column: the interval's lower bound fell below zero (few or very ")
                    .append("unequal rounds) and is shown clamped at 0, as throughput cannot be negative.</p>\n");
        }
        if (sessions) {
            h.append("<p class=\"warn\">The points of this bench were measured in different sessions of a resumed run ")
                    .append("(the machine section lists them): a point is compared only with points of its own session.</p>\n");
        }
        if (paired) {
            h.append("<p class=\"muted\">Paired: each point's rounds also ran a second server on <code>")
                    .append(esc(b.settings().values().path(io.numaloom.bench.workloads.LoopbackServer.PAIRED_WITH).asText()))
                    .append("</code> in the same JVM, every other request of each connection going to it; its p99 is over ")
                    .append("the same rounds, so <em>p99 ÷ paired</em> compares the locks under the same machine, which ")
                    .append("the p99s of two points, measured minutes apart, do not.</p>\n");
        }
        if (waits) {
            h.append("<p class=\"muted\">Futile wake-ups and signal→lock: counted in the buffer over a lock; blank for the ")
                    .append("JDK's blocking queues, whose waits are their own, and signal→lock blank where no thread waited.</p>\n");
        }
        boolean atFloor = s.rows().stream().flatMap(r -> java.util.stream.Stream.of(r.latencyP50Ns(), r.latencyP99Ns(),
                r.latencyP999Ns(), r.latencyMaxNs(), r.signalToLockP50Ns(), r.signalToLockP99Ns())).anyMatch(ns -> Report.microsOrFloor(ns, timerFloorNs).startsWith("≤"));
        if (atFloor) {
            h.append("<p class=\"muted\">≤ in a latency column: at the timer's floor. Two consecutive readings of ")
                    .append("<code>System.nanoTime()</code> are ").append(timerFloorNs).append(" ns apart on this machine, and ")
                    .append("a latency is the difference of two readings, so one within twice that says the wait was too short ")
                    .append("to measure, not how long it was.</p>\n");
        }
        List<BestOther.Line> lines = BestOther.lines(b, s.rows());
        if (!lines.isEmpty()) {
            bestOther(h, lines.getFirst(), lines.size() > 1 ? lines.get(1) : null);
        }
        SerialBound.of(b, s.rows()).ifPresent(line -> serialBound(h, line));
        String placement = s.rows().stream().map(PointResult::placement).filter(p -> p != null && !p.isEmpty())
                .findFirst().orElse(null);
        if (placement != null) {
            h.append("<p class=\"muted\">Placement: ").append(esc(placement)).append(".</p>\n");
        }
    }

    /** What the twin's figures are, wherever they are shown beside VNA's. */
    static final String TWIN_SENTENCE = BestOther.TWIN + ", a second, identical unfair ReentrantLock: what a lock that "
            + "ties the others reads here";

    /**
     * VNA over the best other lock at each thread count of a bench, the lock named, with the mean and the lowest; and
     * the twin's row and figures under VNA's where there is a twin line ({@code twin} not null).
     */
    private static void bestOther(StringBuilder h, BestOther.Line line, BestOther.Line twin) {
        h.append("<p><b>").append(BestOther.LOCK).append(" against the best other lock</b> at each thread count: its ")
                .append("throughput over the highest of the other locks', with its 95% interval (▲ faster, ▼ slower where ")
                .append("the interval excludes 1; [-]: no interval; ( ) the best other lock was measured in another ")
                .append("session).</p>\n")
                .append("<table class=\"ratios\"><tr><th class=\"l\">threads</th>");
        line.points().forEach(p -> h.append("<th>").append(p.cell().threads()).append("</th>"));
        h.append("</tr>\n<tr><td class=\"l\">best other lock</td>");
        line.points().forEach(p -> h.append(td(p.best())));
        h.append("</tr>\n<tr><td class=\"l\">").append(BestOther.LOCK).append(" / best other</td>");
        line.points().forEach(p -> h.append(td(Summary.withInterval(p.cell()))));
        h.append("</tr>\n");
        if (twin != null) {
            // The twin's cells under VNA's thread counts; its best other lock named only where it is not VNA's.
            h.append("<tr><td class=\"l\">").append(BestOther.TWIN).append(" / best other</td>");
            for (BestOther.Point p : line.points()) {
                h.append(td(twin.points().stream().filter(q -> q.cell().threads() == p.cell().threads()).findFirst()
                        .map(q -> Summary.withInterval(q.cell()) + (q.best().equals(p.best()) ? "" : " (" + q.best() + ")"))
                        .orElse("")));
            }
            h.append("</tr>\n");
        }
        h.append("</table>\n<p class=\"muted\">").append(esc(figures(line)));
        if (twin != null) {
            String figures = figures(twin);
            h.append(' ').append(esc(TWIN_SENTENCE)).append(": ").append(Character.toLowerCase(figures.charAt(0)))
                    .append(esc(figures.substring(1)));
        }
        h.append("</p>\n");
    }

    /** "Geometric mean 1.04, lowest 0.80 at 1 thread (UNFAIR_REENTRANT).", or that no point of one session has one. */
    private static String figures(BestOther.Line line) {
        if (line.lowest() == null) {
            return "No point whose best other lock was measured in the session of " + line.lock() + "'s point.";
        }
        return String.format(java.util.Locale.ROOT, "Geometric mean %.2f, lowest %.2f at %d thread%s (%s).",
                line.geometricMean(), line.lowest().cell().ratio(), line.lowest().cell().threads(),
                line.lowest().cell().threads() == 1 ? "" : "s", line.lowest().best());
    }

    /** Each lock's throughput above 1 thread over its own at 1 thread, or that there is no 1-thread point. */
    private static void serialBound(StringBuilder h, SerialBound.BenchLine line) {
        if (!line.measuresOneThread()) {
            h.append("<p class=\"muted\">Serial bound: ").append(SerialBound.NO_ONE_THREAD).append(" in this bench (threads ")
                    .append(line.threads().stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")))
                    .append("), so no ratio to one thread.</p>\n");
            return;
        }
        h.append("<p><b>Serial bound</b>: each lock's throughput as a ratio to its own at 1 thread of this bench ")
                .append("(1: as much done as by one thread alone), with its 95% interval, unpaired as the two points ran in ")
                .append("different groups (▲ above, ▼ below where the interval excludes 1).</p>\n");
        h.append("<table class=\"ratios\"><tr><th class=\"l\">lock</th>");
        line.threads().forEach(t -> h.append("<th>").append(t).append(" threads</th>"));
        h.append("</tr>\n");
        for (SerialBound.LockLine lock : line.locks()) {
            h.append("<tr><td class=\"l\">").append(esc(lock.lock())).append("</td>");
            if (!lock.hasOneThread()) {
                h.append("<td class=\"l\" colspan=\"").append(line.threads().size()).append("\">")
                        .append(SerialBound.NO_ONE_THREAD).append("</td></tr>\n");
                continue;
            }
            for (int t : line.threads()) {
                h.append(td(lock.entries().stream().filter(e -> e.threads() == t).findFirst()
                        .map(e -> Summary.withInterval(e.ratio())).orElse("")));
            }
            h.append("</tr>\n");
        }
        h.append("</table>\n");
    }

    private static void machine(StringBuilder h, MachineInfo m) {
        h.append("<h2 id=\"machine\">Machine</h2>\n");
        if (m == null) {
            h.append("<p class=\"muted\">Not recorded.</p>\n");
            return;
        }
        h.append("<table>");
        row(h, "Host", m.host());
        row(h, "CPU", m.cpuModel());
        row(h, "CPUs", Integer.toString(m.cpus()));
        row(h, "NUMA nodes", Integer.toString(m.nodes()));
        row(h, "Memory", m.memory());
        row(h, "OS", m.os());
        row(h, "JDK", m.jdk() + " (" + m.javaHome() + ")");
        row(h, "JMH", m.jmh());
        row(h, "Current CPU source", m.cpuSource());
        row(h, "Bench JVM flags", String.join(" ", m.benchJvmArgs()));
        if (m.sessions() != null && m.sessions().size() > 1) {
            for (io.numaloom.bench.result.Session s : m.sessions()) {
                row(h, "Session " + s.number(), s.describe() + (s.number() == 1 ? " (the run's start)" : " (a --resume)"));
            }
            row(h, "Stalls of the machine", "per session, above. Worst acquire waits shorter than the longest stall of "
                    + "their session may be the machine's, not the lock's.");
        } else {
            if (m.sessions() != null && m.sessions().size() == 1 && m.sessions().getFirst().loadAverage() != null) {
                row(h, "Load at the start", String.format(java.util.Locale.ROOT, "%.2f (one-minute load average, %d CPUs)",
                        m.sessions().getFirst().loadAverage(), m.sessions().getFirst().cpus()));
            }
            if (m.stalls() != null) {
                row(h, "Stalls of the machine", m.stalls().describe() + ". Worst acquire waits shorter than the longest "
                        + "stall may be the machine's, not the lock's.");
            }
        }
        h.append("</table>\n<pre>").append(esc(m.topology())).append("</pre>\n");
    }

    private static void row(StringBuilder h, String key, String value) {
        h.append("<tr><th class=\"l\">").append(esc(key)).append("</th><td class=\"l\">").append(esc(value)).append("</td></tr>\n");
    }

    private static String td(String text) {
        return "<td>" + esc(text) + "</td>";
    }

    /** {@code s} as HTML text or attribute value; the empty string for null. */
    public static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
