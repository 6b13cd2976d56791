package io.numaloom.bench.run;

import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PairedRatio.Estimate;
import io.numaloom.bench.run.JmhJarRun.Key;
import io.numaloom.bench.run.JmhJarRun.Outcome;
import io.numaloom.bench.run.JmhJarRun.Score;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JMH route's rounds: the values of a user's {@code @Param} compared with the first (the reference) on the
 * verdict method (docs/verdict-method.md), as the built-in bench compares locks.
 *
 * <p><b>Rounds.</b> A round runs one JMH fork ({@link JmhJarRun}) of every value, in an order shuffled anew each
 * round from the run's seed ({@link RoundPlan#order}); a fork runs every selected benchmark. When verdicts are
 * stated (two rounds or more), the reference runs twice per round, the second time under the name
 * {@code <reference>_TWIN}: the A/A control, an identical alternative that the method should judge different at
 * about 5% of the comparisons ({@link PairedRatio#aaControl}).
 *
 * <p><b>Comparisons.</b> Each benchmark, in each mode and each combination of its other parameters, is one
 * comparison ({@link Key}), with a {@link RoundPlan} of its own over the same alternatives and seed: its 4 pilot
 * rounds plan its rounds to the precision asked for (Stein), and it stops on that plan, on the run's budget or on
 * the cap as a group of the built-in bench does. A comparison that has stopped records no more rounds, so its
 * Stein interval is over the rounds its pilot planned; the run goes on while any comparison wants another round.
 * Scores are on the "higher is faster" scale ({@link Score#faster()}), so every ratio above 1 means faster.
 *
 * <p><b>Failures.</b> A fork that fails (JMH's non-zero exit, no JSON) fails every comparison of its value, which
 * then runs no more; a benchmark missing from a fork's result that others have fails that comparison of that value
 * only. Either way the reason is one line naming the value and the log, and the run goes on; a comparison whose
 * reference failed, or all of whose other values did, ends.
 *
 * <p>Not thread-safe: one thread runs the rounds.
 */
public final class JmhRounds {
    /** The suffix of the reference's twin: {@code VNA_TWIN} is the reference {@code VNA} measured again. */
    public static final String TWIN_SUFFIX = "_TWIN";

    /** Runs one fork of one alternative (a value, or the twin with the reference's value). */
    @FunctionalInterface
    public interface Fork {
        /**
         * @param name     the alternative's name
         * @param value    the parameter's value to run
         * @param index    the alternative's number, from 1 (its files' stem)
         * @param round    the round, from 0
         */
        Outcome run(String name, String value, int index, int round)
                throws IOException, InterruptedException, ChildProcesses.StoppingException;
    }

    /** What the rounds report as they go. */
    public interface Listener {
        /** A round begins; {@code planned} is the largest plan so far (0 while unknown). */
        default void roundStarted(int round, int planned) {
        }

        /** A fork ended: {@code position} is its place in the round's order, from 1. */
        default void forkDone(int round, int position, String name, String value, Outcome outcome) {
        }
    }

    /**
     * One comparison's result: every other alternative's ratio to the reference (those that failed have a reason in
     * {@code failures} instead), the rounds it recorded and why it stopped ({@link RoundPlan.Stop#label()}, or
     * {@code failed}, or {@code stopped} for a run cut short).
     */
    public record Comparison(Key key, String unit, int rounds, String stop, Map<String, Estimate> estimates,
                             Map<String, String> failures) {}

    /**
     * The run's result.
     *
     * @param comparisons  one per benchmark, mode and combination of other parameters, sorted
     * @param forkFailures the alternatives whose fork failed, with the reason (they ran no more)
     * @param aaControl    the A/A control over the twin's comparisons, or null without a twin
     * @param rounds       the rounds run
     * @param stopped      whether the run was stopped (Ctrl-C) before it ended
     */
    public record Result(List<Comparison> comparisons, Map<String, String> forkFailures, PairedRatio.AaControl aaControl,
                         int rounds, boolean stopped) {}

    private final List<String> values;
    private final String reference;
    private final String twin;
    /** Every alternative's name, values first, the twin last; and the value each runs. */
    private final Map<String, String> alternatives = new LinkedHashMap<>();
    private final BenchRunner.Method method;

    /**
     * @param values the parameter's values, the reference first (at least two, all different)
     * @param twin   whether the reference's twin runs (the A/A control, for runs that state verdicts)
     * @param method the precision, pilot, cap, budget and seed of the rounds
     */
    public JmhRounds(List<String> values, boolean twin, BenchRunner.Method method) {
        if (values.size() < 2 || values.stream().distinct().count() != values.size()) {
            throw new IllegalArgumentException("need at least two different values, got " + values);
        }
        this.values = List.copyOf(values);
        this.reference = values.getFirst();
        this.method = method;
        values.forEach(v -> alternatives.put(v, v));
        String t = reference + TWIN_SUFFIX;
        while (alternatives.containsKey(t)) {
            t += TWIN_SUFFIX;
        }
        this.twin = twin ? t : null;
        if (twin) {
            alternatives.put(t, reference);
        }
    }

    /** The reference value. */
    public String reference() {
        return reference;
    }

    /** The twin's name, or null without one. */
    public String twin() {
        return twin;
    }

    /** Every alternative's name (the values, then the twin) and the value it runs. */
    public Map<String, String> alternatives() {
        return java.util.Collections.unmodifiableMap(alternatives);
    }

    private RoundPlan newPlan() {
        return new RoundPlan(List.copyOf(alternatives.keySet()), reference, method.seed(), method.pilot(),
                method.precision(), Math.max(1, method.maxRounds()),
                method.budget() == null ? Duration.ofDays(365) : method.budget());
    }

    /** One comparison as it runs. */
    private final class Group {
        final Key key;
        final RoundPlan plan = newPlan();
        final Map<String, String> failures = new LinkedHashMap<>();
        String unit = "";
        boolean ended;

        Group(Key key) {
            this.key = key;
        }

        boolean failed(String name) {
            return failures.containsKey(name) || forkFailures.containsKey(name);
        }

        /** Ended by failures: its reference failed, or every other alternative did. */
        boolean hopeless() {
            return failed(reference) || alternatives.keySet().stream().filter(a -> !a.equals(reference)).allMatch(this::failed);
        }
    }

    private final Map<Key, Group> groups = new TreeMap<>();
    private final Map<String, String> forkFailures = new LinkedHashMap<>();
    private final List<Duration> roundTimes = new ArrayList<>();

    /** Runs the rounds until every comparison has stopped (or the run is stopped); call once. */
    public Result run(Fork fork, Listener listener) throws IOException, InterruptedException {
        // The order of each round: every comparison's plan has the same alternatives and seed, so the same order.
        RoundPlan schedule = newPlan();
        List<String> names = List.copyOf(alternatives.keySet());
        long start = System.nanoTime();
        boolean stopped = false;
        int round = 0;
        for (; ; round++) {
            if (round > 0 && !anotherRound(Duration.ofNanos(System.nanoTime() - start))) {
                break;
            }
            if (forkFailures.containsKey(reference)) {
                break;
            }
            listener.roundStarted(round, groups.values().stream().mapToInt(g -> g.plan.plannedKnown()).max().orElse(0));
            long roundStart = System.nanoTime();
            Map<String, Map<Key, Score>> scores = new HashMap<>();
            Map<String, Outcome> outcomes = new HashMap<>();
            int position = 0;
            for (String name : schedule.order(round)) {
                if (forkFailures.containsKey(name)) {
                    continue;
                }
                Outcome o;
                try {
                    o = fork.run(name, alternatives.get(name), names.indexOf(name) + 1, round);
                } catch (ChildProcesses.StoppingException e) {
                    stopped = true;
                    break;
                }
                listener.forkDone(round, ++position, name, alternatives.get(name), o);
                outcomes.put(name, o);
                if (o.ok()) {
                    Map<Key, Score> byKey = new LinkedHashMap<>();
                    o.scores().forEach(s -> byKey.put(s.key(), s));
                    scores.put(name, byKey);
                } else {
                    forkFailures.put(name, o.failure());
                }
            }
            if (stopped) {
                break;
            }
            Duration took = Duration.ofNanos(System.nanoTime() - roundStart);
            for (Map<Key, Score> byKey : scores.values()) {
                for (Key key : byKey.keySet()) {
                    groups.computeIfAbsent(key, k -> {
                        Group g = new Group(k);
                        for (Duration earlier : roundTimes) {
                            g.plan.recordRound(Map.of(), earlier); // it had no result in the rounds before
                        }
                        return g;
                    });
                }
            }
            roundTimes.add(took);
            for (Group g : groups.values()) {
                if (g.ended) {
                    continue;
                }
                Map<String, Double> means = new HashMap<>();
                for (String name : names) {
                    Map<Key, Score> byKey = scores.get(name);
                    if (byKey == null || g.failed(name)) {
                        continue;
                    }
                    Score s = byKey.get(g.key);
                    if (s == null) {
                        g.failures.put(name, name + ": no score for " + g.key.label() + " in round " + (round + 1)
                                + " (its JMH fork of this benchmark failed; log: " + outcomes.get(name).log() + ")");
                    } else {
                        means.put(name, s.faster());
                        g.unit = s.unit();
                    }
                }
                g.plan.recordRound(means, took);
                if (g.hopeless()) {
                    g.ended = true;
                }
            }
        }
        List<Comparison> comparisons = new ArrayList<>();
        List<Estimate> twins = new ArrayList<>();
        for (Group g : groups.values()) {
            Map<String, Estimate> estimates = new LinkedHashMap<>();
            Map<String, String> failures = new LinkedHashMap<>();
            for (String name : names) {
                if (name.equals(reference)) {
                    continue;
                }
                String failure = g.failed(reference) ? reasonOf(g, reference) : g.failed(name) ? reasonOf(g, name) : null;
                if (failure != null) {
                    failures.put(name, failure);
                } else {
                    Estimate e = g.plan.estimate(name);
                    estimates.put(name, e);
                    if (name.equals(twin)) {
                        twins.add(e);
                    }
                }
            }
            String stop = g.plan.stop() != null ? g.plan.stop().label() : g.hopeless() ? "failed" : "stopped";
            comparisons.add(new Comparison(g.key, g.unit, g.plan.rounds(), stop, estimates, failures));
        }
        return new Result(comparisons, Map.copyOf(forkFailures), twin == null ? null : PairedRatio.aaControl(twins),
                roundTimes.size(), stopped);
    }

    private String reasonOf(Group g, String name) {
        return g.failures.containsKey(name) ? g.failures.get(name) : forkFailures.get(name);
    }

    /** Asks every comparison still going whether it wants another round; whether any does. */
    private boolean anotherRound(Duration spent) {
        boolean any = false;
        for (Group g : groups.values()) {
            if (!g.ended) {
                if (g.plan.wantsAnotherRound(spent)) {
                    any = true;
                } else {
                    g.ended = true;
                }
            }
        }
        return any;
    }

    /** The values compared, the reference first. */
    public List<String> values() {
        return values;
    }
}
