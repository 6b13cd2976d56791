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

    @Override
    public String name() {
        return Locks.SYNCHRONIZED;
    }

    @Override
    public boolean isReentrant() {
        return true;
    }
}
