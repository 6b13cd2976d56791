package io.numaloom.bench.workloads;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * The locking rate of one shared lock, after the talk on NUMA and cache-line contention (its "ticket vs
 * queued spinlocks" charts): every thread takes and releases the lock in a loop, with nothing else to
 * do, so the score is how many handovers per second the lock sustains as threads are added. With
 * {@code load} 0 the critical section is empty ("no load"); with {@code load} 1 it makes one atomic add
 * on a shared counter that sits on a cache line of its own ("1 load": one more line that moves with the
 * lock). In the talk the counter shares the lock's own cache line; a Java lock's layout is its own, so
 * here it is the next line the holder touches. A ticket lock's waiters all spin on the lock's line, so
 * each release invalidates every waiter and the rate falls as threads are added; a queued lock's waiters
 * spin on their own lines and the rate stays flat.
 *
 * <p>As in {@link Sync}, the section goes straight to {@link Mutex#runExclusively(Runnable)}, without
 * the harness's acquire-latency and NUMA bookkeeping, which would be most of what is measured. The talk
 * pins threads one per CPU: use {@code "threadType": "platform", "pinCarriers": true}.
 */
public final class LockRate implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 1_000_000L, "lock/unlock operations in total, split evenly over the threads"),
            Field.intField("load", 0, 0, "0: an empty critical section; 1: one atomic add on a shared cache line inside"));

    private final long actions;
    private final boolean load;

    public LockRate(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.load = settings.getInt("load") == 1; // 0 or 1: the configuration checks it
    }

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** The shared counter of {@code load} 1 is this element of a {@code long[]} with 128 bytes on either side. */
    private static final int SLOT = 128 / Long.BYTES;

    @Override
    public Round newRound(RoundContext context) {
        Mutex mutex = context.newMutex();
        long[] counter = new long[2 * SLOT + 1];
        Runnable section = load ? () -> LONGS.getAndAdd(counter, SLOT, 1L) : () -> {};
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                for (long i = worker.share(actions); i > 0; i--) {
                    mutex.runExclusively(section);
                    worker.completed();
                }
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public void verify() {
                long added = (long) LONGS.getVolatile(counter, SLOT);
                if (load && added != actions) {
                    throw new IllegalStateException("lockRate: the shared counter is " + added + " after "
                            + actions + " critical sections");
                }
            }
        };
    }
}
