package io.numaloom.bench;

import io.numaloom.bench.locks.Locks;

/**
 * The JVM's intrinsic monitor as a {@link Mutex}: a real {@code synchronized} block on a private object.
 * Since JDK 24 (JEP 491) a virtual thread that blocks on a monitor unmounts from its carrier, so the monitor
 * is a fair contender on virtual threads.
 */
public final class MonitorMutex implements Mutex {
    private final Object monitor = new Object();

    MonitorMutex() {}

    @Override
    public void runExclusively(Runnable section) {
        synchronized (monitor) {
            section.run();
        }
    }

    /**
     * {@code wait}/{@code notifyAll} on the monitor. Every condition of one monitor shares its single wait set,
     * so {@link MutexCondition#signal()} must wake every waiter ({@code notify} could wake a waiter of the other
     * condition and lose the wake-up); each woken waiter re-checks its predicate, as a {@code synchronized}
     * bounded buffer does.
     */
    @Override
    public MutexCondition newCondition() {
        return new MutexCondition() {
            @Override
            public void await() throws InterruptedException {
                monitor.wait();
            }

            @Override
            public void signal() {
                monitor.notifyAll();
            }

            @Override
            public void signalAll() {
                monitor.notifyAll();
            }
        };
    }

    @Override
    public String name() {
        return Locks.SYNCHRONIZED;
    }

    @Override
    public boolean isReentrant() {
        return true;
    }
}
