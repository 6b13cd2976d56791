package io.numaloom.bench.report;

import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import io.numaloom.bench.result.ResultsDirectory;
import io.numaloom.bench.result.Session;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The answer of a run, in at most {@link #MAX_LINES} lines: the last block of the console (before the closing line)
 * and the top of {@code index.html}. Every lock is compared with the reference ({@link Summary#BASELINE}, unfair
 * {@code ReentrantLock}) on the same points: the points (bench and thread count) at which every compared lock and the
 * reference were measured, in one session of the run. Per lock it gives the geometric mean of its per-point ratios to
 * the reference with that mean's 95% interval, and how many of those points are faster, tied and slower
 * ({@link Summary.Verdict}: faster or slower only where the ratio's own 95% interval excludes 1, as in every table of the
 * report); then what to use and by how much, or "tied within noise" where nothing is faster or slower; then, beside it,
 * how far to trust it: the A/A control, the precision reached and the machine's stalls.
 *
 * <p>The twin ({@link BestOther#TWIN}, the reference measured twice) is never a choice: it is left out of the standings
 * and of what to use, and the note of the locks not in the verdict names it as the noise gauge it is.
 *
 * <p>The points are chosen so that every lock's mean is over the same points: the locks that measured the most points
 * first, a lock that has no point in common with those before it is named as left out (each bench's table still
 * compares it). A ratio whose two points were measured in different sessions of a resumed run is never counted, and the
 * block says how many were left out and what each session was (start, load, stalls).
 */
public final class Recommendation {
    /** The most lines {@link #lines()} has: with the run's closing line, the console's last block is at most 10. */
    public static final int MAX_LINES = 9;
    /** The most lines of locks; more locks are folded into the last of them. */
    static final int MAX_LOCK_LINES = 5;

    /** A point of a bench: its id and thread count. */
    record At(String bench, int threads) {
        @Override
        public String toString() {
            return bench + " x" + threads;
        }
    }

    /**
     * One lock on the common points, against the reference.
     *
     * @param geometricMean the geometric mean of its throughput ratios to the reference over the common points
     * @param low           the low end of that mean's 95% interval ({@link Summary#geometricMeanEstimate}), NaN where a
     *                      point has no interval
     * @param high          its high end
     * @param faster        the points where the ratio's 95% interval is above 1
     * @param tied          the points where it contains 1
     * @param slower        the points where it is below 1
     * @param slowerAt      those slower points, in run order
     */
    public record Standing(String lock, double geometricMean, double low, double high, int faster, int tied, int slower,
                           List<String> slowerAt) {
        /** A standing whose mean has no interval. */
        public Standing(String lock, double geometricMean, int faster, int tied, int slower, List<String> slowerAt) {
            this(lock, geometricMean, Double.NaN, Double.NaN, faster, tied, slower, slowerAt);
        }

        /** {@code 1.08x [1.03, 1.13]}, or {@code 1.08x} without an interval. */
        public String meanWithInterval() {
            return Double.isNaN(low) ? times(geometricMean)
                    : String.format(Locale.ROOT, "%.2fx [%.2f, %.2f]", geometricMean, low, high);
        }

        /** Whether no point is faster or slower: a tie within noise. */
        public boolean tiedEverywhere() {
            return faster == 0 && slower == 0;
        }
    }

    private final String header;
    private final List<String> lockLines;
    private final String use;
    private final List<String> notes;
    private final List<Standing> standings;
    private final int points;

    private Recommendation(String header, List<String> lockLines, String use, List<String> notes, List<Standing> standings,
                           int points) {
        this.header = header;
        this.lockLines = List.copyOf(lockLines);
        this.use = use;
        this.notes = List.copyOf(notes);
        this.standings = List.copyOf(standings);
        this.points = points;
    }

    /** The recommendation of a results directory, from its {@code config.json}, {@code results.json} and {@code machine.json}. */
    public static Recommendation read(Path dir) throws IOException {
        Path configFile = dir.resolve(ResultsDirectory.CONFIG_FILE);
        if (!Files.exists(configFile)) {
            throw new IOException(dir + " is not a results directory: it has no " + ResultsDirectory.CONFIG_FILE);
        }
        BenchConfig config;
        try {
            config = ConfigReader.parseSaved(Files.readString(configFile), configFile.toString());
        } catch (ConfigException e) {
            throw new IOException(e.getMessage(), e);
        }
        return of(config, ResultStore.load(dir), MachineInfo.readFrom(dir));
    }

    /**
     * The recommendation of {@code rows} measured with {@code config}.
     *
     * @param machine the run's machine file, for the sessions of a resumed run; null if none
     */
    public static Recommendation of(BenchConfig config, List<PointResult> rows, MachineInfo machine) {
        List<Summary.BenchSummary> summaries = Summary.of(config, rows).stream().filter(s -> !s.locks().isEmpty()).toList();
        if (summaries.isEmpty()) {
            return new Recommendation("No verdict: no bench has a lock measured beside its reference (" + Summary.BASELINE
                    + ", or " + Summary.KEYED_BASELINE + " in keyed benches) at the same thread count.",
                    List.of(), null, List.of(), List.of(), 0);
        }
        String reference = summaries.stream().anyMatch(s -> s.baseline().equals(Summary.BASELINE)) ? Summary.BASELINE
                : summaries.getFirst().baseline();
        String referenceName = Summary.nameOf(reference);
        List<Summary.BenchSummary> group = summaries.stream().filter(s -> s.baseline().equals(reference)).toList();

        // Per lock, its ratios of one session by point, and the points where the ratio spans sessions.
        Map<String, Map<At, Summary.Cell>> compared = new LinkedHashMap<>();
        Map<String, Set<At>> across = new LinkedHashMap<>();
        boolean twin = false;
        int twinPoints = 0;
        int twinDifferent = 0;
        for (Summary.BenchSummary s : group) {
            for (Summary.LockLine line : s.locks()) {
                if (Summary.isTwin(line.lock())) {
                    twin = true; // the reference under another name: not a lock to choose, but the run's A/A control
                    for (Summary.Cell c : line.compared()) {
                        if (c.verdict() != Summary.Verdict.UNKNOWN) {
                            twinPoints++;
                            twinDifferent += c.verdict() == Summary.Verdict.TIED ? 0 : 1;
                        }
                    }
                    continue;
                }
                Map<At, Summary.Cell> mine = compared.computeIfAbsent(line.lock(), k -> new LinkedHashMap<>());
                for (Summary.Cell c : line.cells()) {
                    if (c.spansSessions()) {
                        across.computeIfAbsent(line.lock(), k -> new LinkedHashSet<>()).add(new At(s.id(), c.threads()));
                    } else {
                        mine.put(new At(s.id(), c.threads()), c);
                    }
                }
            }
        }
        List<String> byCoverage = new ArrayList<>(compared.keySet());
        byCoverage.sort(Comparator.comparingInt(lock -> -compared.get(lock).size()));
        Set<At> common = null;
        List<String> included = new ArrayList<>();
        List<String> leftOut = new ArrayList<>();
        for (String lock : byCoverage) {
            Set<At> mine = compared.get(lock).keySet();
            Set<At> next = new LinkedHashSet<>(common == null ? mine : common);
            next.retainAll(mine);
            if (next.isEmpty()) {
                leftOut.add(lock);
            } else {
                common = next;
                included.add(lock);
            }
        }
        List<String> notes = new ArrayList<>();
        String others = othersNote(leftOut, twin, summaries, reference);
        if (others != null) {
            notes.add(others);
        }
        sessionsNote(group, across, rows, machine).ifPresent(notes::add);
        PairedRatio.AaControl aa = twin ? PairedRatio.aaControl(twinPoints, twinDifferent) : null;
        howSure(aa, Summary.Precision.of(group), machine).ifPresent(notes::add);
        if (common == null) {
            return new Recommendation("No verdict: no lock has a point measured in one session with " + referenceName
                    + " (" + reference + ").", List.of(), null, notes, List.of(), 0);
        }

        Set<At> points = common;
        List<Standing> standings = new ArrayList<>();
        for (String lock : included) {
            List<Summary.Cell> cells = points.stream().map(p -> compared.get(lock).get(p)).toList();
            List<String> slowerAt = new ArrayList<>();
            int faster = 0;
            int slower = 0;
            for (At p : points) {
                Summary.Verdict v = compared.get(lock).get(p).verdict();
                if (v == Summary.Verdict.FASTER) {
                    faster++;
                } else if (v == Summary.Verdict.SLOWER) {
                    slower++;
                    slowerAt.add(p.toString());
                }
            }
            PairedRatio.Estimate mean = Summary.geometricMeanEstimate(cells);
            standings.add(new Standing(lock, Summary.geometricMean(cells), mean.low(), mean.high(), faster,
                    points.size() - faster - slower, slower, List.copyOf(slowerAt)));
        }
        standings.sort(Comparator.comparingDouble(Standing::geometricMean).reversed());

        int n = points.size();
        String header = String.format(Locale.ROOT,
                "Verdict on the same %s for all %d locks (%s): throughput / %s, geometric mean with its 95%% interval; at each point a tie where the ratio's 95%% interval contains 1",
                count(n, "point"), included.size() + 1, describe(points), referenceName);
        List<String> lockLines = lockLines(standings, n);
        Map<String, PointResult> byKey = rows.stream().filter(r -> r.ok() && r.opsPerMs() != null)
                .collect(Collectors.toMap(PointResult::key, r -> r, (a, b) -> b, LinkedHashMap::new));
        String use = use(standings, points, reference, referenceName, byKey);
        if (aa != null && aa.tooNoisy()) {
            use = String.format(Locale.ROOT, "No verdict to act on: this machine was too noisy for these verdicts (the "
                    + "reference's twin, identical to it, was judged different at %d of %d points). Run again with a longer "
                    + "--budget or a smaller --precision, on a quieter machine.", aa.judgedDifferent(), aa.points());
        }
        return new Recommendation(header, lockLines, use, notes, standings, n);
    }

    /** A line per lock, best first; past {@link #MAX_LOCK_LINES}, the rest in the last line. */
    private static List<String> lockLines(List<Standing> standings, int n) {
        int width = standings.stream().mapToInt(s -> s.lock().length()).max().orElse(4);
        int meanWidth = Math.max(6, standings.stream().mapToInt(s -> s.meanWithInterval().length()).max().orElse(6));
        List<String> lines = new ArrayList<>();
        boolean fold = standings.size() > MAX_LOCK_LINES;
        List<Standing> shown = fold ? standings.subList(0, MAX_LOCK_LINES - 1) : standings;
        for (Standing s : shown) {
            String verdicts = s.tiedEverywhere() ? "tied within noise at " + (n == 1 ? "the 1 point" : "all " + n + " points")
                    : String.format(Locale.ROOT, "faster at %d, tied at %d, slower at %d of the %s", s.faster(), s.tied(),
                    s.slower(), count(n, "point"));
            lines.add(String.format(Locale.ROOT, "  %-" + width + "s %" + meanWidth + "s  %s", s.lock(), s.meanWithInterval(),
                    verdicts));
        }
        if (fold) {
            List<Standing> rest = standings.subList(MAX_LOCK_LINES - 1, standings.size());
            lines.add("  and " + rest.size() + " more: " + rest.stream()
                    .map(s -> s.lock() + " " + times(s.geometricMean()) + (s.tiedEverywhere() ? " (tied)" : ""))
                    .collect(Collectors.joining(", ")));
        }
        return lines;
    }

    /** What to use, and by how much; or that the locks tie. */
    private static String use(List<Standing> standings, Set<At> points, String reference, String referenceName,
                              Map<String, PointResult> byKey) {
        int n = points.size();
        String these = n == 1 ? "this point" : "these " + n + " points";
        String atAny = n == 1 ? "at this point" : "at any of these " + n + " points";
        List<Standing> better = standings.stream().filter(s -> s.faster() > 0 && s.geometricMean() > 1).toList();
        if (better.isEmpty()) {
            if (standings.stream().allMatch(Standing::tiedEverywhere)) {
                return "Tied within noise: no lock is faster or slower than " + referenceName + " " + atAny
                        + "; keep " + referenceName + " or use any of them.";
            }
            List<String> tied = standings.stream().filter(Standing::tiedEverywhere).map(Standing::lock).toList();
            Standing best = standings.getFirst();
            if (standings.stream().noneMatch(s -> s.faster() > 0)) {
                return "Use " + referenceName + " (" + reference + "): no lock is faster " + atAny
                        + (tied.isEmpty() ? "" : "; " + String.join(", ", tied) + (tied.size() == 1 ? " ties" : " tie")
                        + " it within noise") + ".";
            }
            Standing fastest = standings.stream().filter(s -> s.faster() > 0).findFirst().orElse(best);
            return "Use " + referenceName + " (" + reference + "): no lock beats it on " + these + " (" + fastest.lock() + " "
                    + times(fastest.geometricMean()) + ", faster at " + fastest.faster() + " but slower at " + fastest.slower()
                    + ").";
        }
        Standing leader = better.getFirst();
        StringBuilder sb = new StringBuilder();
        Standing runner = better.size() > 1 ? better.get(1) : null;
        int ahead = 0;
        int behind = 0;
        if (runner != null) {
            for (At p : points) {
                PointResult a = byKey.get(io.numaloom.bench.Point.key(p.bench(), leader.lock(), p.threads()));
                PointResult b = byKey.get(io.numaloom.bench.Point.key(p.bench(), runner.lock(), p.threads()));
                if (a == null || b == null) {
                    continue;
                }
                Summary.Verdict v = Summary.cell(a, b).verdict();
                ahead += v == Summary.Verdict.FASTER ? 1 : 0;
                behind += v == Summary.Verdict.SLOWER ? 1 : 0;
            }
        }
        if (runner != null && ahead == 0 && behind == 0) {
            sb.append("Use ").append(leader.lock()).append(" or ").append(runner.lock())
                    .append(", tied within noise with each other at ").append(n == 1 ? "the 1 point" : "all " + n + " points")
                    .append(": ").append(times(leader.geometricMean())).append(" and ").append(times(runner.geometricMean()))
                    .append(' ').append(referenceName).append(" (faster at ").append(leader.faster()).append(" and ")
                    .append(runner.faster()).append(" of ").append(these).append(")");
        } else {
            sb.append("Use ").append(leader.lock()).append(": ").append(times(leader.geometricMean())).append(' ')
                    .append(referenceName).append(" on ").append(these).append(" (faster at ").append(leader.faster())
                    .append(", slower at ").append(leader.slower() == 0 ? "none" : leader.slower() + ": "
                            + String.join(", ", leader.slowerAt().subList(0, Math.min(2, leader.slowerAt().size())))
                            + (leader.slowerAt().size() > 2 ? ", ..." : ""))
                    .append(')');
            if (runner != null) {
                sb.append(behind == 0
                        ? "; ahead of " + runner.lock() + " (" + times(runner.geometricMean()) + ") at " + ahead
                        + (ahead == n ? "" : ", tied at the rest")
                        : "; " + runner.lock() + " (" + times(runner.geometricMean()) + ") is ahead of it at " + behind
                        + " and behind at " + ahead);
            }
        }
        return sb.append('.').toString();
    }

    /**
     * The locks left out for want of a common point, the twin where it was measured, and the benches compared with
     * another reference.
     */
    private static String othersNote(List<String> leftOut, boolean twin, List<Summary.BenchSummary> summaries,
                                     String reference) {
        List<String> parts = new ArrayList<>();
        if (!leftOut.isEmpty()) {
            parts.add(String.join(", ", leftOut) + " (no point in common with the locks above)");
        }
        if (twin) {
            parts.add(Summary.twinOf(reference) + " (" + reference + " measured twice: a noise gauge, not a choice)");
        }
        Map<String, Set<String>> otherLocks = new LinkedHashMap<>();
        for (Summary.BenchSummary s : summaries) {
            if (!s.baseline().equals(reference)) {
                s.locks().forEach(l -> otherLocks.computeIfAbsent(s.baseline(), k -> new LinkedHashSet<>()).add(l.lock()));
            }
        }
        otherLocks.forEach((baseline, locks) -> parts.add(String.join(", ", locks) + " (against " + Summary.nameOf(baseline) + ")"));
        return parts.isEmpty() ? null : "Not in this verdict, compared in each bench's table: " + String.join("; ", parts) + ".";
    }

    /** Where the run had several sessions: how many ratios spanned two, left out, and what each session was. */
    private static java.util.Optional<String> sessionsNote(List<Summary.BenchSummary> group, Map<String, Set<At>> across,
                                                           List<PointResult> rows, MachineInfo machine) {
        Set<Integer> numbers = new TreeSet<>();
        rows.forEach(r -> numbers.add(r.sessionOrFirst()));
        if (numbers.size() < 2) {
            return java.util.Optional.empty();
        }
        String sessions = numbers.stream().map(number -> {
            Session s = machine == null ? null : machine.session(number);
            return s == null ? "session " + number : s.brief();
        }).collect(Collectors.joining(", "));
        int ratios = across.values().stream().mapToInt(Set::size).sum();
        long at = across.values().stream().flatMap(Set::stream).distinct().count();
        return java.util.Optional.of(ratios == 0
                ? "Measured in " + numbers.size() + " sessions (" + sessions + "); every ratio here is of one session."
                : "⚠ Measured in " + numbers.size() + " sessions (" + sessions + "): " + count(ratios, "ratio") + " at "
                        + count((int) at, "point") + " would compare two sessions and " + (ratios == 1 ? "is" : "are")
                        + " left out (shown in brackets in the tables).");
    }

    /**
     * How far the verdict can be trusted, in one line beside it: the A/A control, the precision the ratios reached and
     * how their groups stopped, and the machine's stalls as its probe saw them (each session's, for a resumed run).
     */
    private static java.util.Optional<String> howSure(PairedRatio.AaControl aa, Summary.Precision precision, MachineInfo machine) {
        List<String> parts = new ArrayList<>();
        if (aa != null && aa.points() > 0) {
            parts.add(aa.describe());
        }
        if (!precision.halfWidths().isEmpty() || !precision.stops().isEmpty()) {
            String p = precision.text();
            parts.add(Character.toUpperCase(p.charAt(0)) + p.substring(1));
        }
        if (machine != null) {
            List<String> stalls = machine.sessionsOrFirst().stream().filter(s -> s.stalls() != null)
                    .map(s -> s.stalls().describe()).distinct().toList();
            if (!stalls.isEmpty()) {
                parts.add("Machine stalls: " + String.join("; ", stalls));
            }
        }
        return parts.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(String.join(". ", parts) + ".");
    }

    /** "short-cs-platform x1, 2, 8, 32; randbash x2", or the benches' names where there are many. */
    private static String describe(Set<At> points) {
        Map<String, List<String>> byBench = new LinkedHashMap<>();
        points.forEach(p -> byBench.computeIfAbsent(p.bench(), k -> new ArrayList<>()).add(Integer.toString(p.threads())));
        if (byBench.size() > 3) {
            return byBench.size() + " benches: " + String.join(", ", byBench.keySet());
        }
        return byBench.entrySet().stream().map(e -> e.getKey() + " x" + String.join(", ", e.getValue()))
                .collect(Collectors.joining("; "));
    }

    private static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private static String times(double ratio) {
        return String.format(Locale.ROOT, "%.2fx", ratio);
    }

    /** The first line: which points, which locks, against what. */
    public String header() {
        return header;
    }

    /** A line per lock, best first (indented). */
    public List<String> lockLines() {
        return lockLines;
    }

    /** What to use and by how much, or that the locks tie; null where there is no verdict. */
    public String use() {
        return use;
    }

    /** Locks and benches not in the verdict, and the sessions of a resumed run. */
    public List<String> notes() {
        return notes;
    }

    /** Every compared lock on the common points, best first. */
    public List<Standing> standings() {
        return standings;
    }

    /** How many points every lock was compared on. */
    public int points() {
        return points;
    }

    /** Every line, in order: at most {@link #MAX_LINES}. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        lines.add(header);
        lines.addAll(lockLines);
        if (use != null) {
            lines.add(use);
        }
        lines.addAll(notes);
        return List.copyOf(lines);
    }

    /** The lines, each ended by a line separator. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        lines().forEach(l -> sb.append(l).append(System.lineSeparator()));
        return sb.toString();
    }
}
