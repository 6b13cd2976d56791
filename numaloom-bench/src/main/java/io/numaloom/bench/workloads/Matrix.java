package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The VNA paper's workload ("NUMA-aware lock for Java Lightweight Threads", §3, Listing 3): each iteration multiplies two square
 * {@code outerSize} matrices outside the lock, yields, takes the lock, multiplies two square
 * {@code innerSize} matrices inside, yields, and releases. The paper's settings are 100 / 15 (low
 * contention) and no outer work / 50 (high contention), 10,000 iterations.
 *
 * <p>The products are real state, not thrown away: the outer one is per thread, {@code A <- A x B}, the
 * inner one is the shared data the lock protects, {@code C <- C x D} (so the protected data really moves
 * between the holders' caches). {@code B} and {@code D} are column-stochastic (non-negative, every column
 * sums to 1), so each new entry is a convex combination of a row of the old matrix: the values stay within
 * their initial range, finite however long the run. {@link Round#verify()} checks that they are.
 * Inputs are generated from a fixed seed, so every run multiplies the same numbers.
 */
public final class Matrix implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 10_000L, "iterations in total, split evenly over the threads"),
            Field.intField("outerSize", 0, 100, "side of the matrices multiplied outside the lock; 0 for none"),
            Field.intField("innerSize", 0, 15, "side of the matrices multiplied inside the lock; 0 for none"),
            Field.intField("yieldsBefore", 0, 1, "Thread.yield() calls before each acquisition"),
            Field.boolField("yieldInCrit", true, "whether to Thread.yield() once inside the critical section"));

    private final long actions;
    private final int outerSize;
    private final int innerSize;
    private final int yieldsBefore;
    private final boolean yieldInCrit;

    public Matrix(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.outerSize = settings.getInt("outerSize");
        this.innerSize = settings.getInt("innerSize");
        this.yieldsBefore = settings.getInt("yieldsBefore");
        this.yieldInCrit = settings.getBoolean("yieldInCrit");
    }

    /**
     * A square matrix in row-major order that is multiplied in place by a fixed column-stochastic one:
     * {@code values <- values x factor}.
     */
    static final class Product {
        final int n;
        final double[] values;
        final double[] factor;
        private final double[] scratch;

        Product(int n, long seed) {
            this.n = n;
            SplittableRandom random = new SplittableRandom(seed);
            this.values = new double[n * n];
            for (int i = 0; i < values.length; i++) {
                values[i] = random.nextDouble(-1.0, 1.0);
            }
            this.factor = columnStochastic(n, random);
            this.scratch = new double[n * n];
        }

        /** One multiplication, {@code values <- values x factor} (i-k-j order, streaming rows). */
        void step() {
            Arrays.fill(scratch, 0.0);
            for (int i = 0; i < n; i++) {
                int row = i * n;
                for (int k = 0; k < n; k++) {
                    double a = values[row + k];
                    int frow = k * n;
                    for (int j = 0; j < n; j++) {
                        scratch[row + j] += a * factor[frow + j];
                    }
                }
            }
            System.arraycopy(scratch, 0, values, 0, values.length);
        }

        /** Whether every value is finite, and the first one that is not. */
        String firstNonFinite() {
            for (int i = 0; i < values.length; i++) {
                if (!Double.isFinite(values[i])) {
                    return "[" + (i / n) + "][" + (i % n) + "] = " + values[i];
                }
            }
            return null;
        }

        private static double[] columnStochastic(int n, SplittableRandom random) {
            double[] m = new double[n * n];
            for (int j = 0; j < n; j++) {
                double sum = 0;
                for (int i = 0; i < n; i++) {
                    double v = random.nextDouble(0.01, 1.0);
                    m[i * n + j] = v;
                    sum += v;
                }
                for (int i = 0; i < n; i++) {
                    m[i * n + j] /= sum;
                }
            }
            return m;
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        GuardedRegion region = context.newRegion();
        Product inner = new Product(innerSize, 0xC0FFEE);
        Runnable inside = () -> {
            inner.step();
            if (yieldInCrit) {
                Thread.yield();
            }
        };
        Product[] outers = new Product[context.threads()];
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                // Allocated by its own thread: first-touch places it on that thread's node.
                Product outer = new Product(outerSize, 0xA11CE + worker.index());
                outers[worker.index()] = outer;
                for (long i = worker.share(actions); i > 0; i--) {
                    outer.step();
                    for (int y = 0; y < yieldsBefore; y++) {
                        Thread.yield();
                    }
                    worker.locked(region, inside);
                    worker.completed();
                }
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
                String bad = inner.firstNonFinite();
                if (bad != null) {
                    throw new IllegalStateException("matrix: inner matrix is not finite at " + bad);
                }
                for (int t = 0; t < outers.length; t++) {
                    Product outer = outers[t];
                    if (outer == null) {
                        throw new IllegalStateException("matrix: thread " + t + " never ran");
                    }
                    bad = outer.firstNonFinite();
                    if (bad != null) {
                        throw new IllegalStateException("matrix: outer matrix of thread " + t + " is not finite at " + bad);
                    }
                }
            }

        };
    }
}
