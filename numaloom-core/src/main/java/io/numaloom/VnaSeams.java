package io.numaloom;

/**
 * Test seams: points in the contended path where a test can hold a thread, to force an
 * interleaving that timing alone produces once in tens of thousands of runs. Null outside
 * tests; read only on the contended path, never on the fast path.
 */
abstract class VnaSeams {
    static volatile VnaSeams installed;

    /** A designator picked the candidate of {@code candidate} and is about to install it. */
    void beforeHeirInstall(Thread candidate) {
    }

    /** A designator installed the node of {@code candidate} and is about to check its wait. */
    void afterHeirInstall(Thread candidate) {
    }

    /** A queued thread that acquired cleared the heir slot and will now pass its candidacy on. */
    void afterHeirCleared() {
    }

    /** The heir read the lock word free and is about to try its CAS. */
    void heirReadFree() {
    }

    /**
     * A virtual heir that parked found the lock held throughout its next spin: it naps next instead of
     * parking again, unless its deadline has passed or it was interrupted.
     */
    void heirWokenToHeldLock() {
    }

    /** A condition waiter's wait ended (signalled, timed out or interrupted); it is about to re-acquire. */
    void conditionWaitEnded() {
    }
}
