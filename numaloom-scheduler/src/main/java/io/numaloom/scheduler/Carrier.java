package io.numaloom.scheduler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * A carrier: a daemon platform thread that pins itself to its node's CPUs and then runs the node's mount tasks, one
 * at a time, in FIFO order, until the node is terminated and its queue is empty.
 *
 * <p>Idle protocol: a carrier that finds nothing to run first polls the queue for the scheduler's idle spin
 * ({@link NumaScheduler.Builder#idleSpin(java.time.Duration)}, 50 µs by default), not idle meanwhile, so that a
 * mount submitted soon after costs no park and no unpark; then it sets {@code idle}, re-checks the queue and parks;
 * {@link NodeExecutor#execute} appends a task and then claims an idle carrier by a CAS of {@code idle} from true to
 * false before unparking it. Both sides write before they read (volatile and CAS), so a task appended while the
 * carrier goes idle is seen by the carrier's re-check or its claim is seen by the submitter: no lost wake-up. A
 * spurious wake-up only costs one more poll.
 *
 * <p>A spare carrier (started by the stall watcher for a node whose carriers are all stalled, see
 * {@link NumaScheduler.Builder#spareCarriers(boolean)}) runs the same loop, is woken the same way, and retires when it
 * has found the queue empty for {@code spareIdleNanos}: it unregisters, then drains the queue once more and exits.
 * A mount appended after its drain is not lost: a regular carrier or the next spare, which the watcher starts while
 * the stall lasts, runs it.
 *
 * <p>Cross-node stealing, when enabled: a carrier that has found its own queue empty for {@code stealNanos} polls
 * the other nodes' queues (and, while idle, wakes every {@code stealNanos} to do so). A stolen mount runs here once;
 * the thread's next mount goes to its home node again.
 */
final class Carrier extends Thread {
    private static final VarHandle IDLE;

    static {
        try {
            IDLE = MethodHandles.lookup().findVarHandle(Carrier.class, "idle", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final NodeExecutor home;
    private final int[] cpus;
    private final long stealNanos;
    private final CountDownLatch started;
    /** Null once pinned; otherwise why this carrier runs unpinned. Written before {@code started} counts down. */
    private volatile String pinFailure;
    @SuppressWarnings("unused") // through IDLE
    private volatile boolean idle;
    /** For the stall watcher (only when it runs): mounts begun, and when the one in progress began, 0 when none. */
    private final boolean watched;
    private volatile long mounts;
    private volatile long mountStart;
    /** The mount last reported as a stall; watcher only. */
    long reportedMount = -1;
    /** How long a spare stays idle before it retires; -1 for a regular carrier. */
    private final long spareIdleNanos;

    /**
     * @param spareIdleNanos -1 for a regular carrier; for a spare, how long it may find nothing to do before it retires
     * @param started        counted down once pinned; null for a spare
     */
    Carrier(NodeExecutor home, String name, int[] cpus, long stealNanos, boolean watched, long spareIdleNanos,
            CountDownLatch started) {
        super(null, null, name, 0, false);
        this.home = home;
        this.cpus = cpus;
        this.stealNanos = stealNanos;
        this.started = started;
        this.watched = watched;
        this.spareIdleNanos = spareIdleNanos;
        setDaemon(true);
    }

    boolean spare() {
        return spareIdleNanos >= 0;
    }

    /** Null if this carrier is pinned to its node's CPUs, else why not. Valid once the scheduler is created. */
    String pinFailure() {
        return pinFailure;
    }

    int[] cpus() {
        return cpus.clone();
    }

    boolean claimIfIdle() {
        return (boolean) IDLE.getVolatile(this) && IDLE.compareAndSet(this, true, false);
    }

    void wake() {
        LockSupport.unpark(this);
    }

    @Override
    public void run() {
        try {
            CpuAffinity.pinCurrentThread(cpus);
            pinFailure = null;
        } catch (IllegalArgumentException | IllegalStateException e) {
            pinFailure = e.getMessage(); // pinning steers locality, never correctness: the carrier runs unpinned
        }
        if (started != null) {
            started.countDown();
        }
        try {
            serve();
        } finally {
            if (spare()) {
                home.scheduler.spareExited(this);
            }
        }
    }

    private void serve() {
        long idleSince = 0;
        for (;;) {
            Runnable task = home.queue.poll();
            if (task == null && stealNanos >= 0) {
                long now = System.nanoTime();
                if (idleSince == 0) {
                    idleSince = now | 1;
                } else if (now - idleSince >= stealNanos) {
                    task = home.scheduler.steal(home);
                }
            }
            if (task != null) {
                idleSince = 0;
                runTask(task);
                continue;
            }
            if (!home.terminated && (task = spinPoll()) != null) {
                idleSince = 0;
                runTask(task);
                continue;
            }
            if (home.terminated) {
                task = home.queue.poll();
                if (task == null) {
                    return;
                }
                runTask(task);
                continue;
            }
            IDLE.setVolatile(this, true);
            if (!home.queue.isEmpty() || home.terminated) {
                IDLE.setVolatile(this, false);
                continue;
            }
            if (spare()) {
                long idleFrom = System.nanoTime();
                LockSupport.parkNanos(this, spareIdleNanos);
                IDLE.setVolatile(this, false);
                if (home.queue.isEmpty() && System.nanoTime() - idleFrom >= spareIdleNanos) {
                    home.retireSpare(this);
                    for (Runnable left; (left = home.queue.poll()) != null; ) {
                        runTask(left);
                    }
                    return;
                }
                continue;
            }
            if (stealNanos >= 0) {
                LockSupport.parkNanos(this, stealNanos);
            } else {
                LockSupport.park(this);
            }
            IDLE.setVolatile(this, false);
        }
    }

    /**
     * Polls the node's queue for up to the scheduler's idle spin, with {@link Thread#onSpinWait()} between polls,
     * and returns the first mount found, or null once the spin is over or the node is terminated. The carrier is
     * not idle meanwhile, so a submitter does not unpark it: the mount is picked up here, without a park and the
     * wake-up that ends it. Bounded: after the spin the caller goes the idle way and parks.
     */
    private Runnable spinPoll() {
        long spin = home.scheduler.idleSpinNanos;
        if (spin <= 0) {
            return null;
        }
        long start = System.nanoTime();
        for (int i = 1; ; i++) {
            Thread.onSpinWait();
            Runnable task = home.queue.poll();
            if (task != null) {
                return task;
            }
            if ((i & 15) == 0 && (home.terminated || System.nanoTime() - start >= spin)) {
                return null;
            }
        }
    }

    /** The mount in progress, as (mounts, start): start is 0 when the carrier runs none. Watcher only. */
    long mounts() {
        return mounts;
    }

    long mountStart() {
        return mountStart;
    }

    private void runTask(Runnable task) {
        if (watched) {
            mountStart = System.nanoTime() | 1;
            mounts = mounts + 1;
        }
        try {
            task.run();
        } catch (Throwable e) {
            // A mount task does not throw; if one did, the carrier must survive it to keep the node live.
            try {
                getUncaughtExceptionHandler().uncaughtException(this, e);
            } catch (Throwable ignored) {
                // nothing more can be done
            }
        } finally {
            if (watched) {
                mountStart = 0;
            }
        }
    }
}
