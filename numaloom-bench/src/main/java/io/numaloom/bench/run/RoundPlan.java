package io.numaloom.bench.run;

import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PairedRatio.Estimate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The rounds of one group of points (one bench at one thread count, every lock of it): which lock's fork runs
 * when, and when the group has enough rounds.
 *
 * <p><b>Idea.</b> A round is one fork of every lock, in an order shuffled anew each round from a seed that the
 * run records, so that any drift of the machine (another tenant, a kernel worker, a compiler thread) falls on
 * every lock alike and no lock always runs second (Abedi and Brecht, ICPE 2017: randomized multiple interleaved
 * trials). Every lock's ratio to the reference is then estimated from the rounds paired ({@link PairedRatio}).
 *
 * <p><b>When to stop.</b> After {@code pilot} rounds, each compared lock's ratio plans the rounds its interval needs
 * to be within the precision asked for (Stein's first stage, {@link PairedRatio#plannedRounds}); the group runs the
 * largest of those plans, capped at {@code maxRounds}, and stops earlier only when the next round would not fit in
 * its time budget (each round's duration is estimated by the mean of those before). The plan depends on the pilot
 * alone, so a group that runs its plan reports Stein's interval, whose coverage is exact; a group that stops on its
 * budget or the cap stopped independently of its data and reports the plain interval of its rounds. Either way the
 * group always runs at least two rounds, the fewest that give an interval, unless a single round already spends
 * its whole budget.
 *
 * <p>Not thread-safe: one runner thread drives a plan.
 */
public final class RoundPlan {

    /** Why a group stopped adding rounds. */
    public enum Stop {
        /** It ran the rounds its pilot planned: every compared ratio is within the precision. */
        PRECISION,
        /** The next round would not have fitted in the group's time budget. */
        BUDGET,
        /** It reached the largest number of rounds allowed. */
        MAX_ROUNDS,
        /** It ran the fixed number of rounds asked for: no precision, so no plan. */
        FIXED;

        /**
         * The name in {@code results.csv}'s {@code roundsStop}: {@code precision}, {@code budget}, {@code max-rounds},
         * {@code fixed}.
         */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    private final List<String> locks;
    private final String reference;
    private final long seed;
    private final int pilot;
    private final double precision;
    private final int maxRounds;
    private final Duration budget;
    /** Per lock, its fork means by round (NaN where its fork failed or has not run). */
    private final Map<String, List<Double>> means = new LinkedHashMap<>();
    private final List<Duration> roundTimes = new ArrayList<>();
    private int planned;
    private Stop stop;

    /**
     * @param locks     the group's locks, the reference among them; every other lock is compared with it
     * @param reference the lock the others are compared with
     * @param seed      the run's seed: with the group's key it fixes every round's order
     * @param pilot     the rounds that plan the rest (at least 2)
     * @param precision the half-width each compared ratio's interval should reach (0.05 for ±5%), or NaN to plan
     *                  nothing and run {@code maxRounds} rounds (a fixed number of forks per lock, as a configuration
     *                  with {@code forks} and no precision asks)
     * @param maxRounds the most rounds (at least 1)
     * @param budget    the time by which the group's rounds must end, on the clock of {@link #wantsAnotherRound}'s
     *                  {@code spent} (the run's, when groups share one budget pass by pass)
     */
    public RoundPlan(List<String> locks, String reference, long seed, int pilot, double precision, int maxRounds,
                     Duration budget) {
        if (!locks.contains(reference)) {
            throw new IllegalArgumentException("the reference " + reference + " is not among the locks " + locks);
        }
        if (pilot < 2 || maxRounds < 1) {
            throw new IllegalArgumentException("need pilot >= 2 and maxRounds >= 1, got pilot " + pilot + ", maxRounds " + maxRounds);
        }
        if (!(precision > 0) && !Double.isNaN(precision)) {
            throw new IllegalArgumentException("precision must be > 0 (or NaN for none), got " + precision);
        }
        this.locks = List.copyOf(locks);
        this.reference = reference;
        this.seed = seed;
        this.pilot = pilot;
        this.precision = precision;
        this.maxRounds = maxRounds;
        this.budget = Objects.requireNonNull(budget, "budget");
        for (String lock : this.locks) {
            means.put(lock, new ArrayList<>());
        }
    }

    /** The rounds recorded so far. */
    public int rounds() {
        return roundTimes.size();
    }

    /**
     * The order in which round {@code round}'s forks run: the locks shuffled by a generator seeded with the run's
     * seed and the round, so the same seed gives the same orders.
     */
    public List<String> order(int round) {
        List<String> order = new ArrayList<>(locks);
        // Adjacent seeds give java.util.Random correlated first draws: mix the round into the seed first.
        Collections.shuffle(order, new Random(new SplittableRandom(seed + round * 0x9E3779B97F4A7C15L).nextLong()));
        return order;
    }

    /**
     * Records a finished round: each lock's fork mean (a lock missing from {@code forkMeans}, or NaN, is a fork
     * that failed) and how long the round took.
     */
    public void recordRound(Map<String, Double> forkMeans, Duration took) {
        if (stop != null) {
            throw new IllegalStateException("the plan stopped after " + rounds() + " rounds (" + stop + ")");
        }
        for (String lock : locks) {
            Double m = forkMeans.get(lock);
            means.get(lock).add(m == null ? Double.NaN : m);
        }
        roundTimes.add(took);
        if (rounds() == pilot && !Double.isNaN(precision)) {
            planned = pilot;
            for (String lock : locks) {
                if (!lock.equals(reference)) {
                    int p = PairedRatio.plannedRounds(series(lock), series(reference), pilot, precision);
                    // A failed fork in the pilot leaves too few pairs to plan from: run until the budget or the cap.
                    planned = p == 0 ? Integer.MAX_VALUE : Math.max(planned, p);
                }
            }
        }
    }

    /**
     * Whether another round should run, given the time spent so far (the group's, or the run's when the budget is the
     * run's); once it answers false, the
     * plan has stopped ({@link #stop()}) and records no more rounds.
     */
    public boolean wantsAnotherRound(Duration spent) {
        if (stop != null) {
            return false;
        }
        int done = rounds();
        if (planned > 0 && done >= planned) {
            stop = Stop.PRECISION;
        } else if (done >= maxRounds) {
            stop = Double.isNaN(precision) ? Stop.FIXED : Stop.MAX_ROUNDS;
        } else if (done > 0 && spent.plus(meanRound()).compareTo(budget) > 0 && (done >= 2 || spent.compareTo(budget) >= 0)) {
            stop = Stop.BUDGET;
        }
        return stop == null;
    }

    private Duration meanRound() {
        return roundTimes.stream().reduce(Duration.ZERO, Duration::plus).dividedBy(Math.max(1, roundTimes.size()));
    }

    /** Why the plan stopped, or null while it runs. */
    public Stop stop() {
        return stop;
    }

    /** The rounds the pilot planned (0 before the pilot has run; {@code Integer.MAX_VALUE} if it could not plan). */
    public int planned() {
        return planned;
    }

    /** The rounds the pilot planned, capped at {@code maxRounds}, or 0 while unknown (before the pilot, or unplanned). */
    public int plannedKnown() {
        return planned == 0 || planned == Integer.MAX_VALUE ? 0 : Math.min(planned, maxRounds);
    }

    /** Each round's fork mean of {@code lock}, NaN where its fork failed. */
    public double[] series(String lock) {
        List<Double> s = means.get(lock);
        if (s == null) {
            throw new IllegalArgumentException("not a lock of this group: " + lock);
        }
        return s.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * The ratio of {@code lock} to the reference: Stein's interval if the group ran its plan, the plain one
     * otherwise (see the class comment).
     */
    public Estimate estimate(String lock) {
        return stop == Stop.PRECISION
                ? PairedRatio.stein(series(lock), series(reference), pilot)
                : PairedRatio.of(series(lock), series(reference));
    }
}
