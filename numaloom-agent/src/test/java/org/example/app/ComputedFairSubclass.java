package org.example.app;

import java.util.concurrent.locks.ReentrantLock;

/** A subclass whose fairness its caller chooses, as commons-pool2's {@code InterruptibleReentrantLock}. */
public class ComputedFairSubclass extends ReentrantLock {
    private static final long serialVersionUID = 1L;

    public ComputedFairSubclass(boolean fair) {
        super(fair);
    }
}
