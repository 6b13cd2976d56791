package io.numaloom;

import java.util.concurrent.TimeUnit;

/**
 * The heir's competition for {@link VnaLock}: how the one waiting thread that is awake (the heir,
 * chosen by {@link VnaSuccession}) spins, naps, parks and finally takes the lock, against
 * newcomers that may barge.
 *
 * <p><b>Idea.</b> Handoff is competitive: a free lock goes to whichever thread takes it first, a
 * running newcomer or the heir, so the lock never waits for a parked thread to be woken. Only
 * the heir spins, briefly and with backoff; a spin that lost to a barger is followed by a nap,
 * not by more polling: a platform heir parks for it, a virtual one yields its carrier for it. A
 * virtual heir also naps when a release woke it and its spin found the lock held throughout.
 * Otherwise it announces a park and parks until a release wakes it. Its spin budget adapts to
 * what the last spin saw. The heir that wins leaves its queue at once
 * ({@link #becomeOwner}); one that gives up hands every role on ({@link #leaveAsCandidate}).
 *
 * <p><b>Papers.</b> One awake successor that competes with newcomers is the wake-up discipline of
 * D. Dice, "Implementing Fast Java Monitors with Relaxed-Locks" (JVM '01), here over the per-node
 * queues of the VNA lock (Kovalev, Koval et al., "NUMA-aware lock for Java Lightweight Threads").
 * The polls back off exponentially as in T. E. Anderson, "The Performance of Spin Lock
 * Alternatives for Shared-Memory Multiprocessors" (IEEE TPDS 1990).
 *
 * <p><b>Properties.</b> Not fair by itself: newcomers barge, for as long as {@link VnaReservation}
 * allows. One spinning thread per lock at most (the heir), and none where only one carrier or
 * CPU exists; every other waiter is parked without a timeout. A virtual heir's nap is a loop of
 * {@code Thread.yield()}, bounded by the nap and by the heir's deadline: it keeps a carrier only
 * while no other virtual thread waits for one. Besides a platform heir's naps, the heir parks
 * with a timeout only to recover from the benign race of an unfenced release (below).
 *
 * <p><b>Competitive handoff, bounded in time.</b> Newcomers may barge: take a free lock by CAS
 * ahead of the heir. That keeps running threads running, which is where the throughput of an
 * unfair lock comes from, since waking a parked thread costs microseconds. The heir spins
 * briefly. A spin that saw the lock free but lost it to a barger means the owner is running
 * and takes the lock back between its critical sections: the heir then <em>naps</em> for
 * {@link #HEIR_NAP_NANOS} (100 µs), a wait that no release ends (a timed park, or yields on
 * virtual threads: see "The nap of a virtual heir"), and spins again, until its
 * deadline (see {@link VnaReservation} and {@link #nap}). Meanwhile the owner keeps
 * the lock's cache line and the heir's core, or carrier, is free for other threads. Otherwise
 * the heir announces a park and parks until a release wakes it. A spin that lost to a barger past
 * the deadline doubles the next spin budget (up to {@link #MAX_HEIR_SPINS}), so a heir that keeps
 * losing to bargers costs its waker fewer unparks; a spin during which the lock stayed held halves
 * it (down to {@link #MIN_HEIR_SPINS}): the owner is in a long critical section or not running,
 * and a longer spin would only take a CPU, or a carrier, that the owner may need to finish (see
 * {@link #nextHeirSpins}). While it spins, the heir polls the lock word with exponential backoff,
 * so that an owner that runs one short critical section after another mostly keeps the lock's
 * cache line.
 *
 * <p><b>What went, what stayed.</b> The heir used to defer to a running owner: it took a lock
 * it saw free only if the lock was still free two pauses later, so that the owner could take it
 * back first. That went in issue 46: it did not pay where it could be measured (2 cores, one NUMA
 * node; no 16-core machine was lent). VNA's throughput over unfair {@code ReentrantLock},
 * geometric mean over 15 points (consumeCpu 100 tokens and RandBash on platform and virtual
 * threads, and the thesis's high contention on virtual threads, at 2, 8 and 32 threads; 10 warm-up
 * and 10 measured rounds, each run measuring the variants side by side): one fork, 1.084 with it and
 * 1.136 without; with the adaptive budget also off, 1.087 against 1.009 (3 forks) and 0.944
 * against 1.022 (2 forks). The same code reads from 0.94 to 1.09 in such runs. The adaptive budget
 * stayed: on the thesis's high contention alone (virtual threads at 2, 8 and 32 threads, 4 forks
 * per point, runs alternating), a fixed budget of {@link #HEIR_SPINS} read 0.84 to 0.92 of
 * {@code ReentrantLock} (geometric mean 0.886 over 6 ratios), the adaptive one 0.85 to 1.27 (0.991
 * over 11 with the deference, 0.984 over 6 without), as its halving was measured to do when it
 * came in (below). The nap stayed: without it a heir that lost to a barger announces its park at
 * once, and the owner's next release unparks it (RandBash: 0.04 parks and unparks per operation
 * instead of none). A scratch build that turns the nap off by a system property, both variants'
 * points alternating in one run (three rounds of one-fork runs, the variants in
 * rotated order, 20 warm-up and 10 measured rounds), VNA's throughput without the nap / with it,
 * geometric mean over the rounds: RandBash on virtual threads 0.93, 0.86 and 0.90 at 2, 8 and 32
 * threads; at 8 and 32, 0.77 and 0.78 in a run of 3 forks per point, 0.85 and 0.83 in one of 2.
 * At consumeCpu (100 tokens, platform and virtual threads), RandBash on platform threads and the
 * thesis's high contention it read 0.92 to 1.13, within this machine's noise (issue 46, 2 cores).
 * A heir that never spins while no carrier is to spare and naps 1 ms was not kept (consumeCpu at 8
 * and 32 virtual threads 0.91 and 0.76 of the base, the variants' points alternating in one run).
 *
 * <p><b>The nap of a virtual heir.</b> A virtual heir naps by yielding its carrier in a loop until
 * the nap is over ({@link #yieldFor}), not by a timed park. A yield runs any virtual thread that
 * waits for a carrier and returns at once when none does, so the nap still leaves the owner the
 * lock's cache line and gives the carrier to whoever needs it, but the carrier does not go to sleep
 * in the OS, and the nap ends on time: a timed park of a virtual thread ends through the
 * scheduler's timer thread, and its carrier must then be woken. That matters when the owner goes
 * away (its thread ends, or waits for something else) while the heir naps: the lock stays free
 * until the heir's nap is over. Measured on 2 cores, consumeCpu (100 tokens) on 32 virtual threads,
 * 30 rounds, every gap between two critical sections of different threads timed and sorted by how
 * the new owner came (a scratch probe of the bench): with the park, the gaps after the previous
 * owner's thread had ended summed to 130 ms (a heir that acquired after a nap found the lock left
 * free 170-200 µs on average), all handoffs to 188 ms; with the yields, 60 and 94 ms; NUMA_MCS, 58
 * and 95 ms; throughput 1,944, 2,292 and 2,191 operations per ms. VNA with the yields / with the
 * park, each round's points alternating in one run (20 warm-up and 7 measured rounds, one fork;
 * geometric mean over the rounds; issue 46): consumeCpu at 8 and 32 virtual threads 1.07 and 1.17
 * (3 rounds), 1.06 and 1.18 (4 rounds), 1.04 and 1.22 (3 rounds, 1.01 at 2 threads); RandBash 0.97
 * and 1.00, 0.91 and 0.97, 1.06 and 1.06 (0.90 at 2); the thesis's high contention 0.96 and 0.97,
 * 1.00 and 1.10, 1.00 and 1.06 (1.03 at 2). Over all points 1.020, 1.034 and 1.038, where NUMA_MCS
 * read 1.12 of the base; 1.023 in an earlier 4-round run (issue 46's notes). In another earlier
 * run, each variant in a run of its own, the CPU time rose from 86.5 to 88.8 CPU-s: a carrier that
 * naps this way is busy, where a parked one would idle. Platform heirs still park: the yields were
 * measured on virtual threads only, and a platform thread that yields on an idle CPU spins it. The
 * nap is also where a virtual heir lost its time against NUMA_MCS before this: on consumeCpu at
 * 8 virtual threads VnaLock kept 0.75 of its one-thread throughput where NUMA_MCS kept 0.92, but
 * with one carrier both keep 0.93-1.00 at 8 and 32 threads.
 *
 * <p><b>A virtual heir woken to a held lock.</b> A release that finds the heir parked wakes it, but
 * the lock is free only until the next newcomer, the releasing owner among them, takes it. A woken
 * heir that then spins and finds the lock held throughout used to park again, so that the next
 * release had to unpark it again. On the thesis's high contention (1,000 tokens and a yield inside
 * the critical section, virtual threads; 2 cores) the heirs parked more often than the lock changed
 * hands: 0.44-0.49 parks per operation against 0.28-0.33 owner changes at 8 and 32 threads. The
 * owner there is often a virtual thread that yielded inside its critical section and waits for a
 * carrier, the heir's among them. So a virtual heir woken to a held lock now naps, as after a lost
 * spin: its yields give the carrier to the owner, no release has to wake it, and it spins again
 * after the nap. Only the first spin after a park counts. A heir whose spin after a nap finds the
 * lock held parks as before. The nap is bounded by the deadlines, as every nap is. Measured with
 * the points alternating in one run (a scratch build switched by a system property, one fork, 20
 * warm-up and 7 measured rounds, 4 rounds, VNA with the nap / without it, geometric mean over the
 * rounds; issue 46):
 * <ul>
 * <li>The thesis's high contention: 1.10 and 1.10 at 8 and 32 threads, and again 1.10 and 1.10 (in
 *     all 16 rounds 1.06 to 1.16); 1.08 and 1.14 in an earlier run at 2, 8 and 32 threads.
 * <li>RandBash: 0.99 and 1.02, then 1.03 and 1.02.
 * <li>consumeCpu (100 tokens, no yields): 0.96 and 0.94, then 1.00 and 0.95.
 * <li>All points: 1.015 and 1.031; 1.030 in the earlier run.
 * </ul>
 * With the nap, VNA read 1.10 to 1.12 of unfair {@code ReentrantLock} on the thesis's high
 * contention in both runs, and 1.13 to 1.14 of NUMA_MCS. Not kept, measured in the second run: a
 * nap of 20 µs (0.986 over all points, high contention 0.97 and 1.05), and a nap that polls the
 * lock after each yield and takes it when it is free (0.983, high contention 0.96 and 0.97).
 * Platform heirs park again as before: a platform heir that naps the same way (a timed park of
 * 100 µs) read 0.975 over consumeCpu and RandBash at 2, 8 and 32 platform threads, 0.95 to 1.01 per
 * point (4 rounds, measured the same way).
 *
 * <p><b>Spinning while a carrier is to spare.</b> While the threads waiting for the lock are
 * fewer than the carriers of a virtual heir (the CPUs of a platform one), the owner and every
 * waiter can run at once, and a heir that spins takes no thread's place ({@link #carrierToSpare}).
 * It then spins {@link #IDLE_HEIR_SPINS} pauses at least, about what parking and being woken costs
 * a virtual thread, and polls at most {@link #IDLE_MAX_POLL_GAP} pauses apart instead of
 * {@link #MAX_POLL_GAP}, so that it sees the lock free in the gap between an owner's release and
 * its next acquisition when the owner works outside the lock: the owner's work outside then
 * overlaps the heir's critical section. With a single queue, a thread that becomes the candidate
 * of the empty queue becomes heir at once ({@link VnaSuccession}), so it spins while the owner
 * runs instead of parking until the owner's release designates it. This is HotSpot's rule for
 * monitors, spin while a processor is idle, and what the thesis's NUMA_MCS gets from a leader
 * that always spins. Measured on 2 cores, the thesis's high contention (virtual threads, a yield
 * before each acquisition and one inside) at 2 threads, before and after side by side in one run:
 * VNA / NUMA_MCS 0.83 before and 1.15 after (2 forks per point), 0.86 and 0.98 (4 forks; VNA
 * itself 237 and 298 operations per ms), parks per operation 0.41-0.43 before, 0.003-0.004 after;
 * at 8 threads (no carrier to spare) 1.04 and 0.90, within the noise of such runs. The dense polls
 * can cost a short critical section that its owner runs back to back, as the heir now takes the
 * lock between two of them more often: RandBash at 2 virtual threads read 1.37 of NUMA_MCS before
 * and 1.03 after in the 2-fork run, 1.23 and 1.22 in the 4-fork one (consumeCpu 100 tokens at 2
 * threads: 0.90 and 0.99 on virtual, 1.05 and 0.95 on platform threads). Not kept, each measured
 * the same way: a heir
 * that never parks untimed but polls with NUMA_MCS's spin-yield-sleep schedule, its owner
 * releasing with a plain store (RandBash on 32 virtual threads 0.59-0.72 of NUMA_MCS against
 * 0.80-0.85: ten times the unparks, since the heir wins the lock more often and each win wakes the
 * next heir); the next heir woken when the heir acquires; the poll gap of 8 at every thread count
 * (consumeCpu and RandBash at 8 threads 0.80-0.90 against 0.88-1.00); the poll gap shrinking while
 * the owner releases less than twice per poll (RandBash at 8 threads 0.78). Also not kept: the
 * dense spin whenever no virtual thread waits for a carrier, read from
 * {@code jdk.management.VirtualThreadSchedulerMXBean.getQueuedVirtualThreadCount()} at the start
 * of each spin (HotSpot's rule with the scheduler's own count). The thesis's high contention at 8
 * threads read 312 and 314 operations per ms against 278 and 290 in two runs. But RandBash on 8
 * and 32 virtual threads read 0.87 and 0.85 of the base, then 0.77 and 0.67: the heir took the
 * lock in the gaps between a barging owner's critical sections (0.36 owner changes per operation
 * instead of 0.03). A deference of 4 or 16 pauses before taking a lock seen free did not win that
 * back (0.76-0.80). Not kept either: dropping the dense polls, so that a spare carrier's heir
 * polls at most {@link #MAX_POLL_GAP} apart as every heir does (the variants' points alternating
 * in one run, 20 warm-up and 10 measured rounds, one fork; VNA without / with them at 2 threads,
 * geometric mean over the rounds, five runs of 3 to 5 rounds): consumeCpu 1.03 to 1.10 on virtual
 * and 1.05 to 1.16 on platform threads, RandBash 0.91 to 1.13, but the thesis's high contention
 * 0.97, 0.94, 0.94, 0.96 and 0.85, where these polls earn VNA its place against NUMA_MCS; 0.95 to
 * 1.19 at 8 and 32 threads (one run). Nor a heir that polls sparsely once a dense spin of the same
 * wait lost the lock to a barger (consumeCpu 1.05 and 1.00, high contention 0.96; issue 46).
 * Nor a spin that ends at its first loss, the heir napping as soon as a poll saw the lock free and
 * a barger took it. In a stand-alone loop of 2 virtual threads (100 tokens inside the lock, one
 * {@code nanoTime} before each acquisition and a histogram record inside, as the bench's latency
 * recording does) it took the median round from 10.8-11.0 to 9.3 ms, where {@code synchronized}
 * read 9.4 and one thread 8.8-9.4. Without it, the rounds in which the lock changed hands through
 * the queue (0.3 to 1% of the acquisitions queued, many of them after a park) ran 10.7 to 17 ms;
 * the likely cause is that a spare carrier's heir polls every {@link #IDLE_MAX_POLL_GAP} pauses for
 * its whole budget while the owner runs section after section, each poll taking the lock's line
 * from the owner. In the bench it did not pay beyond the noise (the variants' points alternating in
 * one run, 20 warm-up and 10 measured rounds, one fork; with the variant / without it, geometric
 * mean over 15 points: consumeCpu with 100 tokens and RandBash on 2, 8 and 32 virtual and platform
 * threads, and the thesis's high contention). On every spin it read 1.030 and 1.036 in runs of 3
 * and 4 rounds, the 2-thread points 1.03 to 1.21 but the high contention 0.95 and 1.07 there,
 * RandBash on 32 virtual threads 0.96 and 0.89 and the high contention on 8 threads 0.82 and 0.98;
 * on the spin while a carrier is to spare only, 1.013 and 1.008 (issue 46).
 *
 * <p><b>Spinning when every CPU is busy (platform threads).</b> Both spins, the newcomer's poll
 * ({@link VnaLock}) and this one while a carrier is to spare, count only the threads waiting for
 * the lock. Platform threads that work outside the lock want the CPUs too, and
 * once they outnumber them a spin takes the CPU of a thread that has work. On the queue sweep's
 * capacity 1024 (configs/queue-sweep.json: 100 tokens outside the lock before each put and after
 * each take, so the buffer's lock is taken and released some 3,000 to 4,000 times a millisecond), 2
 * cores, VNA read 0.73 to 0.90 of unfair {@code ReentrantLock} at 4 and 8 platform threads in seven
 * of eight one-run side-by-side comparisons (1.03 at 4 threads in the eighth), and used 14.0 s of
 * CPU where {@code ReentrantLock} used 10.2 s for the same run at 8 threads ({@code perf stat});
 * 55% of its acquisitions at 4 threads took the slow path, and 99.9% of those ended in the
 * newcomer's poll. A scratch build without either spin on platform threads: 0.86 to 0.98 at 4 and 8
 * threads (four runs), 11.1 s of CPU, but 0.78 to 0.90 at 2 threads, where the spins pay (1.13 to
 * 1.21 with them). A scratch rule that lets a platform thread spin only while the running count of
 * {@code /proc/loadavg} (sampled at most once a millisecond) is at most the CPUs, HotSpot's "spin
 * while a processor is idle" read literally (2 forks, side by side): 1.24 at 2 threads (1.15
 * without the rule), 0.96 at 8 (0.77), 0.81 at 4 (0.89; a 1-fork run read 1.03, 0.75 and 0.95 at 2,
 * 4 and 8), and consumeCpu and RandBash on 2, 8 and 32 platform threads with no work outside the
 * lock unchanged (geometric mean 1.02 against 1.005 over six points); but capacity 16 on 8 and 32
 * platform threads kept only half its lead (3.63 and 5.98 of {@code ReentrantLock} against 5.74 and
 * 12.94), since there the spins take a lock that {@code ReentrantLock}'s waiters reach through a
 * futex wake-up each (this VM takes 20 to 30 µs to run a woken platform thread). A newcomer's poll
 * of 4 pauses and then 4 yields on platform threads (a yield returns at once on an idle CPU and
 * hands a busy one to a thread that has work): capacity 1024 at 2, 4, 8 and 32 threads 1.27, 1.15,
 * 1.03, 0.93 against 1.14, 0.93, 0.68, 0.91, but capacity 16 at 8 threads 2.73 against 5.94, and
 * consumeCpu and RandBash with no work outside 0.98 in geometric mean against 1.02 (RandBash at 2
 * threads 0.84 against 0.98; one run each, side by side). The first two were not kept: each
 * moves the loss from one workload to another. The third is now the platform newcomer's poll: more
 * runs, with less work outside the lock too, found it paying (see {@link VnaNewcomerPoll});
 * this spin is unchanged. These runs are the measurement that a rule which knows whether a CPU is
 * idle has to beat (issue 46).
 *
 * <p><b>The benign race.</b> An unlock that read a stale "quiet" hint stores 0 without waking
 * anybody (see "Unlock and the benign race" in {@link VnaLock}): a heir that registered
 * concurrently fails its CAS and parks while nobody will wake it. Two things recover from this,
 * and neither costs the uncontended path anything:
 * <ol>
 * <li>the heir spins before it parks (when more than one carrier exists), so a release that was
 *     merely late is seen during the spin; and
 * <li>the heir, and only the heir, may park with a timeout, starting at
 *     {@link #HEIR_PARK_MIN_NANOS} and doubling up to {@link #HEIR_PARK_MAX_NANOS}. A missed
 *     wake-up therefore costs at most one timeout, never liveness. Under the Java memory model
 *     the release store becomes visible eventually and a timed-out heir re-reads {@code state}
 *     with volatile semantics.
 * </ol>
 * The heir parks <em>without</em> a timeout when the owner cannot have read a stale hint:
 * <ul>
 * <li>when the owner came through a queue ({@code ownerQueue >= 0}, read after announcing the
 *     park): such an owner is counted in {@code queued} until it resets {@code ownerQueue}
 *     before its fenced release, so it takes the contended path and reads {@code parked};
 * <li>when the heir has read the lock word free (a volatile read) at any time since it
 *     registered ({@code sawFree}). The acquisition of the current owner then comes after that
 *     read in the synchronization order, and so after the registration; the owner's release
 *     reads the hint ({@code waiters}, then {@code queued}) with volatile loads after its
 *     acquisition, so it sees the heir counted and takes the contended path.
 * </ul>
 * <p>A heir waiting behind owners that barge sees the lock free between their critical sections,
 * so it almost never parks with a timeout. That matters for virtual threads: each timed park
 * arms a timer, and each early wake-up disarms it, through the scheduler's timer thread, whose
 * wake-ups (thousands per second when every park of a busy heir was timed) preempt the
 * carriers.
 */
final class VnaHeirWait {

    private VnaHeirWait() {
    }

    /**
     * How long a heir naps after a spin that saw the lock free but lost it to a barger, before it
     * spins again (see {@link #nap}): 100 microseconds, a few hundred short critical
     * sections of an owner that barges, and the longest a lock its owner has left stays free
     * while its heir naps and no other thread comes.
     */
    static final long HEIR_NAP_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    /** The heir's first park timeout; it doubles on each timed-out park. */
    static final long HEIR_PARK_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The largest park timeout of the heir. */
    static final long HEIR_PARK_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(64);

    /**
     * The heir's first spin budget, in {@code onSpinWait} pauses (30 to 60 ns each on the AMD EPYC of
     * CI: a few microseconds); {@link #nextHeirSpins} adapts it.
     */
    static final int HEIR_SPINS = 128;
    /** The smallest spin budget of a heir that may spin (a quarter of a microsecond or more). */
    static final int MIN_HEIR_SPINS = 8;
    /** The largest spin budget of the heir (tens of microseconds or more). */
    static final int MAX_HEIR_SPINS = 1 << 12;
    /**
     * The most {@code onSpinWait}s between two polls of the lock word by a spinning heir (about
     * two microseconds on current x86): see {@link #spinForLock}.
     */
    static final int MAX_POLL_GAP = 64;

    /**
     * The spin budget of a heir while a carrier (or CPU) is to spare, see {@link #carrierToSpare}: 1,024 pauses, tens
     * of microseconds, about what parking and being woken again costs a virtual thread.
     */
    static final int IDLE_HEIR_SPINS = 1 << 10;
    /**
     * The most {@code onSpinWait}s between two polls of a heir while a carrier (or CPU) is to spare: 8, a few hundred
     * nanoseconds, so that the heir sees the lock free between an owner's release and its next acquisition when the
     * owner does some work in between.
     */
    static final int IDLE_MAX_POLL_GAP = 8;

    /**
     * The candidate's loop: parked until made heir; as heir, spin, reserve the lock once
     * patience runs out, announce the park, re-check and park.
     */
    static int competeAsCandidate(VnaLock lock, Thread me, VnaWaiters w, VnaQueueNode q, boolean interruptible,
                                  boolean timed, long deadline, boolean interrupted) throws InterruptedException {
        long heirPark = HEIR_PARK_MIN_NANOS;
        int spins = VnaLock.mayspin(me) ? HEIR_SPINS : 0;
        boolean woken = false; // it parked as heir (a release or the park's timeout ended it), not spun since
        for (;;) {
            long nanos = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
            boolean heir = w.heir() == q;
            boolean lockStayedHeld = false;
            if (heir) {
                VnaReservation.reserveIfOverdue(lock, q);
                boolean idle = spins > 0 && carrierToSpare(w, me);
                int spin = idle ? spinForLock(lock, me, q, Math.max(spins, IDLE_HEIR_SPINS), IDLE_MAX_POLL_GAP)
                        : spinForLock(lock, me, q, spins, MAX_POLL_GAP);
                if (spin == SPIN_ACQUIRED) {
                    becomeOwner(w, q);
                    return interrupted ? VnaLock.INTERRUPTED_BUT_CONTINUE : VnaLock.PROCEED;
                }
                lockStayedHeld = spin == SPIN_HELD;
                boolean wokenToHeldLock = woken && lockStayedHeld && me.isVirtual();
                woken = false;
                if (wokenToHeldLock) {
                    VnaSeams seams = VnaSeams.installed;
                    if (seams != null) {
                        seams.heirWokenToHeldLock();
                    }
                }
                if ((spin == SPIN_LOST || wokenToHeldLock) && !(interrupted && interruptible)
                        && nap(lock, me, q, timed, deadline)) {
                    if (Thread.interrupted()) {
                        interrupted = true;
                    }
                    continue;
                }
                VnaReservation.reserveIfOverdue(lock, q);
                q.announcePark();
                if (lock.tryAcquireAsHeir(me, q)) {
                    VnaQueueNode.PARKED.setOpaque(q, false);
                    becomeOwner(w, q);
                    return interrupted ? VnaLock.INTERRUPTED_BUT_CONTINUE : VnaLock.PROCEED;
                }
            }
            if (nanos <= 0L || (interrupted && interruptible)) {
                VnaQueueNode.PARKED.setOpaque(q, false);
                leaveAsCandidate(lock, me, w, q);
                return VnaLock.giveUp(interruptible, interrupted);
            }
            if (heir && !q.sawFree && w.ownerQueue() < 0) {
                // The owner may have read a stale "quiet" hint: park with the recovery timeout.
                q.park(lock, Math.min(nanos, heirPark));
                heirPark = Math.min(heirPark << 1, HEIR_PARK_MAX_NANOS);
            } else {
                // An owner that acquired after this thread saw the lock free, and a queued owner,
                // release through the fenced path and will see PARKED; a candidate that is not
                // heir is woken by its designation.
                q.park(lock, nanos);
            }
            if (heir) {
                woken = true;
                VnaQueueNode.PARKED.setOpaque(q, false);
                spins = nextHeirSpins(spins, lockStayedHeld, VnaLock.mayspin(me));
            }
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
    }

    /**
     * The heir's spin: {@code spins} {@code onSpinWait}s, polling the lock word after 1, 2, 4, ...
     * of them, at most {@code maxPollGap} apart (exponential backoff, as in T. E. Anderson,
     * "The Performance of Spin Lock Alternatives for Shared-Memory Multiprocessors", IEEE TPDS
     * 1990). Every poll pulls the lock's cache line away from the owner, whose next CAS or release
     * must then fetch it back.
     *
     * @return {@link #SPIN_ACQUIRED}; {@link #SPIN_LOST} if a poll saw the lock free but the heir
     *         did not get it; {@link #SPIN_HELD} if every poll found it held
     */
    private static int spinForLock(VnaLock lock, Thread me, VnaQueueNode q, int spins, int maxPollGap) {
        if (lock.tryAcquireAsHeir(me, q)) {
            return SPIN_ACQUIRED;
        }
        int outcome = SPIN_HELD;
        int gap = 1;
        for (int left = spins; left > 0; left -= gap, gap = Math.min(gap << 1, maxPollGap)) {
            for (int i = Math.min(gap, left); i > 0; i--) {
                Thread.onSpinWait();
            }
            int s = lock.state;
            if ((s & VnaLock.LOCKED) == 0) {
                q.sawFree = true;
                outcome = SPIN_LOST;
                if (lock.tryAcquireAsHeir(me, q)) {
                    return SPIN_ACQUIRED;
                }
            }
        }
        return outcome;
    }

    /**
     * Whether the heir has a carrier (or CPU) to spare: the threads waiting for this lock, the heir among them, are
     * fewer than the carriers of a virtual heir (the CPUs of a platform one), so the owner and every waiter can run
     * at once and a spinning heir takes nobody's place. Threads that do not use this lock may still want the
     * carrier; the heir's spin stays bounded ({@link #IDLE_HEIR_SPINS}) for them.
     */
    static boolean carrierToSpare(VnaWaiters w, Thread me) {
        return w.waitingThreads() < VnaLock.carriers(me);
    }

    /** Outcomes of {@link #spinForLock}. */
    static final int SPIN_ACQUIRED = 0;
    static final int SPIN_LOST = 1;
    static final int SPIN_HELD = 2;

    /**
     * The heir's nap, a wait of {@link #HEIR_NAP_NANOS}, or until its deadline or the caller's if
     * sooner, that it does not announce, so no release wakes it: a timed park of a platform heir,
     * yields of a virtual one ({@link #yieldFor}). A heir naps when its spin saw the lock free and
     * lost it to a barger: the owner is running and takes the lock back between its critical
     * sections; the heir could only win in one of those gaps, and meanwhile its polls take the
     * lock's cache line from the owner and its spin a core, or a carrier, from every other thread.
     * A virtual heir also naps when it was woken from a park and its spin found the lock held
     * throughout (see "A virtual heir woken to a held lock" above). Its deadline still bounds the
     * wait: once it has passed the heir does not nap but reserves.
     *
     * @return whether it napped ({@code false} once the deadline, or the caller's, has passed)
     */
    private static boolean nap(VnaLock lock, Thread me, VnaQueueNode q, boolean timed, long deadline) {
        long now = System.nanoTime();
        long nap = Math.min(HEIR_NAP_NANOS, q.untilDeadline(now));
        if (timed) {
            nap = Math.min(nap, deadline - now);
        }
        if (nap <= 0L) {
            return false;
        }
        if (me.isVirtual()) {
            yieldFor(me, now, nap);
        } else {
            q.park(lock, nap);
        }
        return true;
    }

    /**
     * A virtual heir's nap ({@code me}, the caller): it yields its carrier until {@code nap} nanoseconds
     * from {@code start} have passed, or until it is interrupted. Each yield runs any virtual thread
     * waiting for a carrier, the owner among them, and returns at once when none waits, so the nap
     * takes no thread's place and the heir's carrier stays awake for its next spin (see "The nap of
     * a virtual heir" above).
     */
    private static void yieldFor(Thread me, long start, long nap) {
        do {
            Thread.yield();
        } while (System.nanoTime() - start < nap && !me.isInterrupted());
    }

    /**
     * The heir's spin budget after a wake-up that did not give it the lock. A spin that saw the
     * lock free and lost it to a barger doubles the budget, up to {@link #MAX_HEIR_SPINS}: the
     * lock changes hands often, and a heir that spins longer parks, and is unparked, less often.
     * (Before its deadline such a heir naps instead and keeps its budget: {@link #nap}.)
     * A spin during which the lock stayed held halves it, down to {@link #MIN_HEIR_SPINS}: the
     * owner is in a long critical section, or is not running (a virtual owner that yields inside
     * its critical section waits for a free carrier), and spinning longer would only take the CPU
     * or carrier it needs. Measured on 2 cores, 8 virtual threads, a critical section of about
     * 2.5 microseconds with a yield inside: halving raised VNA from 0.90 to 0.97 of
     * {@code ReentrantLock}'s throughput, in 8 alternating runs. With 100 tokens and no yield it
     * lowered VNA from 1.14 to 1.09 (1.19 to 1.10 in 4 more runs; 1.12 to 1.08 on 32 virtual
     * threads): some spins poll only while a barging owner holds the lock. Halving only when the
     * owner also released fewer than once per {@link #MAX_POLL_GAP} pauses of the spin did not
     * win that back, and sparing platform heirs the halving made no difference on platform
     * threads beyond the noise (4 and 8 alternating runs). A thread that may not spin (one
     * carrier or one CPU) keeps a budget of 0.
     */
    static int nextHeirSpins(int spins, boolean lockStayedHeld, boolean maySpin) {
        if (!maySpin) {
            return 0;
        }
        return lockStayedHeld ? Math.max(spins >> 1, MIN_HEIR_SPINS) : Math.min((spins << 1) | 1, MAX_HEIR_SPINS);
    }

    /** Bookkeeping of a queued thread that now owns the lock. */
    private static void becomeOwner(VnaWaiters w, VnaQueueNode q) {
        LockDiagnostics.queuedAcquisition();
        int n = q.queue;
        q.retire();
        w.clearHeir(q);
        VnaSeams seams = VnaSeams.installed;
        if (seams != null) {
            seams.afterHeirCleared();
        }
        w.recordQueuedOwner(n);
        VnaSuccession.startTurn(w, n);
        VnaReservation.forgetReservedFree(w); // it may have taken a reserved lock: a lapse clock is now stale
        w.passCandidacy(n, q);
    }

    /**
     * A cancelling candidate gives its roles away so that no wake-up is lost. It clears a
     * reservation if it is the heir, or if it reserved in this wait and no live heir is left to
     * take the reservation: a designator that was slow can install a node for a moment in a wait
     * it did not pick (see {@link VnaSuccession#wakeHeir}), and that node may have reserved meanwhile.
     */
    private static void leaveAsCandidate(VnaLock lock, Thread me, VnaWaiters w, VnaQueueNode q) {
        VnaQueueNode h = w.heir();
        if (h == q || (q.reserved && (h == null || !h.isCandidateOf(w)))) {
            VnaReservation.clearReservation(lock, w);
        }
        q.cancelCandidate();
        w.passCandidacy(q.queue, q);
        w.clearHeir(q);
        w.unregister();
        VnaSuccession.wakeHeir(w, me);
    }
}
