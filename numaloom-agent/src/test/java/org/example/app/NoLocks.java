package org.example.app;

/** A class that never mentions ReentrantLock. */
public class NoLocks {
    public int value() {
        return 42;
    }
}
