package io.numaloom.stress.conformance;

import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The five ways to wait on a {@link Condition}, each with a timeout (where it has one) that never expires in a
 * test, so that a test can run once per waiting method.
 */
enum AwaitMethod {
    AWAIT(true) {
        @Override boolean await(Condition c) throws InterruptedException {
            c.await();
            return true;
        }
    },
    AWAIT_NANOS(true) {
        @Override boolean await(Condition c) throws InterruptedException {
            return c.awaitNanos(NEVER.toNanos()) > 0;
        }
    },
    AWAIT_TIME(true) {
        @Override boolean await(Condition c) throws InterruptedException {
            return c.await(NEVER.toMillis(), TimeUnit.MILLISECONDS);
        }
    },
    AWAIT_UNTIL(true) {
        @Override boolean await(Condition c) throws InterruptedException {
            return c.awaitUntil(new Date(System.currentTimeMillis() + NEVER.toMillis()));
        }
    },
    AWAIT_UNINTERRUPTIBLY(false) {
        @Override boolean await(Condition c) {
            c.awaitUninterruptibly();
            return true;
        }
    };

    /** A timeout no test reaches: ten times the patience of the test itself. */
    static final java.time.Duration NEVER = Worker.PATIENCE.multipliedBy(10);

    /** Whether the method throws {@link InterruptedException}. */
    final boolean interruptible;

    AwaitMethod(boolean interruptible) {
        this.interruptible = interruptible;
    }

    /** Waits once; returns false only when the (never reached) timeout elapsed. */
    abstract boolean await(Condition c) throws InterruptedException;
}
