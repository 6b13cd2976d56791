package io.numaloom;

/**
 * The conditions' wakes of {@code VnaLock}: a signalled condition waiter counts as queued for the
 * lock from the signal on, and each condition has at most one signalled waiter woken and not yet
 * holding the lock again.
 *
 * <p><b>Idea.</b> A second waiter of a condition woken while the first is still on its way to the
 * lock mostly finds, once it gets there, that the first (or a running thread) has taken what the
 * signal announced: so a condition's later signalled waiters wait their turn, and each is woken by
 * the re-acquisition of the one before ({@link VnaCondition}: {@code transit}, its FIFO of
 * signalled waiters not yet woken, {@code reacquired}).
 *
 * <p><b>Paper.</b> The futile wake-ups that D. Dice, "Implementing Fast Java Monitors with
 * Relaxed-Locks" (JVM '01), throttles by keeping at most one woken successor in transit; AQS's
 * {@code ConditionObject} gets the same effect by transferring the waiter into the lock's queue,
 * whose release wakes its first node only.
 *
 * <p><b>Properties.</b> At most one woken signalled waiter in transit per condition (a bounded
 * buffer's two conditions: one producer and one consumer); a condition's waiters are woken in the
 * order they were signalled; a signalled waiter counts as queued for the lock from the signal on,
 * as with {@code ReentrantLock}; owner-only plain fields, ordered by the lock word. Progress: the
 * waiter in transit was unparked, so it re-acquires, and its re-acquisition hands the turn on; a
 * waiter that returns by itself after its signal (a timeout or an interrupt) is passed over.
 *
 * <p><b>One in transit per condition.</b> The condition keeps its <em>transit</em> waiter (the
 * signalled one it woke and that does not hold the lock yet) and a FIFO of signalled waiters not
 * yet woken. A signal that finds no transit waiter wakes its waiter and makes it the transit one;
 * otherwise it only counts its waiter as queued and appends it to the FIFO. The transit waiter,
 * once it holds the lock again, hands the turn to the first waiter of the FIFO that has not
 * re-acquired by itself (its {@code inTransit} mark, cleared by its re-acquisition) and wakes it.
 * Without this, every put that finds consumers waiting wakes one more of them while earlier ones
 * are still on their way, and a woken consumer may find the buffer empty again. Per condition, not
 * per lock as Dice's rule read literally has it: with one in transit for the whole lock a woken
 * producer holds back the consumers' wakes, and the other way round; per condition, a bounded
 * buffer keeps one producer and one consumer in transit.
 *
 * <p><b>Queued from the signal.</b> The signal counts the waiter as queued for the lock, as AQS's
 * transfer does: it registers it in {@code queued} and links it in {@link SignalledWaiters}, so the
 * monitoring methods report it from the signal until it holds the lock again; the woken thread
 * queues, if it must, without registering twice. The registration also sends the releases in
 * between down the contended path, which is right: a thread is about to compete. A waiter is woken
 * at the signal, while its signaller holds the lock; it then takes the lock as any other thread does
 * (its spin, its queue). Deferring the wake to the signaller's release was measured and removed: tied
 * on the queues it claimed (docs/measurements.md M14, M25).
 *
 * <p><b>Measured</b> (the verdict method, 2 cores; docs/measurements.md M14): without the one in
 * transit, {@code VnaLock} runs at 0.89 [0.82, 0.96] of itself on the bounded queue at capacity 16 on
 * 32 virtual threads, tied on the platform queues. The runs before the method are entries 25-27.
 */
final class VnaConditionWakes {

    private VnaConditionWakes() {
    }

    /**
     * Counts a waiter just signalled as queued for the lock whose contended state is {@code w};
     * called holding that lock.
     */
    static void signalled(VnaWaiters w, VnaConditionWaiter waiter) {
        w.register(); // queued for the lock from now on, for getQueueLength() (see SignalledWaiters)
        w.signalled.add(waiter);
    }
}
