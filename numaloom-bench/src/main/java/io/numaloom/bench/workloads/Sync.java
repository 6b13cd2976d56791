package io.numaloom.bench.workloads;

import io.numaloom.bench.Mutex;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;

import java.util.List;

/**
 * Sync, from Dice's Relaxed-Lock paper (JVM '01, §4): uncontended lock/unlock of an empty critical
 * section, plain ({@code depth} 1) or nested ({@code depth} 2 and more: the same lock taken again while
 * held, like a synchronized method calling another one on the same object). Each thread has a lock of its
 * own, so the default single thread measures the latency of the fast path and more threads measure how
 * the fast path scales when nothing is shared.
 *
 * <p>The section goes straight to {@link Mutex#runExclusively(Runnable)}, without the acquire-latency and
 * NUMA bookkeeping of {@link Worker#locked}: at a few nanoseconds per operation that bookkeeping would be
 * most of what is measured. Nesting needs a reentrant lock; the round refuses a non-reentrant one up front.
 * For the bare cost per lock+unlock pair use the JMH microbenchmark {@code UncontendedLockUnlock}.
 */
public final class Sync implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 1_000_000L, "lock/unlock operations in total, split evenly over the threads"),
            Field.intField("depth", 1, 1, "nesting depth: 1 is plain, 2 takes the held lock once more, and so on"));

    private static final Runnable EMPTY = () -> {};

    private final long actions;
    private final int depth;

    public Sync(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.depth = settings.getInt("depth");
    }

    /** A section that takes {@code mutex} once more and runs {@code inner} inside. */
    private record Nested(Mutex mutex, Runnable inner) implements Runnable {
        @Override
        public void run() {
            mutex.runExclusively(inner);
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        Mutex[] mutexes = new Mutex[context.threads()];
        Runnable[] sections = new Runnable[context.threads()];
        for (int t = 0; t < mutexes.length; t++) {
            mutexes[t] = context.newMutex();
            Runnable section = EMPTY;
            for (int level = 1; level < depth; level++) {
                section = new Nested(mutexes[t], section);
            }
            sections[t] = section;
        }
        if (depth > 1 && !mutexes[0].isReentrant()) {
            throw new IllegalArgumentException("sync with depth " + depth + " needs a reentrant lock; "
                    + context.lockName() + " is not reentrant");
        }
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                Mutex mutex = mutexes[worker.index()];
                Runnable section = sections[worker.index()];
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
                // Nothing is shared between the threads; there is no result to check.
            }
        };
    }
}
