package io.numaloom.stress.subject;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The reference: a non-fair {@link ReentrantLock}, whose public methods already have the {@link InspectableLock}
 * signatures. A subclass rather than a wrapper, so that the reference runs the JDK's code unchanged.
 */
public final class InspectableReentrantLock extends ReentrantLock implements InspectableLock {
    private static final long serialVersionUID = 1L;
}
