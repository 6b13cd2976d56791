package io.numaloom.stress.visibility;

import io.numaloom.stress.subject.InspectableLock;
import io.numaloom.stress.subject.Subject;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.util.concurrent.TimeUnit;

/**
 * Plain fields written in one critical section and read in another: the lock's release/acquire edge is the
 * only thing that orders them. The writer stores {@code a}, then {@code b}, then publishes a freshly built
 * {@link Box} through a plain field; a reader that enters after the writer must see all of it, one that enters
 * before sees none of it, and nothing in between is allowed.
 *
 * <p>Results ({@link III_Result}): r1 = b, r2 = a, r3 = the published box's value (0 when none); all -1 when
 * the reader's timed tryLock gave up.
 */
public abstract class VisibilityState {

    /** A value with a plain, non-final field: safe to read only through a happens-before edge. */
    static final class Box {
        int value;

        Box(int value) {
            this.value = value;
        }
    }

    private final InspectableLock lock;
    private int a;
    private int b;
    private Box box;

    protected VisibilityState(InspectableLock lock) {
        this.lock = lock;
    }

    public void write() {
        lock.lock();
        try {
            a = 1;
            b = 1;
            box = new Box(42);
        } finally {
            lock.unlock();
        }
    }

    public void readWithLock(III_Result r) {
        lock.lock();
        try {
            read(r);
        } finally {
            lock.unlock();
        }
    }

    public void readWithTimedTryLock(III_Result r) {
        boolean acquired;
        try {
            acquired = lock.tryLock(10, TimeUnit.MICROSECONDS);
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts jcstress actors", e);
        }
        if (!acquired) {
            r.r1 = r.r2 = r.r3 = -1;
            return;
        }
        try {
            read(r);
        } finally {
            lock.unlock();
        }
    }

    private void read(III_Result r) {
        r.r1 = b;
        r.r2 = a;
        Box seen = box;
        r.r3 = seen == null ? 0 : seen.value;
    }

    @State
    public static class PerNode extends VisibilityState {
        static {
            Subject.VNA_PER_NODE.requireTwoQueues();
        }

        public PerNode() {
            super(Subject.VNA_PER_NODE.create());
        }
    }

    @State
    public static class PerSocket extends VisibilityState {
        static {
            Subject.VNA_PER_SOCKET.requireTwoQueues();
        }

        public PerSocket() {
            super(Subject.VNA_PER_SOCKET.create());
        }
    }

    @State
    public static class Reentrant extends VisibilityState {
        public Reentrant() {
            super(Subject.REENTRANT_LOCK.create());
        }
    }
}
