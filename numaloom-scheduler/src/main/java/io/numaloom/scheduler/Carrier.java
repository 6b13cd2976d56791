package io.numaloom.scheduler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * A carrier: a daemon platform thread that pins itself to its node's CPUs and then runs the node's mount tasks, one
 * at a time, in FIFO order, until the node is terminated and its queue is empty.
 *
 * <p>Idle protocol: a carrier that finds nothing to run sets {@code idle}, re-checks the queue and parks;
 * {@link NodeExecutor#execute} appends a task and then claims an idle carrier by a CAS of {@code idle} from true to
 * false before unparking it. Both sides write before they read (volatile and CAS), so a task appended while the
 * carrier goes idle is seen by the carrier's re-check or its claim is seen by the submitter: no lost wake-up. A
 * spurious wake-up only costs one more poll.
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

    Carrier(NodeExecutor home, int index, int[] cpus, long stealNanos, boolean watched, CountDownLatch started) {
        super(null, null, home.scheduler.name() + "-node" + home.node + "-carrier" + index, 0, false);
        this.home = home;
        this.cpus = cpus;
        this.stealNanos = stealNanos;
        this.started = started;
        this.watched = watched;
        setDaemon(true);
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
        pinFailure = cpus.length == 0 ? "no cpus to pin to" : CarrierAffinity.pin(cpus);
        started.countDown();
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
            if (stealNanos >= 0) {
                LockSupport.parkNanos(this, stealNanos);
            } else {
                LockSupport.park(this);
            }
            IDLE.setVolatile(this, false);
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
