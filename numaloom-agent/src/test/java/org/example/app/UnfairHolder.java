package org.example.app;

import java.util.concurrent.locks.ReentrantLock;

/** An application class with unfair locks made both ways, and calls of ReentrantLock's final monitoring methods. */
public class UnfairHolder {
    public final ReentrantLock plain = new ReentrantLock();
    public final ReentrantLock unfair = new ReentrantLock(false);

    public static ReentrantLock make() {
        return new ReentrantLock();
    }

    public int waiting() {
        return plain.getQueueLength();
    }

    public boolean anyWaiting() {
        return plain.hasQueuedThreads();
    }

    public boolean waiting(Thread t) {
        return plain.hasQueuedThread(t);
    }
}
