package io.numaloom.topology;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The home NUMA node of a thread, where a scheduler that keeps threads on their nodes says so: the hook through
 * which such a scheduler (numaloom-scheduler's {@code NumaScheduler}) tells numaloom's locks where a waiting
 * thread will run after its park, without numaloom-core depending on it.
 *
 * <p>Why: a NUMA-aware lock queues a waiter on the queue of the node it runs on, so that a release hands the lock
 * to a waiter of the releaser's node (Kovalev, Koval et al., "NUMA-aware lock for Java Lightweight Threads").
 * {@link CurrentCpu#node()} tells where the thread runs <em>now</em>; with the JDK's scheduler that is all there is,
 * and the thread may resume on another node after its park. A scheduler that resumes every thread on its home
 * node knows better, and more cheaply: with a {@link Resolver} installed, {@link io.numaloom.VnaLock}'s and
 * {@link io.numaloom.KeyedLock}'s contended path queues such a thread on its home node's queue without asking the
 * kernel ({@code sched_getcpu}), and a handoff within a node then stays within it.
 *
 * <h2>Contract</h2>
 * <ul>
 * <li>At most one resolver is installed at a time ({@link #install}); none by default, and then nothing changes.
 * <li>{@link #of(Thread)} asks it; an answer outside {@code [0, Topology.current().nodeCount())}, a negative one
 *     (unknown), or an exception counts as "no home node", and the caller falls back to the current CPU. So a
 *     wrong resolver costs locality, never correctness.
 * <li>Node indices are those of {@link Topology#current()} (the virtual topology of
 *     {@code -Dnumaloom.topology} included). A scheduler built for another topology must answer -1.
 * </ul>
 *
 * <h2>Cost</h2>
 * Only the contended path of a lock on a topology with more than one node asks: the uncontended path and a
 * one-node topology never do. Without a resolver, {@link #node()} costs one volatile load and a null check more
 * than {@link CurrentCpu#node()}. With one, a call of it (the scheduler's answer reads a field of the thread: no
 * allocation, no thread-local, so it works alike for platform and virtual threads, and a virtual thread created
 * inside a scheduler's thread, which inherits its scheduler, gets its home node too).
 *
 * <p>Thread-safety: every method may be called from any thread.
 */
public final class HomeNode {

    /** Tells the home node of a thread, for {@link HomeNode#install}. */
    @FunctionalInterface
    public interface Resolver {

        /**
         * {@return the home node of {@code thread} as a dense index of {@link Topology#current()}, or -1 if it
         * has none or this resolver does not know it} Called on a lock's contended path, by {@code thread}
         * itself: it must be cheap, must not block and should not allocate.
         *
         * @param thread the thread, never null
         */
        int homeNode(Thread thread);
    }

    private static final AtomicReference<Resolver> RESOLVER = new AtomicReference<>();

    private HomeNode() {}

    /**
     * Installs {@code resolver} if none is installed.
     *
     * @param resolver the resolver
     * @return true if {@code resolver} is now installed (by this call or an earlier one), false if another one is
     */
    public static boolean install(Resolver resolver) {
        Objects.requireNonNull(resolver, "resolver");
        return RESOLVER.compareAndSet(null, resolver) || RESOLVER.get() == resolver;
    }

    /**
     * Uninstalls {@code resolver} if it is the installed one.
     *
     * @param resolver the resolver to remove
     * @return true if it was installed and is not any more
     */
    public static boolean uninstall(Resolver resolver) {
        return RESOLVER.compareAndSet(Objects.requireNonNull(resolver, "resolver"), null);
    }

    /** {@return the installed resolver, or null} */
    public static Resolver installed() {
        return RESOLVER.get();
    }

    /**
     * {@return the home node of {@code thread} according to the installed resolver, in
     * {@code [0, Topology.current().nodeCount())}, or -1 if no resolver is installed, it does not know the thread,
     * answers out of range or throws}
     *
     * @param thread the thread
     */
    public static int of(Thread thread) {
        Resolver r = RESOLVER.get();
        return r == null ? -1 : ask(r, thread);
    }

    private static int ask(Resolver r, Thread thread) {
        int node;
        try {
            node = r.homeNode(thread);
        } catch (RuntimeException e) {
            return -1;
        }
        return node >= 0 && node < Topology.current().nodeCount() ? node : -1;
    }

    /**
     * {@return the node whose queue the calling thread should join: its home node if the installed resolver knows
     * one ({@link #of(Thread)}), else {@link CurrentCpu#node()}}
     */
    public static int node() {
        int home = of(Thread.currentThread());
        return home >= 0 ? home : CurrentCpu.node();
    }
}
