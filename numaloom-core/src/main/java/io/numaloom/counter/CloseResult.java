package io.numaloom.counter;

/**
 * The outcome of {@link CloseableAcquireCounter#tryClose()}.
 */
public enum CloseResult {

    /**
     * This call closed the counter: no acquisition was outstanding, every later
     * {@link CloseableAcquireCounter#tryAcquire() tryAcquire} fails, and everything the holders did
     * before their {@link CloseableAcquireCounter#release release} happens-before the return of this call.
     */
    CLOSED,

    /**
     * At least one acquisition was outstanding; the counter is still open and unchanged, and no
     * acquisition that raced with this call failed because of it.
     */
    BUSY,

    /** Another call closed the counter earlier. */
    ALREADY_CLOSED
}
