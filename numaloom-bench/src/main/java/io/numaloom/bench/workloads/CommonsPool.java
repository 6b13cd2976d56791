package io.numaloom.bench.workloads;

import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * The {@code pool} workload: an application nobody here wrote. Every thread borrows an object from one
 * commons-pool2 {@link GenericObjectPool}, uses it and returns it, as a service uses a pool of connections. The
 * pool's idle objects live in its own {@code LinkedBlockingDeque}, whose lock is an {@code InterruptibleReentrantLock}
 * (a class that extends {@code ReentrantLock}, its fairness the pool's, unfair by default) with two conditions: a
 * borrow and a return each take it, and a borrower that finds the pool empty waits on its {@code notEmpty}
 * condition. commons-pool2 runs unchanged: the lock under test is the pool's own, or, with numaloom's agent in the
 * lock entry's {@code jvmArgs}, the same class made to extend {@code VnaReentrantLock}; the bench's lock name only
 * labels the run.
 *
 * <p>Measured: borrow-use-return cycles per millisecond.
 *
 * <p>Parameters: {@code actionsCount}, cycles per round split over the threads; {@code poolSize}, the pool's
 * {@code maxTotal} (fewer objects than threads: borrowers wait); {@code useCpuTokens}, {@code Blackhole.consumeCPU}
 * work while an object is borrowed; {@code beforeCpuTokens}, work before each borrow.
 *
 * <p>Check: every object's uses (counted without a lock by its borrower, so an object lent to two threads at once
 * loses counts) add up to the cycles; the pool counts as many borrows and returns as cycles, made no more objects
 * than {@code poolSize}, destroyed none and has none out; its deque's lock is numaloom's exactly when the agent is on
 * ({@link AgentSwap}).
 */
public final class CommonsPool implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 100_000L, "borrow-use-return cycles in total, split evenly over the threads"),
            Field.intField("poolSize", 1, 4, "objects the pool may make (maxTotal); fewer than threads makes borrowers wait"),
            Field.longField("useCpuTokens", 0, 100L, "Blackhole.consumeCPU tokens while an object is borrowed"),
            Field.longField("beforeCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens before each borrow"));

    private final long actions;
    private final int poolSize;
    private final long useTokens;
    private final long beforeTokens;

    public CommonsPool(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.poolSize = settings.getInt("poolSize");
        this.useTokens = settings.getLong("useCpuTokens");
        this.beforeTokens = settings.getLong("beforeCpuTokens");
    }

    /** A pooled object, as a connection: its uses are counted by whoever holds it. */
    static final class Pooled {
        long uses;
    }

    /** What the pool and its objects counted in a round. */
    record Counts(long uses, long borrowed, long returned, long created, long destroyed, int active, int made) {}

    /**
     * The round's check: {@code actions} uses, borrows and returns, no more objects than {@code poolSize} and all made
     * through the factory, none destroyed, none out.
     *
     * @throws IllegalStateException with the counts
     */
    static void check(Counts c, long actions, int poolSize) {
        if (c.uses() != actions || c.borrowed() != actions || c.returned() != actions || c.created() > poolSize
                || c.created() != c.made() || c.destroyed() != 0 || c.active() != 0) {
            throw new IllegalStateException("pool: " + c + " after " + actions + " cycles with at most " + poolSize
                    + " objects: the pool lent an object twice, lost one or kept one out");
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        GenericObjectPoolConfig<Pooled> config = new GenericObjectPoolConfig<>();
        config.setMaxTotal(poolSize);
        config.setMaxIdle(poolSize);
        config.setMinIdle(0);
        config.setBlockWhenExhausted(true);
        config.setJmxEnabled(false);
        List<Pooled> made = new java.util.concurrent.CopyOnWriteArrayList<>();
        GenericObjectPool<Pooled> pool = new GenericObjectPool<>(new BasePooledObjectFactory<>() {
            @Override
            public Pooled create() {
                Pooled p = new Pooled();
                made.add(p);
                return p;
            }

            @Override
            public PooledObject<Pooled> wrap(Pooled p) {
                return new DefaultPooledObject<>(p);
            }
        }, config);
        Object idle = AgentSwap.field(pool, GenericObjectPool.class, "idleObjects");
        Lock dequeLock = (Lock) AgentSwap.field(idle, idle.getClass(), "lock");
        return new Round() {
            @Override
            public void runThread(Worker worker) throws Exception {
                for (long i = worker.share(actions); i > 0; i--) {
                    if (beforeTokens > 0) {
                        Blackhole.consumeCPU(beforeTokens);
                    }
                    Pooled p = pool.borrowObject();
                    p.uses++;
                    if (useTokens > 0) {
                        Blackhole.consumeCPU(useTokens);
                    }
                    pool.returnObject(p);
                    worker.completed();
                }
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public void verify() {
                AgentSwap.require(dequeLock, "commons-pool2's LinkedBlockingDeque.lock");
                long uses = 0;
                for (Pooled p : made) {
                    uses += p.uses;
                }
                check(new Counts(uses, pool.getBorrowedCount(), pool.getReturnedCount(), pool.getCreatedCount(),
                        pool.getDestroyedCount(), pool.getNumActive(), made.size()), actions, poolSize);
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
