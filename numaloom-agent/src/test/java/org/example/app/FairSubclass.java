package org.example.app;

import java.util.concurrent.locks.ReentrantLock;

/** A subclass that asks for fairness: left as it was. */
public class FairSubclass extends ReentrantLock {
    private static final long serialVersionUID = 1L;

    public FairSubclass() {
        super(true);
    }
}
