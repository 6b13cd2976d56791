package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;

import java.util.List;

/**
 * RandBash, from Dice's Relaxed-Lock paper (JVM '01, §4): many threads call {@code nextInt} on one shared
 * random generator whose step is guarded by a lock (in the paper, {@code java.util.Random} with a
 * synchronized worker routine, 24 threads x 1,000,000 calls). The critical section is a handful of
 * instructions, so the score is almost pure lock handover cost, and it is where futile wake-ups hurt most.
 *
 * <p>The generator is {@code java.util.Random}'s 48-bit linear congruential step, kept in a plain field.
 * Because every step is the same affine map, the final state after N calls does not depend on the order of
 * the callers: {@link Round#verify()} compares it with the initial state advanced N steps by jump-ahead,
 * which catches any lost update (a broken lock).
 */
public final class RandBash implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 1_000_000L, "nextInt calls in total, split evenly over the threads"));

    static final long MULTIPLIER = 0x5DEECE66DL;
    static final long ADDEND = 0xBL;
    static final long MASK = (1L << 48) - 1;
    static final long INITIAL_SEED = 0x1234_5678_9ABCL;

    private final long actions;

    public RandBash(Settings settings) {
        this.actions = settings.getLong("actionsCount");
    }

    /** The generator state after {@code steps} steps from {@code seed}, in O(log steps). */
    static long advance(long seed, long steps) {
        long mul = 1;
        long add = 0;
        long stepMul = MULTIPLIER;
        long stepAdd = ADDEND;
        for (long n = steps; n > 0; n >>>= 1) {
            if ((n & 1) != 0) {
                mul = (mul * stepMul) & MASK;
                add = (add * stepMul + stepAdd) & MASK;
            }
            stepAdd = (stepAdd * (stepMul + 1)) & MASK;
            stepMul = (stepMul * stepMul) & MASK;
        }
        return (mul * seed + add) & MASK;
    }

    /** The shared generator; {@link #seed} is guarded by the region's mutex. */
    static final class Generator {
        long seed = INITIAL_SEED;

        int next() {
            seed = (seed * MULTIPLIER + ADDEND) & MASK;
            return (int) (seed >>> 16);
        }
    }

    /** One thread's call: draws inside the critical section and folds the value into a private sum. */
    private static final class NextInt implements Runnable {
        private final Generator generator;
        int sum;

        NextInt(Generator generator) {
            this.generator = generator;
        }

        @Override
        public void run() {
            sum += generator.next();
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        GuardedRegion region = context.newRegion();
        Generator generator = new Generator();
        int[] sums = new int[context.threads()];
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                NextInt call = new NextInt(generator);
                for (long i = worker.share(actions); i > 0; i--) {
                    worker.locked(region, call);
                    worker.completed();
                }
                sums[worker.index()] = call.sum;
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public List<GuardedRegion> regions() {
                return List.of(region);
            }

            @Override
            public void verify() {
                long expected = advance(INITIAL_SEED, actions);
                if (generator.seed != expected) {
                    throw new IllegalStateException("randBash: generator state after " + actions
                            + " calls is " + Long.toHexString(generator.seed) + ", expected "
                            + Long.toHexString(expected) + ": an update was lost, the lock let two threads in");
                }
            }
        };
    }
}
