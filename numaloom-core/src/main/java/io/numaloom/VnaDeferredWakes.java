package io.numaloom;

/**
 * The conditions' wake list of {@code VnaLock}: a signalled condition waiter is woken at the
 * release of the lock by its signaller, not at the signal, and each condition has at most one
 * signalled waiter woken and not yet holding the lock again.
 *
 * <p><b>Idea.</b> A waiter woken while its signaller still holds the lock can only find the lock
 * held and park again. So the signal pushes the waiter on a list in {@link VnaWaiters}, and the
 * release that frees the lock takes the list, releases, and then unparks the waiters
 * ({@code VnaLock.releaseAndWake}, {@link VnaCondition#unparkDeferred}). And a second waiter of
 * the same condition woken while the first is still on its way to the lock mostly finds, once it
 * gets there, that the first (or a running thread) has taken what the signal announced: so a
 * condition's later signalled waiters wait their turn, and each is woken by the release that
 * follows the re-acquisition of the one before.
 *
 * <p><b>Paper.</b> The futile wake-ups that D. Dice, "Implementing Fast Java Monitors with
 * Relaxed-Locks" (JVM '01), throttles by keeping at most one woken successor in transit; AQS's
 * {@code ConditionObject} gets the same effect by transferring the waiter into the lock's queue,
 * whose release wakes its first node only.
 *
 * <p><b>Properties.</b> No futile wake-up per signal; at most one woken signalled waiter in
 * transit per condition (a bounded buffer's two conditions: one producer and one consumer);
 * a condition's waiters are woken in the order they were signalled; a signalled waiter counts as
 * queued for the lock from the signal on, as with {@code ReentrantLock}; owner-only plain fields,
 * ordered by the lock word. Progress: the waiter in transit was unparked, so it re-acquires, and
 * its re-acquisition hands the turn on; a waiter that returns by itself after its signal (a
 * timeout or an interrupt) is passed over.
 *
 * <p><b>Wake on release.</b> A condition's {@code signal} moves the waiter's state to SIGNALLED
 * under the lock but does not unpark it: it pushes the waiter on {@code deferredWakes} (in
 * {@code VnaWaiters}, created if need be, so the fresh lock stays 40 bytes and a lock without
 * waiters reads nothing more), and the owner's release that frees the lock ({@code unlock} of
 * the last hold, or the {@code releaseFully} of an await) takes the list while still holding
 * the lock, releases, then unparks them, earliest signalled first. Unparked at the signal, a
 * waiter would run while its signaller still held the lock (on another carrier, or first on
 * this one), find the lock held, spin and park again: a futile wake-up per signal, the one
 * Dice's Relaxed-Locks paper throttles. Deferred, it runs when the lock is free. The list is
 * written and read by owners only, so plain fields suffice: the lock word's release and
 * acquire order them. The waiter's own loop (park while WAITING) is unchanged, so a waiter
 * that wakes early (a timeout, an interrupt, a spurious return) finds SIGNALLED and goes on
 * to re-acquire; the later unpark then only leaves a permit, which every park of
 * {@code VnaLock} tolerates (each re-checks its condition). AQS instead transfers the waiter into
 * the lock's queue, so that it is woken by the unlock that hands it the lock; with VNA's
 * competitive handoff a free lock is taken by whoever runs first, so waking at the release
 * gives the same effect without a second queue protocol. The signal still counts the waiter
 * as queued for the lock, as AQS's transfer does: it registers it in {@code queued} and links
 * it in {@link SignalledWaiters}, so the monitoring methods report it from the signal until it
 * holds the lock again; the woken thread queues, if it must, without registering twice. The
 * registration also sends the releases in between down the contended path, which is right: a
 * thread is about to compete.
 *
 * <p><b>One in transit per condition.</b> The condition keeps its <em>transit</em> waiter (the
 * signalled one a release was asked to wake and that does not hold the lock yet) and a FIFO of
 * signalled waiters not yet woken ({@code VnaCondition.transit}, {@code unwokenFirst}). A signal
 * that finds no transit waiter defers the wake as above and makes its waiter the transit one;
 * otherwise it only counts its waiter as queued and appends it to the FIFO. The transit waiter,
 * once it holds the lock again, hands the turn to the first waiter of the FIFO that has not
 * re-acquired by itself (its {@code inTransit} mark, cleared by its re-acquisition) and defers
 * that one's wake to its own release. Without this, every put that finds consumers waiting wakes
 * one more of them while earlier ones are still on their way, and a woken consumer may find the
 * buffer empty again. Per condition, not per lock as Dice's rule read literally has it: with one
 * in transit for the whole lock a woken producer holds back the consumers' wakes, and the other
 * way round; per condition, a bounded buffer keeps one producer and one consumer in transit.
 *
 * <p><b>Measured</b> (the verdict method, 2 cores; docs/measurements.md M14): without the one in transit,
 * {@code VnaLock} runs at 0.89 [0.82, 0.96] of itself on the bounded queue at capacity 16 on 32 virtual threads,
 * tied on the platform queues. The wake on release is not shown to pay: without it, tied on its own points, the
 * real-world queue on 2 and 8 platform and virtual threads (1.00-1.06, M25), and on three of the four queue points
 * of M14; at capacity 1 on 4 platform threads 0.62 [0.38, 0.98] (M25), where a variant whose code is the same on
 * platform threads read 0.69 [0.51, 0.90]. The runs before the method are entries 25-27 and 38.
 */
final class VnaDeferredWakes {

    private VnaDeferredWakes() {
    }

    /**
     * Counts a waiter just signalled as queued for the lock whose contended state is {@code w};
     * called holding that lock.
     */
    static void signalled(VnaWaiters w, VnaConditionWaiter waiter) {
        w.register(); // queued for the lock from now on, for getQueueLength() (see SignalledWaiters)
        w.signalled.add(waiter);
    }

    /**
     * Defers the unpark of a signalled condition waiter to the next release of the lock whose
     * contended state is {@code w}; called holding that lock.
     */
    static void wakeAtRelease(VnaWaiters w, VnaConditionWaiter waiter) {
        waiter.wakeNext = w.deferredWakes; // a stack: unparkDeferred reverses it
        w.deferredWakes = waiter;
    }
}
