package io.numaloom.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaloom.bench.config.BenchConfig;
import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.config.ConfigException;
import io.numaloom.bench.config.ConfigReader;
import io.numaloom.bench.result.PointResult;
import io.numaloom.bench.result.ResultStore;
import io.numaloom.bench.result.ResultsDirectory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The report of a results directory: a plot per bench and, where the bench has its reference, a plot of the ratios
 * to it ({@link Charts}), {@code summary.csv} ({@link Summary},
 * {@link BestOther}, {@link SerialBound}) and {@code index.html} with the verdict ({@link Recommendation}, as the
 * console's last block), who won, the plots, a table per bench with VNA against the best other lock and each lock's
 * serial-bound ratios, the machine, the measured JVMs' flags and the configuration. Everything is
 * drawn from the files of the directory ({@code config.json}, {@code results.json}, {@code machine.json},
 * {@code run.json}), so {@code ./numaloom plot DIR} redraws it at any time, also for a run cut short.
 */
public final class Report {
    public static final String INDEX = "index.html";

    private Report() {}

    /** Draws every plot and {@code index.html} in {@code dir}. */
    public static void write(Path dir) throws IOException {
        Path configFile = dir.resolve(ResultsDirectory.CONFIG_FILE);
        if (!Files.exists(configFile)) {
            throw new IOException(dir + " is not a results directory: it has no " + ResultsDirectory.CONFIG_FILE);
        }
        String configText = Files.readString(configFile);
        List<PointResult> rows = ResultStore.load(dir);
        BenchConfig config;
        try {
            config = ConfigReader.parseSaved(configText, configFile.toString());
        } catch (ConfigException e) {
            throw new IOException(e.getMessage(), e);
        }
        MachineInfo machine = MachineInfo.readFrom(dir);
        JsonNode run = Files.exists(dir.resolve(ResultsDirectory.RUN_FILE))
                ? new ObjectMapper().readTree(dir.resolve(ResultsDirectory.RUN_FILE).toFile()) : null;

        List<String> lockOrder = lockOrder(config);
        List<Summary.BenchSummary> summary = Summary.of(config, rows);
        List<Section> sections = new ArrayList<>();
        for (BenchDefinition bench : config.activeBenches()) {
            List<PointResult> benchRows = rows.stream().filter(r -> r.bench().equals(bench.id()))
                    .sorted(Comparator.comparingInt(PointResult::threads)
                            .thenComparingInt(r -> bench.locks().indexOf(r.lock())))
                    .toList();
            boolean drawn = Charts.draw(bench, benchRows, lockOrder, dir);
            Summary.BenchSummary ratios = summary.stream().filter(s -> s.id().equals(bench.id())).findFirst().orElse(null);
            boolean ratioDrawn = ratios != null && Charts.drawRatio(bench, ratios, lockOrder, dir);
            sections.add(new Section(bench, benchRows, drawn, ratioDrawn));
        }
        Summary.writeCsv(dir, summary, BestOther.of(config, rows), SerialBound.of(config, rows));
        Recommendation recommendation = Recommendation.of(config, rows, machine);
        Files.writeString(dir.resolve(INDEX), Html.render(config, configText, sections, summary, recommendation, machine, run));
    }

    /**
     * A bench's part of the report.
     *
     * @param plotted      whether its plot was drawn ({@link Charts#draw})
     * @param ratioPlotted whether its ratio plot was drawn ({@link Charts#drawRatio})
     */
    record Section(BenchDefinition bench, List<PointResult> rows, boolean plotted, boolean ratioPlotted) {
        /** A section without a ratio plot. */
        Section(BenchDefinition bench, List<PointResult> rows, boolean plotted) {
            this(bench, rows, plotted, false);
        }
    }

    /**
     * Every lock of the configuration: registry order first, then any other, for stable colors (a lock's color is its
     * place modulo the palette). A lock of the configuration whose color an earlier lock of the configuration already
     * has moves to a later place with a color none of them has, while there is one (the JDK's queues, listed last in
     * the registry, would otherwise share the colors of the JDK's locks).
     */
    static List<String> lockOrder(BenchConfig config) {
        Set<String> order = new LinkedHashSet<>(ConfigReader.lockNames());
        Set<String> shown = new LinkedHashSet<>();
        config.benches().forEach(b -> shown.addAll(b.locks()));
        order.addAll(shown);
        List<String> places = new ArrayList<>(order);
        int colors = Charts.colors();
        Set<Integer> taken = new java.util.HashSet<>();
        for (String lock : List.copyOf(places)) {
            if (!shown.contains(lock)) {
                continue;
            }
            int place = places.indexOf(lock);
            if (taken.add(place % colors) || taken.size() >= colors) {
                continue;
            }
            int free = 0;
            while (taken.contains(free)) {
                free++;
            }
            places.set(place, "");
            while (places.size() % colors != free) {
                places.add("");
            }
            places.add(lock);
            taken.add(free);
        }
        return List.copyOf(places);
    }

    /** The text table of rows, every latency in µs (no timer floor known); see {@link #textTable(List, Long)}. */
    public static String textTable(List<PointResult> rows) {
        return textTable(rows, null);
    }

    /**
     * The text table of rows printed at the end of a run. Its latencies read as in the HTML report
     * ({@link #microsOrFloor}): one within twice {@code timerFloorNs} reads {@code ≤ X}, and a line under the table
     * says why.
     *
     * @param timerFloorNs the run's timer floor ({@link MachineInfo#timerFloorNs()}), or null if unknown
     */
    public static String textTable(List<PointResult> rows, Long timerFloorNs) {
        List<String[]> table = new ArrayList<>();
        boolean waits = rows.stream().anyMatch(r -> r.futileWakeupsPerOp() != null);
        table.add(waits
            ? new String[] {"bench", "lock", "threads", "ops/ms", "±95%", "time ms", "Jain", "min/max",
                "p50 µs", "p99 µs", "p99.9 µs", "max µs", "local", "futile/op", "sig→lock p50 µs", "p99 µs", "B/op", "status"}
            : new String[] {"bench", "lock", "threads", "ops/ms", "±95%", "time ms", "Jain", "min/max",
                "p50 µs", "p99 µs", "p99.9 µs", "max µs", "local", "B/op", "status"});
        for (PointResult r : rows) {
            List<String> row = new ArrayList<>(List.of(r.bench(), r.lock(), Integer.toString(r.threads()), num(r.opsPerMs()),
                r.opsPerMsCiHigh() == null || r.opsPerMs() == null ? "" : num(r.opsPerMsCiHigh() - r.opsPerMs()),
                num(r.timeMs()), fixed(r.jain(), 3), fixed(r.minMaxRatio(), 2), microsOrFloor(r.latencyP50Ns(), timerFloorNs),
                microsOrFloor(r.latencyP99Ns(), timerFloorNs), microsOrFloor(r.latencyP999Ns(), timerFloorNs),
                microsOrFloor(r.latencyMaxNs(), timerFloorNs), percent(r.localHandoffFraction())));
            if (waits) {
                row.addAll(List.of(fixed(r.futileWakeupsPerOp(), 3), microsOrFloor(r.signalToLockP50Ns(), timerFloorNs),
                        microsOrFloor(r.signalToLockP99Ns(), timerFloorNs)));
            }
            row.addAll(List.of(fixed(r.bytesPerOp(), 2), r.ok() ? "ok" : "FAILED: " + shorten(r.error(), 60)));
            table.add(row.toArray(String[]::new));
        }
        int[] widths = new int[table.getFirst().length];
        for (String[] row : table) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : table) {
            for (int i = 0; i < row.length; i++) {
                boolean left = i < 2 || i == row.length - 1;
                String cell = row[i];
                String pad = " ".repeat(widths[i] - cell.length());
                sb.append(left ? cell + pad : pad + cell).append(i == row.length - 1 ? "" : "  ");
            }
            sb.append(System.lineSeparator());
        }
        if (table.stream().skip(1).flatMap(java.util.Arrays::stream).anyMatch(cell -> cell.startsWith("≤"))) {
            sb.append(floorNote(timerFloorNs)).append(System.lineSeparator());
        }
        return sb.toString();
    }

    /** What {@code ≤} in a latency column means, for the text table. */
    static String floorNote(Long timerFloorNs) {
        return "≤ in a latency column: at the timer's floor (two System.nanoTime() readings are " + timerFloorNs
                + " ns apart here), so the wait was too short to measure.";
    }

    // Number formats shared with the HTML.

    /**
     * A throughput's 95% interval as "low – high", its lower bound clamped at 0 (a rate cannot be negative; with
     * few noisy rounds Student's t can put it there), marked "0*" when clamped so the table's note explains it.
     */
    static String throughputCi(Double low, Double high) {
        if (low == null || high == null) {
            return "";
        }
        String lo = low < 0 ? "0*" : num(low);
        return lo + " – " + num(high);
    }

    static String num(Double v) {
        if (v == null) {
            return "";
        }
        double a = Math.abs(v);
        return a >= 100 ? String.format(Locale.ROOT, "%.0f", v)
                : a >= 10 ? String.format(Locale.ROOT, "%.1f", v)
                : a >= 1 ? String.format(Locale.ROOT, "%.2f", v)
                : String.format(Locale.ROOT, "%.3g", v);
    }

    static String fixed(Double v, int digits) {
        return v == null ? "" : String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    /**
     * A latency in µs, or {@code "≤ X"} where it is within twice the timer's floor ({@link MachineInfo#timerFloorNs}),
     * X being that bound: such a value says the wait was too short to measure, not how long it was.
     */
    public static String microsOrFloor(Long ns, Long timerFloorNs) {
        if (ns != null && timerFloorNs != null && timerFloorNs > 0 && ns <= 2 * timerFloorNs) {
            return "≤ " + num(2 * timerFloorNs / 1000.0);
        }
        return micros(ns);
    }

    static String micros(Long ns) {
        return ns == null ? "" : num(ns / 1000.0);
    }

    /** A size in B, KiB, MiB or GiB, three significant digits; blank for null. */
    static String bytes(Long bytes) {
        if (bytes == null) {
            return "";
        }
        String[] units = {"B", "KiB", "MiB", "GiB"};
        double v = bytes;
        int unit = 0;
        while (v >= 1024 && unit < units.length - 1) {
            v /= 1024;
            unit++;
        }
        return unit == 0 ? bytes + " B" : num(v) + " " + units[unit];
    }

    static String percent(Double fraction) {
        return fraction == null ? "" : String.format(Locale.ROOT, "%.0f%%", fraction * 100);
    }

    static String shorten(String s, int max) {
        if (s == null) {
            return "";
        }
        String one = s.replaceAll("\\s+", " ");
        return one.length() <= max ? one : one.substring(0, max - 1) + "…";
    }
}
