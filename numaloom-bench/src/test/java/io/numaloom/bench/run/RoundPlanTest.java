package io.numaloom.bench.run;

import io.numaloom.bench.result.PairedRatio;
import io.numaloom.bench.result.PairedRatio.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rounds of a group: shuffled orders from the seed, the pilot's plan, the budget and the cap. */
class RoundPlanTest {
    private static final List<String> LOCKS = List.of("VNA", "UNFAIR_REENTRANT", "UNFAIR_REENTRANT_TWIN", "SYNCHRONIZED");
    private static final Duration SECOND = Duration.ofSeconds(1);

    private static RoundPlan plan(long seed, int maxRounds, Duration budget) {
        return new RoundPlan(LOCKS, "UNFAIR_REENTRANT", seed, 4, 0.05, maxRounds, budget);
    }

    @Test
    void everyRoundIsAPermutationShuffledFromTheSeed() {
        RoundPlan a = plan(42, 20, Duration.ofHours(1));
        RoundPlan b = plan(42, 20, Duration.ofHours(1));
        Map<String, Integer> first = new HashMap<>();
        Set<List<String>> orders = new HashSet<>();
        for (int r = 0; r < 40; r++) {
            List<String> order = a.order(r);
            assertEquals(order, b.order(r), "the same seed gives the same orders");
            assertEquals(Set.copyOf(LOCKS), Set.copyOf(order));
            assertEquals(LOCKS.size(), order.size());
            first.merge(order.getFirst(), 1, Integer::sum);
            orders.add(order);
        }
        assertTrue(orders.size() > 10, "the order changes from round to round: " + orders.size() + " distinct");
        assertEquals(Set.copyOf(LOCKS), first.keySet(), "every lock runs first in some round: " + first);
        assertNotEquals(plan(43, 20, Duration.ofHours(1)).order(0).toString() + plan(43, 20, Duration.ofHours(1)).order(1),
                a.order(0).toString() + a.order(1), "another seed, other orders");
    }

    /** Fork means of one round: each lock's true throughput times the round's weather and its own noise. */
    private static Map<String, Double> round(Random random, double noise) {
        double weather = Math.exp(0.3 * random.nextGaussian());
        Map<String, Double> means = new HashMap<>();
        Map<String, Double> truth = Map.of("VNA", 1.2, "UNFAIR_REENTRANT", 1.0, "UNFAIR_REENTRANT_TWIN", 1.0,
                "SYNCHRONIZED", 0.8);
        truth.forEach((lock, t) -> means.put(lock, 1000 * t * weather * Math.exp(noise * random.nextGaussian())));
        return means;
    }

    /** Records rounds of 1 s each, of fork noise {@code noise}, until the plan stops. */
    private static void runToItsStop(RoundPlan plan, Random random, double noise) {
        Duration spent = Duration.ZERO;
        while (plan.wantsAnotherRound(spent)) {
            plan.recordRound(round(random, noise), SECOND);
            spent = spent.plus(SECOND);
        }
    }

    @Test
    void aQuietGroupStopsAfterItsPilotWithEveryRatioWithinThePrecision() {
        Random random = new Random(1);
        RoundPlan plan = plan(7, 40, Duration.ofHours(1));
        runToItsStop(plan, random, 0.005);
        assertEquals(RoundPlan.Stop.PRECISION, plan.stop());
        assertEquals(4, plan.rounds());
        assertEquals(Verdict.FASTER, plan.estimate("VNA").verdict(), plan.estimate("VNA").format());
        assertEquals(Verdict.SLOWER, plan.estimate("SYNCHRONIZED").verdict());
        assertTrue(plan.estimate("VNA").within(0.05));
        assertEquals(1.0, plan.estimate("UNFAIR_REENTRANT").ratio(), 1e-12);
        assertThrows(IllegalStateException.class, () -> plan.recordRound(round(random, 0.005), SECOND));
    }

    @Test
    void aNoisierGroupRunsTheRoundsItsPilotPlanned() {
        Random random = new Random(2);
        RoundPlan plan = plan(7, 200, Duration.ofHours(1));
        runToItsStop(plan, random, 0.04);
        assertEquals(RoundPlan.Stop.PRECISION, plan.stop());
        assertTrue(plan.planned() > 4, "planned " + plan.planned());
        assertEquals(plan.planned(), plan.rounds());
        for (String lock : LOCKS) {
            assertTrue(plan.estimate(lock).within(0.05), lock + " " + plan.estimate(lock).format());
        }
    }

    @Test
    void theBudgetEndsAGroupBeforeARoundThatWouldNotFit() {
        Random random = new Random(3);
        RoundPlan plan = plan(7, 200, Duration.ofMillis(3_500));
        runToItsStop(plan, random, 0.2);
        assertEquals(RoundPlan.Stop.BUDGET, plan.stop());
        assertEquals(3, plan.rounds(), "3 rounds of 1 s fit in 3.5 s, a fourth would not");
        assertEquals(PairedRatio.of(plan.series("VNA"), plan.series("UNFAIR_REENTRANT")), plan.estimate("VNA"),
                "a group stopped by its budget reports the plain interval");
    }

    @Test
    void aGroupRunsTwoRoundsEvenIfOneOverrunsItsShareButNotIfOneSpentItAll() {
        Random random = new Random(4);
        RoundPlan two = plan(7, 200, Duration.ofMillis(1_500));
        two.recordRound(round(random, 0.1), SECOND);
        assertTrue(two.wantsAnotherRound(SECOND), "one round gives no interval: a second runs within the budget");
        two.recordRound(round(random, 0.1), SECOND);
        assertFalse(two.wantsAnotherRound(Duration.ofSeconds(2)));
        RoundPlan one = plan(7, 200, Duration.ofMillis(900));
        one.recordRound(round(random, 0.1), SECOND);
        assertFalse(one.wantsAnotherRound(SECOND), "the first round spent the whole budget");
        assertEquals(RoundPlan.Stop.BUDGET, one.stop());
        assertEquals(Verdict.UNKNOWN, one.estimate("VNA").verdict());
    }

    @Test
    void theCapEndsAGroupThatCannotPlan() {
        Random random = new Random(5);
        RoundPlan plan = plan(7, 6, Duration.ofHours(1));
        Duration spent = Duration.ZERO;
        while (plan.wantsAnotherRound(spent)) {
            Map<String, Double> means = round(random, 0.01);
            if (plan.rounds() == 0) {
                means.remove("VNA"); // its first fork failed: the pilot has too few pairs to plan from
            }
            plan.recordRound(means, SECOND);
            spent = spent.plus(SECOND);
        }
        assertEquals(RoundPlan.Stop.MAX_ROUNDS, plan.stop());
        assertEquals(6, plan.rounds());
        assertEquals(5, plan.estimate("VNA").rounds(), "the failed fork pairs with nothing");
        assertTrue(Double.isNaN(plan.series("VNA")[0]));
    }

    @Test
    void withoutAPrecisionAGroupRunsItsCap() {
        Random random = new Random(6);
        RoundPlan plan = new RoundPlan(LOCKS, "UNFAIR_REENTRANT", 7, 4, Double.NaN, 3, Duration.ofHours(1));
        runToItsStop(plan, random, 0.3);
        assertEquals(RoundPlan.Stop.FIXED, plan.stop());
        assertEquals("fixed", plan.stop().label());
        assertEquals(3, plan.rounds());
        assertEquals(0, plan.planned());
    }

    @Test
    void badArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RoundPlan(LOCKS, "MCS", 1, 4, 0.05, 10, SECOND));
        assertThrows(IllegalArgumentException.class, () -> new RoundPlan(LOCKS, "VNA", 1, 1, 0.05, 10, SECOND));
        assertThrows(IllegalArgumentException.class, () -> new RoundPlan(LOCKS, "VNA", 1, 4, 0.05, 0, SECOND));
        assertThrows(IllegalArgumentException.class, () -> new RoundPlan(LOCKS, "VNA", 1, 4, 0, 10, SECOND));
        assertThrows(IllegalArgumentException.class, () -> plan(1, 10, SECOND).series("MCS"));
        assertNull(plan(1, 10, SECOND).stop());
    }
}
