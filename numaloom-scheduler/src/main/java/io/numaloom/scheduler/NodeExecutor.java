package io.numaloom.scheduler;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;

/**
 * The scheduler of one NUMA node: a FIFO queue of mount tasks and the carriers that run them. Every virtual thread
 * homed on the node is built with this executor, so each of its mounts (its start, and its resumption after any
 * park, sleep, yield, monitor wait or blocked monitor enter) is a call of {@link #execute}, whoever makes it: the
 * thread itself on yield, another virtual thread on any node, a timer thread, the JDK's unblocker.
 *
 * <p>{@link #execute} never blocks (the JDK calls it with the caller pinned to its carrier): it appends to a
 * lock-free queue and, if a carrier of the node is idle, claims and unparks one.
 *
 * <p>Shutdown ({@link #terminate}) is a handshake without locks. {@code execute} appends, then reads
 * {@code terminated}; a carrier that finds its queue empty reads {@code terminated} and polls once more before it
 * exits. All of these are volatile accesses or CASes, so one of the two sees the other: either a carrier polls the
 * task after it was appended and runs it, or {@code execute} sees {@code terminated} and takes its task back (if no
 * carrier took it meanwhile) to hand it to {@link NumaScheduler#runAfterTermination}. No task is lost and none runs
 * twice.
 */
final class NodeExecutor implements Executor {
    private static final java.lang.invoke.VarHandle SPARE;

    static {
        try {
            SPARE = java.lang.invoke.MethodHandles.lookup().findVarHandle(NodeExecutor.class, "spare", Carrier.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final NumaScheduler scheduler;
    final int node;
    final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    final Carrier[] carriers;
    /** The node's spare carrier while one runs (at most one at a time), else null. */
    volatile Carrier spare;
    volatile boolean terminated;

    /** Creates the node's {@code carrierCount} carriers, pinned to {@code cpus}, unstarted. */
    NodeExecutor(NumaScheduler scheduler, int node, int carrierCount, int[] cpus, long stealNanos, boolean watched,
                 CountDownLatch started) {
        this.scheduler = scheduler;
        this.node = node;
        Carrier[] carriers = new Carrier[carrierCount];
        for (int i = 0; i < carrierCount; i++) {
            carriers[i] = new Carrier(this, scheduler.name() + "-node" + node + "-carrier" + i, cpus, stealNanos, watched, -1,
                    started);
        }
        this.carriers = carriers;
    }

    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (!terminated) {
            queue.offer(task);
            if (!terminated || !queue.remove(task)) {
                wakeOne();
                return;
            }
        }
        scheduler.runAfterTermination(task);
    }

    /** Unparks one idle carrier of this node, if any; with none idle, a busy one will poll the task. */
    private void wakeOne() {
        for (Carrier c : carriers) {
            if (c.claimIfIdle()) {
                c.wake();
                return;
            }
        }
        Carrier s = spare;
        if (s != null && s.claimIfIdle()) {
            s.wake();
        }
    }

    /** Registers {@code s} as the node's spare, if it has none. */
    boolean addSpare(Carrier s) {
        return SPARE.compareAndSet(this, null, s);
    }

    /** Unregisters the spare {@code s}. */
    void retireSpare(Carrier s) {
        SPARE.compareAndSet(this, s, null);
    }

    /** Stops the node: its carriers drain the queue and exit. */
    void terminate() {
        terminated = true;
        for (Carrier c : carriers) {
            c.wake();
        }
        Carrier s = spare;
        if (s != null) {
            s.wake();
        }
    }

    @Override
    public String toString() {
        return scheduler.name() + " node " + node;
    }
}
