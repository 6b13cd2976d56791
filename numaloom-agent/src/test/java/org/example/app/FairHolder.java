package org.example.app;

import java.util.concurrent.locks.ReentrantLock;

/** A constructor that makes a fair lock beside an unfair one, and a factory whose fairness is computed. */
public class FairHolder {
    public final ReentrantLock fair = new ReentrantLock(true);
    public final ReentrantLock unfair = new ReentrantLock();

    public static ReentrantLock make(boolean fair) {
        return new ReentrantLock(fair);
    }
}
