package io.numaloom.bench.report;

import io.numaloom.bench.config.BenchDefinition;
import io.numaloom.bench.result.PointResult;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The plots of a bench, drawn with XChart.
 *
 * <p>{@code <bench id>.png} and {@code <bench id>.svg}: throughput (or, for {@code textStats}, time to finish) against
 * the thread count, one line per lock, with its 95% confidence interval as a translucent band. Thread counts that grow
 * geometrically are spaced on a log2 axis. A bench measured at a single thread count becomes a bar chart of the locks
 * with error bars. Failed points are left out (the report's table lists them).
 *
 * <p>{@code <bench id>-ratio.png} and {@code -ratio.svg}, for a bench with its reference ({@link Summary}): each other
 * lock's throughput as a ratio to the reference's against the thread count, with the ratio's 95% interval as an error
 * bar and a dashed line at 1, the reference; at a single thread count, a bar per lock. A ratio without an interval (one
 * round), or whose two points two sessions measured, is drawn without a bar.
 *
 * <p>Needs no display: the bench sets {@code java.awt.headless=true}.
 */
public final class Charts {
    static final int WIDTH = 960;
    static final int HEIGHT = 560;

    /** Stable colors for lock lines: a lock keeps its color in every plot of a report. */
    private static final Color[] PALETTE = {
        new Color(0xd62728), new Color(0x1f77b4), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf),
    };

    private Charts() {}

    /** The files a bench's plot is drawn into. */
    public static Path png(Path dir, BenchDefinition bench) {
        return dir.resolve(bench.id() + ".png");
    }

    public static Path svg(Path dir, BenchDefinition bench) {
        return dir.resolve(bench.id() + ".svg");
    }

    /** What a bench's ratio plot adds to its id: {@code <bench id>-ratio.png}. */
    public static final String RATIO_SUFFIX = "-ratio";

    /** The files a bench's ratio plot is drawn into. */
    public static Path ratioPng(Path dir, BenchDefinition bench) {
        return dir.resolve(bench.id() + RATIO_SUFFIX + ".png");
    }

    public static Path ratioSvg(Path dir, BenchDefinition bench) {
        return dir.resolve(bench.id() + RATIO_SUFFIX + ".svg");
    }

    /**
     * Draws a bench's ratio plot from its summary; draws nothing (and returns false) when no lock has a ratio (the
     * reference, or every other lock, measured no point).
     *
     * @param lockOrder every lock name of the report, for the same colors as the throughput plot
     */
    public static boolean drawRatio(BenchDefinition bench, Summary.BenchSummary summary, List<String> lockOrder, Path dir)
            throws IOException {
        List<Summary.LockLine> lines = summary.locks().stream().filter(l -> !l.cells().isEmpty()).toList();
        if (lines.isEmpty()) {
            return false;
        }
        boolean bars = bench.threads().size() == 1;
        boolean log2 = !bars && isGeometric(bench.threads());
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(bench.title())
                .xAxisTitle(bars ? "lock (" + bench.threads().getFirst() + " thread"
                        + (bench.threads().getFirst() == 1 ? "" : "s") + ", " + threadsLabel(bench) + ")"
                        : "threads (" + threadsLabel(bench) + ")" + (log2 ? ", log2 scale" : ""))
                .yAxisTitle("throughput / " + summary.baselineName() + ", 95% interval").build();
        style(chart.getStyler());
        chart.getStyler().setChartTitleFont(titleFont(bench.title()));
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisDecimalPattern("0.00");
        double from;
        double to;
        if (bars) {
            from = 0.4;
            to = lines.size() + 0.6;
            chart.getStyler().setXAxisTicksVisible(false);
            chart.getStyler().setYAxisMin(0.0);
            for (int i = 0; i < lines.size(); i++) {
                Summary.LockLine line = lines.get(i);
                Summary.Cell c = line.cells().getFirst();
                int x = i + 1;
                XYSeries bar = chart.addSeries(line.lock(), new double[] {x - 0.3, x - 0.3, x + 0.3, x + 0.3},
                        new double[] {0, c.ratio(), c.ratio(), 0});
                bar.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.PolygonArea);
                bar.setFillColor(colorOf(line.lock(), lockOrder));
                bar.setLineColor(colorOf(line.lock(), lockOrder));
                bar.setMarker(SeriesMarkers.NONE);
                errorBar(chart, line.lock(), c, x, 0.1, Color.DARK_GRAY);
            }
        } else {
            chart.getStyler().setXAxisDecimalPattern("0.##");
            if (log2) {
                chart.getStyler().setxAxisTickLabelsFormattingFunction(Charts::log2Label);
            }
            // Every point and bar sits on its thread count: the log2 axis's ticks are the x values of the series.
            from = log2 ? log2(bench.threads().getFirst()) : bench.threads().getFirst();
            to = log2 ? log2(bench.threads().getLast()) : bench.threads().getLast();
            for (Summary.LockLine line : lines) {
                Color color = colorOf(line.lock(), lockOrder);
                List<Summary.Cell> cells = line.cells().stream()
                        .sorted(Comparator.comparingInt(Summary.Cell::threads)).toList();
                double[] x = cells.stream().mapToDouble(c -> log2 ? log2(c.threads()) : c.threads()).toArray();
                double[] y = cells.stream().mapToDouble(Summary.Cell::ratio).toArray();
                XYSeries series = chart.addSeries(line.lock(), x, y);
                series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
                series.setLineColor(color);
                series.setMarkerColor(color);
                series.setMarker(SeriesMarkers.CIRCLE);
                series.setLineStyle(new BasicStroke(2.0f));
                for (int k = 0; k < cells.size(); k++) {
                    errorBar(chart, line.lock(), cells.get(k), x[k], 0, color);
                }
            }
        }
        XYSeries one = chart.addSeries("1 = " + summary.baseline(), new double[] {from, to}, new double[] {1, 1});
        one.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        one.setLineColor(Color.GRAY);
        one.setMarker(SeriesMarkers.NONE);
        one.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        if (bars) {
            chart.getStyler().setXAxisMin(from);
            chart.getStyler().setXAxisMax(to);
        }
        save(chart, ratioPng(dir, bench), ratioSvg(dir, bench));
        return true;
    }

    /**
     * A cell's 95% interval at {@code x}: a vertical bar, with caps {@code cap} wide either side where {@code cap} is
     * above 0; nothing for a cell without an interval or whose two points two sessions measured.
     */
    private static void errorBar(XYChart chart, String lock, Summary.Cell c, double x, double cap, Color color) {
        if (!c.hasInterval() || c.spansSessions()) {
            return;
        }
        String name = lock + " 95% x" + c.threads();
        XYSeries bar = cap > 0
                ? chart.addSeries(name, new double[] {x - cap, x + cap, x, x, x - cap, x + cap},
                        new double[] {c.low(), c.low(), c.low(), c.high(), c.high(), c.high()})
                : chart.addSeries(name, new double[] {x, x}, new double[] {c.low(), c.high()});
        bar.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        bar.setLineColor(color);
        bar.setMarker(SeriesMarkers.NONE);
        bar.setLineStyle(new BasicStroke(cap > 0 ? 1.6f : 3f));
        bar.setShowInLegend(false);
    }

    /** A log2 axis's tick label: the thread count at whole powers of 2, else nothing. */
    private static String log2Label(double x) {
        double t = Math.pow(2, x);
        return Math.abs(t - Math.rint(t)) < 1e-6 && Math.abs(x - Math.rint(x)) < 1e-6 ? Long.toString(Math.round(t)) : "";
    }

    /**
     * Draws a bench's plot from its rows; draws nothing (and returns false) when no point succeeded.
     *
     * @param lockOrder every lock name of the report, for stable colors
     */
    public static boolean draw(BenchDefinition bench, List<PointResult> rows, List<String> lockOrder, Path dir)
            throws IOException {
        List<PointResult> ok = rows.stream().filter(r -> r.ok() && value(bench, r) != null).toList();
        if (ok.isEmpty()) {
            return false;
        }
        Chart<?, ?> chart = bench.threads().size() == 1 ? bars(bench, ok, lockOrder) : lines(bench, ok, lockOrder);
        save(chart, png(dir, bench), svg(dir, bench));
        return true;
    }

    /** Writes {@code chart} as a PNG and an SVG. */
    static void save(Chart<?, ?> chart, Path png, Path svg) throws IOException {
        BitmapEncoder.saveBitmapWithDPI(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG, 110);
        VectorGraphicsEncoder.saveVectorGraphic(chart, svg.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    }

    private static XYChart lines(BenchDefinition bench, List<PointResult> rows, List<String> lockOrder) {
        boolean log2 = isGeometric(bench.threads());
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(bench.title())
                .xAxisTitle("threads (" + threadsLabel(bench) + ")" + (log2 ? ", log2 scale" : ""))
                .yAxisTitle(yTitle(bench)).build();
        style(chart.getStyler());
        chart.getStyler().setChartTitleFont(titleFont(bench.title()));
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setXAxisDecimalPattern("0.##");
        if (log2) {
            chart.getStyler().setxAxisTickLabelsFormattingFunction(Charts::log2Label);
        }
        java.util.Set<String> banded = bandedLocks(bench, rows);
        for (String lock : bench.locks()) {
            List<PointResult> series = rows.stream().filter(r -> r.lock().equals(lock))
                    .sorted(Comparator.comparingInt(PointResult::threads)).toList();
            if (series.isEmpty()) {
                continue;
            }
            Color color = colorOf(lock, lockOrder);
            double[] x = series.stream().mapToDouble(r -> log2 ? log2(r.threads()) : r.threads()).toArray();
            double[] y = series.stream().mapToDouble(r -> value(bench, r)).toArray();
            if (banded.contains(lock)) {
                addBand(chart, bench, lock, series, x, color);
            }
            XYSeries line = chart.addSeries(lock, x, y);
            line.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            line.setLineColor(color);
            line.setMarkerColor(color);
            line.setMarker(SeriesMarkers.CIRCLE);
            line.setLineStyle(new BasicStroke(2.2f));
        }
        return chart;
    }

    /**
     * The locks whose line gets its 95% band: every lock when there are at most {@value #MAX_BANDS}; else only the
     * bench's reference ({@link Summary#baselineOf}) and the leading lock (the highest geometric mean of the plotted
     * value over its points), because more overlapping translucent bands blend into one grey area that shows no
     * lock's interval.
     */
    static java.util.Set<String> bandedLocks(BenchDefinition bench, List<PointResult> rows) {
        List<String> plotted = bench.locks().stream().filter(l -> rows.stream().anyMatch(r -> r.lock().equals(l))).toList();
        if (plotted.size() <= MAX_BANDS) {
            return java.util.Set.copyOf(plotted);
        }
        java.util.Set<String> banded = new java.util.LinkedHashSet<>();
        String reference = Summary.baselineOf(bench);
        if (plotted.contains(reference)) {
            banded.add(reference);
        }
        plotted.stream().max(Comparator.comparingDouble(l -> rows.stream().filter(r -> r.lock().equals(l))
                        .mapToDouble(r -> Math.log(Math.max(value(bench, r), 1e-12))).average().orElse(0)))
                .ifPresent(banded::add);
        return banded;
    }

    static final int MAX_BANDS = 3;

    /** The 95% confidence band of a lock's line: a closed polygon, upper bounds forward, lower back. */
    private static void addBand(XYChart chart, BenchDefinition bench, String lock, List<PointResult> series,
                                double[] x, Color color) {
        List<Double> bx = new ArrayList<>();
        List<Double> by = new ArrayList<>();
        for (int i = 0; i < series.size(); i++) {
            Double hi = high(bench, series.get(i));
            if (hi == null) {
                return;
            }
            bx.add(x[i]);
            by.add(hi);
        }
        for (int i = series.size() - 1; i >= 0; i--) {
            Double lo = low(bench, series.get(i));
            if (lo == null) {
                return;
            }
            bx.add(x[i]);
            by.add(Math.max(0, lo));
        }
        XYSeries band = chart.addSeries(lock + " 95% CI", bx, by);
        band.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.PolygonArea);
        band.setFillColor(new Color(color.getRed(), color.getGreen(), color.getBlue(), 48));
        band.setLineColor(new Color(color.getRed(), color.getGreen(), color.getBlue(), 0));
        band.setMarker(SeriesMarkers.NONE);
        band.setShowInLegend(false);
    }

    private static CategoryChart bars(BenchDefinition bench, List<PointResult> rows, List<String> lockOrder) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(bench.title())
                .xAxisTitle("lock (" + rows.getFirst().threads() + " thread" + (rows.getFirst().threads() == 1 ? "" : "s")
                        + ", " + threadsLabel(bench) + ")")
                .yAxisTitle(yTitle(bench)).build();
        style(chart.getStyler());
        chart.getStyler().setChartTitleFont(titleFont(bench.title()));
        chart.getStyler().setLegendVisible(false);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setOverlapped(true);
        chart.getStyler().setErrorBarsColor(Color.DARK_GRAY);
        for (String lock : bench.locks()) {
            PointResult r = rows.stream().filter(p -> p.lock().equals(lock)).findFirst().orElse(null);
            if (r == null) {
                continue;
            }
            // One series per lock, each with a value only at its own category, so each bar has its color.
            List<String> categories = bench.locks().stream().filter(l -> rows.stream().anyMatch(p -> p.lock().equals(l))).toList();
            List<Double> values = new ArrayList<>();
            List<Double> errors = new ArrayList<>();
            for (String c : categories) {
                values.add(c.equals(lock) ? value(bench, r) : 0.0);
                Double hi = high(bench, r);
                errors.add(c.equals(lock) && hi != null ? hi - value(bench, r) : 0.0);
            }
            CategorySeries s = chart.addSeries(lock, categories, values, errors);
            s.setFillColor(colorOf(lock, lockOrder));
        }
        return chart;
    }

    /**
     * The widest a title may be: XChart centres it over the plot area, which the legend (outside, to the right)
     * and the y axis narrow to about two thirds of the image, and a wider title is cut at both ends.
     */
    static final int TITLE_BUDGET = WIDTH * 3 / 5;

    /** The title's font: bold 16 pt, smaller (down to 10 pt) until the title fits {@link #TITLE_BUDGET}. */
    static Font titleFont(String title) {
        java.awt.image.BufferedImage img = new java.awt.image.BufferedImage(1, 1, java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(java.awt.RenderingHints.KEY_TEXT_ANTIALIASING, java.awt.RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            Font f = new Font(Font.SANS_SERIF, Font.BOLD, 16);
            while (f.getSize() > 10 && titleWidth(g, f, title) > TITLE_BUDGET) {
                f = f.deriveFont((float) (f.getSize() - 1));
            }
            return f;
        } finally {
            g.dispose();
        }
    }

    static double titleWidth(java.awt.Graphics2D g, Font f, String title) {
        return f.getStringBounds(title == null ? "" : title, g.getFontRenderContext()).getWidth();
    }

    static void style(Styler styler) {
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotBorderColor(new Color(0xcccccc));
        styler.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        styler.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        styler.setLegendBorderColor(new Color(0xdddddd));
        styler.setAntiAlias(true);
        if (styler instanceof org.knowm.xchart.style.AxesChartStyler axes) {
            axes.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            axes.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            axes.setPlotGridLinesColor(new Color(0xe6e6e6));
        }
    }

    private static String yTitle(BenchDefinition bench) {
        return bench.kind().plotsTimeToFinish() ? "time to finish, ms (lower is better)" : "throughput, ops/ms (higher is better)";
    }

    private static String threadsLabel(BenchDefinition bench) {
        return "virtual".equals(bench.threadType())
                ? "virtual, " + bench.carriers() + " carrier" + (bench.carriers() == 1 ? "" : "s")
                        + (bench.scheduler().startsWith("numa") ? ("numa-park".equals(bench.scheduler()) ? ", NumaScheduler, no idle spin" : ", NumaScheduler") : bench.pinCarriers() ? ", pinned" : "")
                : "platform" + (bench.pinCarriers() ? ", pinned" : "");
    }

    /** The plotted value of a row: throughput, or time for time-to-finish workloads. */
    static Double value(BenchDefinition bench, PointResult r) {
        return bench.kind().plotsTimeToFinish() ? r.timeMs() : r.opsPerMs();
    }

    private static Double low(BenchDefinition bench, PointResult r) {
        return bench.kind().plotsTimeToFinish() ? r.timeMsCiLow() : r.opsPerMsCiLow();
    }

    private static Double high(BenchDefinition bench, PointResult r) {
        return bench.kind().plotsTimeToFinish() ? r.timeMsCiHigh() : r.opsPerMsCiHigh();
    }

    /** How many colors the lines and bars take, by a lock's place in the report's lock order modulo this. */
    static int colors() {
        return PALETTE.length;
    }

    static Color colorOf(String lock, List<String> lockOrder) {
        int i = lockOrder.indexOf(lock);
        return PALETTE[Math.floorMod(i < 0 ? lock.hashCode() : i, PALETTE.length)];
    }

    /** Whether the thread counts grow geometrically enough for a log2 axis: three or more, spanning 4x. */
    static boolean isGeometric(List<Integer> threads) {
        return threads.size() >= 3 && threads.getLast() >= 4 * threads.getFirst();
    }

    private static double log2(int v) {
        return Math.log(v) / Math.log(2);
    }
}
