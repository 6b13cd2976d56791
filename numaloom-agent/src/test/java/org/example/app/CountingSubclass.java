package org.example.app;

import java.util.concurrent.locks.ReentrantLock;

/** A library's lock that extends ReentrantLock (as commons-pool2's deque does) and overrides lock(). */
public class CountingSubclass extends ReentrantLock {
    private static final long serialVersionUID = 1L;
    public int locks;

    public CountingSubclass() {
        super();
    }

    @Override
    public void lock() {
        super.lock();
        locks++;
    }

    public Thread owner() {
        return getOwner();
    }
}
