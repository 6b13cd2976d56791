package io.numaloom;

/**
 * How a waiter's wait ended: it may go on ({@link #PROCEED}), go on and re-assert an interrupt it absorbed
 * ({@link #INTERRUPTED_BUT_CONTINUE}), or it gave up ({@link #GAVE_UP}: timed out; an interruptible wait that was
 * interrupted throws instead). Shared by the driver's wait for candidacy and the heir's competition, so that
 * neither refers to the other.
 */
final class VnaWaitOutcome {

    private VnaWaitOutcome() {
    }

    static final int PROCEED = 0;
    static final int INTERRUPTED_BUT_CONTINUE = 1;
    static final int GAVE_UP = 2;

    /** The outcome of a wait that did not give up: {@link #INTERRUPTED_BUT_CONTINUE} if it absorbed an interrupt. */
    static int proceed(boolean interrupted) {
        return interrupted ? INTERRUPTED_BUT_CONTINUE : PROCEED;
    }

    /** Ends a cancelled wait: by timeout ({@link #GAVE_UP}) or, for interruptible waits, by interrupt (throws). */
    static int giveUp(boolean interruptible, boolean interrupted) throws InterruptedException {
        if (interrupted && interruptible) {
            throw new InterruptedException();
        }
        return GAVE_UP;
    }
}
